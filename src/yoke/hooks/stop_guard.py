"""Claude Code lets Stop hooks keep the model going, but not forever: after 8 consecutive blocks the next
one is overridden and the turn ends. The loop owns the decision; this counter is the rule."""

from __future__ import annotations

MAX_CONSECUTIVE_STOP_BLOCKS = 8


class StopBlockGuard:
    """Call `honour(blocked)` with each Stop (or SubagentStop) outcome's `block`; True means keep going.
    A Stop that is not blocked, or a new user prompt (`reset`), starts the count again."""

    def __init__(self, limit: int = MAX_CONSECUTIVE_STOP_BLOCKS):
        self.limit = limit
        self.consecutive = 0

    def honour(self, blocked: bool) -> bool:
        if not blocked:
            self.consecutive = 0
            return False
        if self.consecutive >= self.limit:
            self.consecutive = 0
            return False
        self.consecutive += 1
        return True

    @property
    def stop_hook_active(self) -> bool:
        """The `stop_hook_active` input field: the model is continuing because a Stop hook said so."""
        return self.consecutive > 0

    def reset(self) -> None:
        self.consecutive = 0
