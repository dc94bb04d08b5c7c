"""Interrupting, modes, queued input and the session commands in the terminal UI (real `yoke` in tmux)."""

from __future__ import annotations

import json
import time

from tests.ui.tmux import needs_tmux, pick, wait_prompt

from yoke.testing import ScriptedServer

pytestmark = needs_tmux

LONG = " ".join(f"word{i}" for i in range(3000))


def test_escape_interrupts_a_long_stream_within_a_second(pane_factory):
    with ScriptedServer([{"content": LONG, "delay": 0.05}, {"content": "after"}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("talk a lot")
        pane.keys("Enter")
        pane.wait_for("esc to interrupt)")
        pane.wait_for("word3", regex=False)
        # One press is enough: presses that seemed lost were interrupts swallowed by asyncio.wait_for (3.11)
        started = time.monotonic()
        pane.keys("Escape")
        pane.wait_for("Interrupted", timeout=5)
        assert time.monotonic() - started < 1.5  # a second, plus tmux's polling
        assert "word2999" not in pane.screen()


def test_shift_tab_cycles_modes(pane_factory):
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.keys("BTab")
        pane.wait_for("accept edits on")
        pane.keys("BTab")
        pane.wait_for("plan mode on")
        pane.keys("BTab")
        pane.wait_for("/help for commands · shift+tab")
        pane.type("/status")
        pane.keys("Enter")
        pane.wait_for("Permission mode")


def test_queued_message_is_sent_after_the_turn(pane_factory):
    turns = [{"content": LONG[:3000], "delay": 0.05}, {"content": "Second answer here."}]
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("first")
        pane.keys("Enter")
        pane.wait_for("esc to interrupt)")
        pane.type("second question")
        pane.keys("Enter")
        pane.wait_for("queued: second question")
        pane.wait_for("Second answer here.", timeout=60)
        screen = pane.screen()
        assert screen.index("> first") < screen.index("> second question") < screen.index("Second answer")
        last = json.dumps(srv.requests[-1].body)
        assert "second question" in last


def test_cost_context_and_compact(pane_factory):
    turns = [
        {"content": "An answer.", "usage": {"input_tokens": 1200, "output_tokens": 30}},
        {"content": "Summary of it all."},
    ]
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("hello")
        pane.keys("Enter")
        pane.wait_for("An answer.")
        pane.type("/cost")
        pane.keys("Enter")
        screen = pane.wait_for("Total cost:")
        assert "1,200 input" in screen
        pane.type("/context")
        pane.keys("Enter")
        screen = pane.wait_for("Free space:")
        assert "Messages:" in screen and "System prompt:" in screen
        pane.type("/compact keep it short")
        pane.keys("Enter")
        pane.wait_for("Conversation compacted")
        assert "keep it short" in json.dumps(srv.requests[-1].body)


def test_slash_completion_shows_descriptions(pane_factory):
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("/co")
        screen = pane.wait_for("Tokens and cost of this session")
        assert "/compact" in screen and "/context" in screen


def test_resume_picks_an_earlier_conversation(pane_factory):
    with ScriptedServer([{"content": "First session answer."}, {"content": "Resumed answer."}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("remember the word pineapple")
        pane.keys("Enter")
        pane.wait_for("First session answer.")
        pane.type("/clear")
        pane.keys("Enter")
        pane.wait_for("conversation cleared")
        pane.type("/resume")
        pane.keys("Enter")
        pick(pane, "remember the word pineapple")
        pane.wait_for("Resumed session")
        pane.type("what was the word?")
        pane.keys("Enter")
        pane.wait_for("Resumed answer.")
        assert "pineapple" in json.dumps(srv.requests[-1].body)


def test_rewind_restores_code_and_conversation(pane_factory, project):
    path = project / "notes.txt"
    path.write_text("original\n")
    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_r", "name": "Read", "input": {"file_path": str(path)}}
            ]
        },
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_w",
                    "name": "Write",
                    "input": {"file_path": str(path), "content": "changed\n"},
                }
            ]
        },
        {"content": "Rewrote it."},
        {"content": "Fresh start."},
    ]
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv, "--permission-mode", "acceptEdits")
        pane.wait_for("accept edits on")
        pane.type("rewrite notes")
        pane.keys("Enter")
        pane.wait_for("Rewrote it.")
        assert path.read_text() == "changed\n"
        pane.type("/rewind")
        pane.keys("Enter")
        pick(pane, "rewrite notes")
        pick(pane, "Restore code and conversation")
        pane.wait_for("Restored 1 file")
        assert path.read_text() == "original\n"
        pane.wait_for("> rewrite notes\n", regex=False)
        pane.keys("C-c")  # clears the prompt the rewound message came back to
        pane.type("something else")
        pane.keys("Enter")
        pane.wait_for("Fresh start.")
        sent = json.dumps(srv.requests[-1].body)
        assert "rewrite notes" not in sent and "something else" in sent


def test_shell_command_and_exit_keys(pane_factory, project):
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("!echo from-the-shell")
        pane.keys("Enter")
        pane.wait_for("⎿  from-the-shell")
        pane.keys("C-c")
        pane.wait_for("Press Ctrl+C again to exit")
        pane.keys("C-c")
        pane.wait_exit()


def test_agents_mcp_and_permissions_commands(pane_factory, project):
    from tests.mcp_support.helpers import stdio_entry

    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"calc": stdio_entry()}}))
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(git log:*)"], "deny": ["Read(./.env)"]},
                "enableAllProjectMcpServers": True,
            }
        )
    )
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("/agents")
        pane.keys("Enter")
        screen = pane.wait_for("general-purpose")
        assert "Explore" in screen and "built-in" in screen
        pane.type("/permissions")
        pane.keys("Enter")
        screen = pane.wait_for("Bash(git log:*)")
        assert "Read(./.env)" in screen
        for _attempt in range(10):  # on a loaded machine the server may still be starting: ask again
            pane.type("/mcp")
            pane.keys("Enter")
            screen = pane.wait_for("calc")
            try:
                pane.wait_for("connected", timeout=3)
                break
            except AssertionError:
                continue
        assert "connected" in pane.screen()


def test_resume_picker_has_a_section_for_another_agents_sessions(pane_factory, home, project):
    from tests.session.test_foreign_sessions import GEMINI_ID, place_gemini

    place_gemini(home, project)
    with ScriptedServer([{"content": "Continued from Gemini."}]) as srv:
        pane = pane_factory(srv, env={"GEMINI_CLI_HOME": str(home)})
        wait_prompt(pane)
        pane.type("/resume")
        pane.keys("Enter")
        screen = pane.wait_for("Gemini CLI · ")
        assert "what do my notes say?" in screen
        pick(pane, "Gemini CLI · ")
        pane.wait_for("Resumed session")
        pane.type("and now?")
        pane.keys("Enter")
        pane.wait_for("Continued from Gemini.")
        body = json.dumps(srv.requests[-1].body)
        assert body.index("what do my notes say?") < body.index("remember the milk") < body.index("and now?")
    assert GEMINI_ID not in {p.stem for p in (home / ".yoke").rglob("*.jsonl")}  # a new Yoke session


def test_profile_switches_server_model_and_footer(pane_factory, yoke):
    with (
        ScriptedServer([{"content": "not me"}]) as default,
        ScriptedServer([{"content": "Profile answer."}]) as srv,
    ):
        added = yoke("profile", "add", "work", "--provider", "anthropic", "--model", "claude-haiku-4-5",
                     "--base-url", srv.url, "--key-env", "WORK_KEY")  # fmt: skip
        assert added.code == 0, added.stderr
        pane = pane_factory(default, "--profile", "work", env={"WORK_KEY": "sk-work"})
        wait_prompt(pane)
        pane.wait_for("profile work (claude-haiku-4-5)")
        pane.type("hello")
        pane.keys("Enter")
        pane.wait_for("Profile answer.")
        assert not default.requests
        assert srv.requests[-1].body["model"] == "claude-haiku-4-5"


def test_rewind_restores_what_bash_did_asks_about_outside_edits_and_undoes(pane_factory, project):
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=project, check=True)

    git("init", "-q")
    (project / "a.txt").write_text("alpha\n")
    (project / "b.txt").write_text("beta\n")
    git("add", "-A")
    git("commit", "-qm", "start")
    command = "sed -i s/alpha/ALPHA/ a.txt && sed -i s/beta/BETA/ b.txt && echo new > gen.txt"
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": command}}]},
        {"content": "Edited with sed."},
    ]
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv, "--permission-mode", "bypassPermissions")
        wait_prompt(pane)
        pane.type("edit with sed")
        pane.keys("Enter")
        pane.wait_for("Edited with sed.")
        (project / "b.txt").write_text("edited by the user\n")  # another process, meanwhile
        pane.type("/rewind")
        pane.keys("Enter")
        pick(pane, "edit with sed")
        pick(pane, "Restore code")
        pick(pane, "Keep their changes, restore the rest")
        pane.wait_for("Kept 1 file(s) changed outside this session: b.txt")
        assert (project / "a.txt").read_text() == "alpha\n" and not (project / "gen.txt").exists()
        assert (project / "b.txt").read_text() == "edited by the user\n"
        pane.type("/rewind undo")
        pane.keys("Enter")
        pane.wait_for("Undid the latest rewind")
        assert (project / "a.txt").read_text() == "ALPHA\n" and (project / "gen.txt").read_text() == "new\n"


def test_the_terminal_says_compaction_is_coming_with_the_window_used(pane_factory, project):
    turns = [
        {"content": "First answer.", "usage": {"input_tokens": 11000, "output_tokens": 10}},
        {"content": "Summary of the start.", "usage": {"input_tokens": 500}},
        {"content": "Second answer.", "usage": {"input_tokens": 2000}},
    ]
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv, env={"YOKE_AUTOCOMPACT_WINDOW": "20000"})
        wait_prompt(pane)
        for text, answer in (("first question", "First answer."), ("second question", "Second answer.")):
            pane.type(text)
            pane.keys("Enter")
            pane.wait_for(answer)
        screen = pane.screen()
        assert "Compacting the conversation (auto):" in screen and "of 20,000 tokens" in screen
        assert screen.index("Compacting the conversation") < screen.index("Second answer.")
