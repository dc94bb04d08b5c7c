"""The repeat guard: a model calling the same tool with the same input over and over is stuck."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from yoke.loop.calls import ToolCall


class RepeatGuard:
    def __init__(self, limit: int = 5):
        self.limit = limit
        self.last: str | None = None
        self.count = 0

    def check(self, calls: list[ToolCall]) -> str | None:
        """Count consecutive answers that make the same calls with the same inputs (identical calls within one
        answer are one batch, not a loop); return a reason once the limit is reached, else None."""
        if self.limit <= 0 or not calls:
            return None
        key = "\n".join(
            sorted({call.name + "\0" + json.dumps(call.input, sort_keys=True, default=str) for call in calls})
        )
        if key == self.last:
            self.count += 1
        else:
            self.last, self.count = key, 1
        if self.count >= self.limit:
            names = ", ".join(sorted({call.name for call in calls}))
            return f"Stopped a loop: {names} was called {self.count} times in a row with the same input."
        return None
