"""The settings commands (/config, /hooks, /output-style, /statusline), `/` completion of skills and MCP
prompts, Shift+Tab with bypass and auto mode, notifications and Ctrl+O (real `yoke` in tmux)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.ui.tmux import needs_tmux, pick, wait_prompt

from yoke.testing import ScriptedServer

pytestmark = needs_tmux


def settings_file(project: Path, name: str, data: dict) -> Path:
    folder = project / ".claude"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(data))
    return path


def system_text(request) -> str:
    return json.dumps(request.body.get("system"))


def test_hooks_lists_hooks_by_event_with_their_source(pane_factory, project):
    path = settings_file(
        project,
        "settings.json",
        {
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]}],
                "Notification": [{"hooks": [{"type": "command", "command": "echo ping"}]}],
            }
        },
    )
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv, width=220)  # the settings file's path on one line
        wait_prompt(pane)
        pane.type("/hooks")
        pane.keys("Enter")
        screen = pane.wait_for("echo ping")
        assert "PreToolUse" in screen and "[Bash] command: echo pre" in screen
        assert "Notification" in screen and "[*] command: echo ping" in screen
        assert f"from {path} (project settings)" in screen


def test_output_style_lists_and_switches_then_applies_after_clear(pane_factory, project):
    styles = project / ".claude" / "output-styles"
    styles.mkdir(parents=True)
    (styles / "pirate.md").write_text(
        "---\nname: Pirate\ndescription: Talks like a pirate\n---\nAnswer like a pirate, arr."
    )
    with ScriptedServer([{"content": "Arr, done."}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("/output-style")
        pane.keys("Enter")
        screen = pane.wait_for("Talks like a pirate")
        assert "Explanatory" in screen and "Learning" in screen and "default ✔" in screen
        pick(pane, "Pirate")
        pane.wait_for("Output style set to Pirate")
        local = json.loads((project / ".claude" / "settings.local.json").read_text())
        assert local == {"outputStyle": "Pirate"}
        pane.type("/output-style nosuch")
        pane.keys("Enter")
        pane.wait_for("No output style 'nosuch'")
        pane.type("/clear")
        pane.keys("Enter")
        pane.wait_for("conversation cleared")
        pane.type("hello")
        pane.keys("Enter")
        pane.wait_for("Arr, done.")
        assert "Answer like a pirate, arr." in system_text(srv.requests[-1])


def test_config_shows_settings_and_changes_them(pane_factory, project):
    settings_file(project, "settings.local.json", {"env": {"KEEP": "1"}})
    with ScriptedServer([{"content": "Fine."}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("/config set model opus")
        pane.keys("Enter")
        pane.wait_for("Model set to")
        pane.type("/config set defaultMode nonsense")
        pane.keys("Enter")
        pane.wait_for("defaultMode must be one of")
        pane.type("/config")
        pane.keys("Enter")
        # the table is printed above the prompt, the menu drawn in it: either may reach the screen first
        screen = pane.wait_for(r"preferredNotifChannel[\s\S]*Change a setting:", regex=True)
        assert "outputStyle" in screen and "defaultMode" in screen
        pick(pane, "Default permission mode")
        pick(pane, "plan")
        pane.wait_for("plan mode on")
        local = json.loads((project / ".claude" / "settings.local.json").read_text())
        assert local["permissions"]["defaultMode"] == "plan" and local["env"] == {"KEEP": "1"}
        assert local["model"] == "opus"
        pane.type("hi")
        pane.keys("Enter")
        pane.wait_for("Fine.")
        assert "opus" in srv.requests[-1].body["model"]


def test_statusline_asks_the_model_and_shows_the_new_line(pane_factory, project, base_env):
    command = (
        "mkdir -p ~/.claude && printf '#!/bin/sh\\necho STATUS-FROM-SCRIPT\\n' > ~/.claude/statusline.sh && "
        "chmod +x ~/.claude/statusline.sh && "
        """printf '{"statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}}' """
        "> ~/.claude/settings.json"
    )
    call = {"type": "tool_use", "id": "toolu_s", "name": "Bash", "input": {"command": command}}
    with ScriptedServer([{"content": [call]}, {"content": "Status line ready."}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("/statusline show the model")
        pane.keys("Enter")
        pane.wait_for("Do you want to proceed?")
        pick(pane, "Yes")
        pane.wait_for("Status line ready.")
        pane.wait_for("STATUS-FROM-SCRIPT")
        sent = json.dumps(srv.requests[0].body)
        assert "show the model" in sent and "statusLine" in sent and "statusline.sh" in sent
        assert (Path(base_env["HOME"]) / ".claude" / "statusline.sh").exists()


def test_completion_offers_skills_and_mcp_prompts(pane_factory, project):
    from tests.mcp_support.helpers import stdio_entry

    skill = project / ".claude" / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\ndescription: Ship it to production\n---\nDeploy the app.")
    hidden = project / ".claude" / "skills" / "internal"
    hidden.mkdir(parents=True)
    (hidden / "SKILL.md").write_text("---\ndescription: Not for people\nuser-invocable: false\n---\nX")
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"calc": stdio_entry()}}))
    settings_file(project, "settings.json", {"enableAllProjectMcpServers": True})
    with ScriptedServer([{"content": "Reviewed."}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("/dep")
        screen = pane.wait_for("Ship it to production")
        assert "/deploy" in screen
        pane.keys("C-u")
        pane.type("/in")
        time.sleep(1.0)
        assert "Not for people" not in pane.screen(history=False)
        pane.keys("C-u")
        deadline = time.monotonic() + 30
        while True:  # the MCP server's prompts are listed once it has connected
            pane.type("/mcp__")
            time.sleep(0.5)
            screen = pane.screen(history=False)
            if "Review a file" in screen or time.monotonic() > deadline:
                break
            pane.keys("C-u")
            time.sleep(0.5)
        assert "/mcp__calc__review" in screen and "Review a file" in screen and "<path>" in screen
        pane.keys("Escape")
        pane.type("calc__review src/app.py")
        pane.keys("Enter")
        pane.wait_for("Reviewed.")
        assert "Please review src/app.py carefully." in json.dumps(srv.requests[-1].body)


def test_shift_tab_adds_auto_when_enabled(pane_factory):
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv, "--enable-auto-mode")
        wait_prompt(pane)
        for label in ("accept edits on", "plan mode on", "auto mode on"):
            pane.keys("BTab")
            pane.wait_for(label)
        pane.keys("BTab")
        pane.wait_for("/help for commands · shift+tab")


def test_shift_tab_includes_bypass_when_started_with_it(pane_factory):
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv, "--dangerously-skip-permissions")
        pane.wait_for("bypass permissions on")
        pane.keys("BTab")
        pane.wait_for("/help for commands · shift+tab")
        for label in ("accept edits on", "plan mode on", "bypass permissions on"):
            pane.keys("BTab")
            pane.wait_for(label)
        assert "auto mode on" not in pane.screen()
        allowed = pane_factory(srv, "--allow-dangerously-skip-permissions")
        wait_prompt(allowed)
        for label in ("accept edits on", "plan mode on", "bypass permissions on"):
            allowed.keys("BTab")
            allowed.wait_for(label)
        plain = pane_factory(srv)
        wait_prompt(plain)
        for label in ("accept edits on", "plan mode on"):
            plain.keys("BTab")
            plain.wait_for(label)
        plain.keys("BTab")
        screen = plain.wait_for("/help for commands · shift+tab")
        assert "bypass permissions on" not in screen


def test_notifications_ring_the_terminal_and_run_the_hook(pane_factory, project, tmp_path):
    log = tmp_path / "notifications.jsonl"
    settings_file(
        project,
        "settings.json",
        {
            "preferredNotifChannel": "iterm2",
            "hooks": {
                "Notification": [{"hooks": [{"type": "command", "command": f"cat >> {log}; echo >> {log}"}]}]
            },
        },
    )
    call = {"type": "tool_use", "id": "toolu_n", "name": "Bash", "input": {"command": "touch n.txt"}}
    raw = tmp_path / "raw.out"
    with ScriptedServer([{"content": [call]}, {"content": "All done."}]) as srv:
        pane = pane_factory(srv, env={"YOKE_NOTIFY_AFTER_S": "0.5"})
        pane._tmux("pipe-pane", "-o", "-t", "t", f"cat >> {raw}")
        wait_prompt(pane)
        pane.type("make a file")
        pane.keys("Enter")
        pane.wait_for("Do you want to proceed?")
        deadline = time.monotonic() + 15
        while "permission_prompt" not in (log.read_text() if log.exists() else ""):
            assert time.monotonic() < deadline, "no Notification hook for the waiting question"
            time.sleep(0.1)
        pick(pane, "Yes")
        pane.wait_for("All done.")
        while "idle_prompt" not in log.read_text():
            assert time.monotonic() < deadline, "no Notification hook when the turn ended"
            time.sleep(0.1)
        payloads = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
        assert payloads[0]["hook_event_name"] == "Notification"
        assert payloads[0]["message"] == "Yoke needs your permission to use Bash"
        assert payloads[-1]["message"] == "Yoke is waiting for your input"
        out = raw.read_bytes()
        # inside tmux the OSC 9 is wrapped for passthrough (its ESC doubled)
        assert b"]9;Yoke needs your permission to use Bash\x07" in out
        assert b"]9;Yoke is waiting for your input\x07" in out


def test_ctrl_o_expands_the_turns_cut_output(pane_factory):
    calls = [
        {"type": "tool_use", "id": "toolu_a", "name": "Bash", "input": {"command": "seq 101 140"}},
    ]
    turns = [{"content": calls}, {"content": "Counted."}, {"content": [
        {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": "seq 201 230"}}
    ]}, {"content": "Again."}]  # fmt: skip
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv, "--allowedTools", "Bash(seq:*)")
        wait_prompt(pane)
        pane.type("count")
        pane.keys("Enter")
        screen = pane.wait_for("Counted.")
        assert "+36 lines (ctrl+o to expand)" in screen and "     140" not in screen
        pane.keys("C-o")
        screen = pane.wait_for("expanded tool output (1)")
        pane.wait_for("     140")
        pane.wait_for("output expanded (ctrl+o)")
        pane.type("again")
        pane.keys("Enter")
        screen = pane.wait_for("Again.")
        assert "     230" in screen  # shown whole while the view is expanded
        pane.keys("C-o")
        pane.wait_for("tool output collapsed")
