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
        assert not (Path(base_env["YOKE_HOME"]) / "trusted.json").exists()


def test_streamed_markdown_is_rendered(pane_factory):
    answer = "Here is **bold text** and `code`.\n\n## A heading\n\n- first item\n- second item\n\nThe end."
    with ScriptedServer([{"content": answer, "delay": 0.01}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("hello there")
        pane.keys("Enter")
        screen = pane.wait_for("The end.")
        assert "> hello there" in screen
        assert "bold text" in screen and "**" not in screen
        assert "A heading" in screen and "##" not in screen
        assert "• first item" in screen or "- first item" not in screen
