"""Issue 27's terminal items as a user meets them (real `yoke` in tmux, against the scripted server)."""

from __future__ import annotations

import time

from tests.ui.tmux import needs_tmux, pick, wait_prompt

from yoke.testing import ScriptedServer

pytestmark = needs_tmux


def test_doctor_in_the_terminal_says_the_model_is_not_served(pane_factory):
    with ScriptedServer([], models=["claude-haiku-5-5"]) as srv:
        pane = pane_factory(srv, width=200)
        wait_prompt(pane)
        pane.type("/doctor")
        pane.keys("Enter")
        screen = pane.wait_for("problem")
        assert (
            "claude-opus-5-5: the default model is not served by anthropic; it serves: claude-haiku-5-5"
            in screen
        )
        assert "bubblewrap" in screen and "Python" in screen


def test_a_resumed_shell_command_shows_as_a_command_not_tags(pane_factory):
    with ScriptedServer([{"content": "It printed a greeting."}]) as srv:
        pane = pane_factory(srv, width=160)
        wait_prompt(pane)
        pane.type("!echo hello-shell")
        pane.keys("Enter")
        pane.wait_for("⎿  hello-shell")
        pane.type("what did it print")
        pane.keys("Enter")
        pane.wait_for("It printed a greeting.")
        pane.type("/clear")
        pane.keys("Enter")
        pane.wait_for("conversation cleared")
        pane.type("/resume")
        pane.keys("Enter")
        screen = pane.wait_for("what did it print")
        assert "bash-input" not in screen
        pick(pane, "what did it print")
        screen = pane.wait_for("Resumed session")
        tail = screen.rsplit("/resume", 1)[1]
        assert "bash-input" not in tail and "bash-stdout" not in tail
        assert "! echo hello-shell" in tail and "> what did it print" in tail


def test_a_new_file_is_written_not_updated(pane_factory, project):
    content = "line one\nline two\nline three\n"
    call = {"type": "tool_use", "id": "toolu_w", "name": "Write",
            "input": {"file_path": str(project / "notes.md"), "content": content}}  # fmt: skip
    with ScriptedServer([{"content": [call]}, {"content": "Written."}]) as srv:
        pane = pane_factory(srv, "--permission-mode", "acceptEdits")
        wait_prompt(pane)
        pane.type("write notes")
        pane.keys("Enter")
        screen = pane.wait_for("Written.")
    assert "Wrote 3 lines to notes.md" in screen
    assert "Updated notes.md" not in screen and "addition" not in screen
    assert "1   line one" in screen


def test_ctrl_c_that_interrupts_a_turn_does_not_arm_exit(pane_factory):
    long = " ".join(f"word{i}" for i in range(3000))
    with ScriptedServer([{"content": long, "delay": 0.05}, {"content": "after"}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("talk a lot")
        pane.keys("Enter")
        pane.wait_for("word3")
        pane.keys("C-c")
        pane.wait_for("Interrupted", timeout=5)
        pane.keys("C-c")  # the first press after an interrupt only arms exit
        pane.wait_for("Press Ctrl+C again to exit")
        time.sleep(0.5)
        assert not pane.dead()
        pane.keys("C-c")
        pane.wait_exit()


def test_the_banner_fits_80_columns(pane_factory):
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv, width=80)
        wait_prompt(pane)
        rows = pane.screen().splitlines()
    assert rows[0].startswith("✻ Yoke") and rows[1].startswith("  /help for commands"), rows[:3]
    assert all(len(row) <= 80 for row in rows[:2])


def test_a_fully_typed_command_keeps_its_completion_entry(pane_factory):
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv, width=160)
        wait_prompt(pane)
        pane.type("/docto")
        pane.wait_for("Check the installation, settings, provider and models")
        pane.type("r")
        time.sleep(0.5)
        screen = pane.wait_for("Check the installation, settings, provider and models")
        assert "/doctor" in screen
        pane.keys("Enter")  # Enter still runs the command typed
        pane.wait_for("Installation")


def test_export_writes_every_tool_call_and_its_result(pane_factory, project):
    call = {"type": "tool_use", "id": "toolu_e", "name": "Bash", "input": {"command": "echo exported-output"}}
    turns = [{"content": [{"type": "text", "text": "Running it."}, call]}, {"content": "It printed."}]
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv, "--allowedTools", "Bash(echo:*)")
        wait_prompt(pane)
        pane.type("run echo")
        pane.keys("Enter")
        pane.wait_for("It printed.")
        pane.type("/export out.txt")
        pane.keys("Enter")
        pane.wait_for("Conversation exported")
    text = (project / "out.txt").read_text()
    assert "> run echo" in text
    assert "● Running it." in text
    assert "● Bash(echo exported-output)" in text
    assert "  ⎿  exported-output" in text
    assert "● It printed." in text
    assert "\n\n\n" not in text  # no empty entries for tool calls or results


def _number(text: str, label: str) -> int:
    import re

    match = re.search(re.escape(label) + r"\s*~?([\d,]+) tokens", text)
    assert match, (label, text)
    return int(match.group(1).replace(",", ""))


def test_context_has_one_accounting_in_the_grid_the_report_and_headless(pane_factory, yoke, project):
    from tests.conftest import anthropic_env

    (project / "CLAUDE.md").write_text("Use tabs.\n")
    flags = ("--tools", "Read,Bash,Grep")
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv, *flags, width=200, height=80)
        wait_prompt(pane)
        pane.type("/context")
        pane.keys("Enter")
        screen = pane.wait_for("In use:")
        headless = yoke("-p", "/context", *flags, env=anthropic_env(srv)).stdout
    grid_system, grid_tools = _number(screen, "System prompt:"), _number(screen, "Tools:")
    assert grid_system == _number(screen.split("Free space:")[1], "System prompt:")  # one screen, one size
    assert grid_tools == _number(screen, "Tool definitions:")
    assert _number(headless, "Tool definitions:") == grid_tools  # -p counts the same tools the same way
    assert (
        abs(_number(headless, "System prompt:") - grid_system) < 100
    )  # same prompt up to the front-end's words


def test_review_and_usage_in_the_terminal(pane_factory, project):
    import json
    import subprocess

    for args in (["init", "-q"], ["config", "user.email", "t@e.com"], ["config", "user.name", "T"]):
        subprocess.run(["git", *args], cwd=project, check=True)
    (project / "app.py").write_text("x = 1\n")
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "one"], cwd=project, check=True)
    (project / "app.py").write_text("x = 2\n")
    with ScriptedServer([{"content": "Looks fine: x changes from 1 to 2."}]) as srv:
        pane = pane_factory(srv, width=160)
        wait_prompt(pane)
        pane.type("/review")
        pane.keys("Enter")
        pane.wait_for("Looks fine: x changes from 1 to 2.")
        assert "+x = 2" in json.dumps(srv.requests[0].body["messages"])
        pane.type("/usage")
        pane.keys("Enter")
        screen = pane.wait_for("Activity:")
    assert "Total cost:" in screen and "Context:" in screen and "1 prompt" in screen


def _mcp_project(project):
    import json

    from tests.mcp_support.helpers import stdio_entry

    servers = {"calc": stdio_entry(), "other": stdio_entry()}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return project / ".claude" / "settings.local.json"


def test_mcp_json_servers_are_approved_once_in_a_dialog(pane_factory, project):
    import json

    local = _mcp_project(project)
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv, width=160)
        screen = pane.wait_for('start the MCP server "calc"')
        assert "It runs with your permissions" in screen
        pick(pane, "Yes, this server")
        pane.wait_for('start the MCP server "other"')
        pick(pane, "No, do not start it")
        wait_prompt(pane)
        for _attempt in range(10):  # the approved server may still be starting on a loaded machine
            pane.type("/mcp")
            pane.keys("Enter")
            try:
                pane.wait_for("connected", timeout=3)
                break
            except AssertionError:
                continue
    assert json.loads(local.read_text()) == {
        "enabledMcpjsonServers": ["calc"],
        "disabledMcpjsonServers": ["other"],
    }
    with ScriptedServer([]) as srv:  # asked once: the next start asks nothing
        pane = pane_factory(srv, width=160)
        wait_prompt(pane)
        time.sleep(1)
        assert "start the MCP server" not in pane.screen()


def test_trusting_every_mcp_json_server_sets_enable_all(pane_factory, project):
    import json

    local = _mcp_project(project)
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv, width=160)
        pane.wait_for('start the MCP server "calc"')
        pick(pane, "Yes, and trust every server")
        wait_prompt(pane)
        time.sleep(0.5)
        assert 'start the MCP server "other"' not in pane.screen()
    assert json.loads(local.read_text()) == {"enableAllProjectMcpServers": True}
