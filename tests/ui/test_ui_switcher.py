"""Rough edges a user switching from Claude Code meets in the terminal UI (real `yoke` in tmux): the line an
`@file` attachment shows, a paste's line count."""

from __future__ import annotations

import subprocess

from tests.ui.tmux import TMUX, needs_tmux, wait_prompt

from yoke.testing import ScriptedServer

pytestmark = needs_tmux


def test_an_at_file_shows_what_was_read_under_the_prompt(pane_factory, project):
    (project / "calc.py").write_text("".join(f"x{i} = {i}\n" for i in range(6)))
    with ScriptedServer([{"content": "six assignments"}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("what does @calc.py do")
        pane.keys("Enter")
        pane.wait_for("six assignments")
        screen = pane.screen()
    assert "⎿  Read calc.py (6 lines)" in screen
    assert (
        screen.index("what does @calc.py do") < screen.index("Read calc.py (6 lines)") < screen.index("six")
    )


def test_a_50_line_paste_is_labelled_50_lines(pane_factory):
    text = "".join(f"pasted line {i}\n" for i in range(50))  # as copied: the last line ends in a newline
    with ScriptedServer([{"content": "Got it."}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        subprocess.run([TMUX, "-L", pane.socket, "set-buffer", "-b", "p", text], env=pane.env, check=True)
        subprocess.run(
            [TMUX, "-L", pane.socket, "paste-buffer", "-p", "-b", "p", "-t", "t"], env=pane.env, check=True
        )
        pane.wait_for("[Pasted text #1 +50 lines]")


def test_the_result_line_after_an_approved_plan_is_for_the_user(pane_factory, project):
    from tests.ui.tmux import pick

    plan = "## Plan\n\n1. Fix it"
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_p", "name": "ExitPlanMode", "input": {"plan": plan}}]},
        {"content": "Starting now."},
    ]
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv, "--permission-mode", "plan")
        pane.wait_for("plan mode on")
        pane.type("plan the fix")
        pane.keys("Enter")
        pane.wait_for("Would you like to proceed with this plan?")
        pick(pane, "auto-accept edits")
        screen = pane.wait_for("Starting now.")
    assert "⎿  User approved the plan" in screen or "⎿ User approved the plan" in screen
    assert "You can now start implementing" not in screen and "todo list" not in screen
