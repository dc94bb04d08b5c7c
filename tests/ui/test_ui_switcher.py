"""Rough edges a user switching from Claude Code meets in the terminal UI (real `yoke` in tmux): the line an
`@file` attachment shows (a paste's line count and the line after an approved plan are checked in
test_ui_input.py and test_ui_tools.py)."""

from __future__ import annotations

from tests.ui.tmux import needs_tmux, wait_prompt

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
