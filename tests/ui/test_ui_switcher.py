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


def test_narrowing_the_terminal_leaves_no_blank_lines_above_the_prompt(pane_factory):
    """The terminal reflows the prompt box's full-width rules when it narrows; the redraw must start from
    where they now are, or a blank line stays above the prompt per narrowing (three, after two narrowings
    and a widening, before this was fixed)."""
    import time

    def blank_rows_above_the_box(screen: str) -> int:
        rows = screen.rstrip("\n").splitlines()
        top = next(i for i, row in enumerate(rows) if row.startswith("─"))
        answer = max(i for i, row in enumerate(rows[:top]) if row.strip())
        return top - answer - 1

    with ScriptedServer([{"content": "Answer one."}]) as srv:
        pane = pane_factory(srv, width=100, height=30)
        wait_prompt(pane)
        pane.type("hello")
        pane.keys("Enter")
        pane.wait_for("Answer one.")
        before = blank_rows_above_the_box(pane.screen(history=False))
        for width in (80, 60, 100):
            pane._tmux("resize-window", "-t", "t", "-x", str(width), "-y", "30")
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # until the box is redrawn at the new width
                rules = [r for r in pane.screen(history=False).splitlines() if r.startswith("─")]
                if rules and len(rules[-1].rstrip()) == width:
                    break
                time.sleep(0.1)
        assert blank_rows_above_the_box(pane.screen(history=False)) == before == 1
