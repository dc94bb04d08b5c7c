"""The repeat guard: a model calling the same tool with the same input over and over is stuck."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from yoke.loop.executor import ToolCall


class RepeatGuard:
    def __init__(self, limit: int = 5):
        self.limit = limit
        self.last: str | None = None
        self.count = 0

    def check(self, calls: list[ToolCall]) -> str | None:
        """Count identical consecutive calls; return a reason once the limit is reached, else None."""
        if self.limit <= 0:
            return None
        for call in calls:
            key = call.name + "\0" + json.dumps(call.input, sort_keys=True, default=str)
            if key == self.last:
                self.count += 1
            else:
                self.last, self.count = key, 1
            if self.count >= self.limit:
                return (
                    f"Stopped a loop: {call.name} was called {self.count} times in a row with the same input."
                )
        return None
