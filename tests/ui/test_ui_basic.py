"""The terminal UI end to end: the real `yoke` in tmux against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.ui.tmux import needs_tmux, wait_prompt

from yoke.testing import ScriptedServer

pytestmark = needs_tmux


def test_trust_question_then_remembered(pane_factory, base_env, project):
    with ScriptedServer([{"content": "hi"}]) as srv:
        pane = pane_factory(srv, trusted=False)
        pane.wait_for("Do you trust the files in this folder?")
        pane.keys("Enter")
        wait_prompt(pane)
        trusted = json.loads((Path(base_env["YOKE_HOME"]) / "trusted.json").read_text())
        assert str(project.resolve()) in trusted["trusted"]
        pane.keys("C-d")
        pane.wait_exit()
        again = pane_factory(srv, trusted=False)
        wait_prompt(again)
        assert "Do you trust" not in again.screen()


def test_declining_trust_exits(pane_factory, base_env):
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv, trusted=False)
        pane.wait_for("Do you trust the files in this folder?")
        pane.keys("2")
        pane.wait_exit()
        assert pane.exit_status() == 1
        assert not (Path(base_env["YOKE_HOME"]) / "trusted.json").exists()


def test_streamed_markdown_is_rendered(pane_factory):
    answer = "Here is **bold text** and `code`.\n\n## A heading\n\n- first item\n- second item\n\nThe end."
    with ScriptedServer([{"content": answer, "delay": 0.01}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("hello there")
        pane.wait_for("hello there")  # in the input box before it is sent (a loaded machine draws late)
        pane.keys("Enter")
        pane.wait_for("The end.")  # may be the live tail line while the answer still streams
        screen = pane.wait_for("• first item")  # the finished answer, rendered as Markdown
        assert "> hello there" in screen and "The end." in screen, screen
        assert "bold text" in screen and "**" not in screen
        assert "A heading" in screen and "##" not in screen
        assert "• first item" in screen or "- first item" not in screen


def test_narrow_terminal_without_colour(pane_factory):
    answer = "A **narrow** answer with a list:\n\n- one item that is long enough to wrap at sixty columns for sure\n- two\n"
    with ScriptedServer([{"content": answer}]) as srv:
        pane = pane_factory(srv, env={"NO_COLOR": "1"}, width=60, height=30)
        wait_prompt(pane)
        pane.type("hi")
        pane.keys("Enter")
        screen = pane.wait_for("• two")
        assert "**" not in screen
        assert all(len(line) <= 60 for line in screen.splitlines())
        escaped = pane._tmux("capture-pane", "-p", "-e", "-t", "t")
        assert "\x1b[3" not in escaped.replace("\x1b[39m", "")  # no foreground colours


def test_history_search_and_multiline(pane_factory):
    with ScriptedServer([{"content": "first answer"}, {"content": "second answer"}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("line one\\")
        pane.keys("Enter")
        pane.type("line two")
        pane.keys("Enter")
        pane.wait_for("first answer")
        assert "line one\\nline two" in json.dumps(srv.requests[-1].body)
        pane.keys("C-r")
        pane.type("line one")
        pane.keys("Enter")
        pane.keys("Enter")
        pane.wait_for("second answer")
        assert json.dumps(srv.requests[-1].body).count("line two") == 2


def test_dumb_terminal_gets_a_plain_line_mode(pane_factory, project):
    turns = [
        {"content": "Plain **answer** here.\n\n- a point"},
        {
            "content": [
                {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": "touch dumb.txt"}}
            ]
        },
        {"content": "made it."},
    ]
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv, inner_env={"TERM": "dumb"})
        pane.wait_for(r"(?m)^>$", regex=True)
        pane.type("hello")
        pane.keys("Enter")
        screen = pane.wait_for("Plain answer here.")
        assert "**" not in screen
        escaped = pane._tmux("capture-pane", "-p", "-e", "-t", "t")
        assert "\x1b[" not in escaped
        pane.type("make a file")
        pane.keys("Enter")
        pane.wait_for("choose 1-")
        pane.type("1")
        pane.keys("Enter")
        pane.wait_for("made it.")
        assert (project / "dumb.txt").exists()
        pane.keys("C-d")
        pane.wait_exit()


def test_setup_error_is_one_line_and_exits(pane_factory):
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv, "--permission-mode", "nonsense")
        pane.wait_exit()
        screen = pane.screen()
        # Claude Code's parser words
        assert "error: option '--permission-mode <mode>'" in screen and "nonsense" in screen
        assert "Traceback" not in screen
        assert pane.exit_status() == 1
