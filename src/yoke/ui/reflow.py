"""The live area after the terminal is made narrower.

prompt_toolkit erases the live area on a resize by moving the cursor up as many rows as it drew. But a
terminal that reflows (tmux, iTerm2, VTE, kitty) has by then wrapped every line wider than the new width
(the prompt box's rules are as wide as the old terminal) onto more rows, so the cursor sits lower than
prompt_toolkit thinks: the erase stops short and leaves a row of the old area behind, a blank line above
the prompt for each narrowing. Counting the rows the old lines now take puts the erase back at the top.
"""

from __future__ import annotations

from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Point


class ReflowingApplication(Application):  # type: ignore[type-arg]
    def _on_resize(self) -> None:
        try:
            columns = self.output.get_size().columns
            moved = reflowed_cursor(self.renderer._last_screen, self.renderer._cursor_pos,
                                    self.renderer._last_size, columns)  # fmt: skip
            if moved is not None:
                self.renderer._cursor_pos = moved
        except (AttributeError, TypeError, ValueError):  # another prompt_toolkit: its own erase stands
            pass
        super()._on_resize()


def reflowed_cursor(screen: Any, cursor: Any, size: Any, columns: int) -> Point | None:
    """Where the cursor is once lines wider than `columns` above it have wrapped, or None if nothing did."""
    if screen is None or cursor is None or size is None or columns <= 0 or columns >= size.columns:
        return None
    extra = 0
    for row in range(cursor.y):
        used = _used_width(screen.data_buffer.get(row))
        if used > columns:
            extra += (used - 1) // columns
    return Point(x=cursor.x, y=cursor.y + extra) if extra else None


def _used_width(cells: Any) -> int:
    if not cells:
        return 0
    return max((column + max(1, char.width) for column, char in cells.items() if char.char != " "), default=0)
