"""The stream-json lines Claude Code writes about what the session is doing, besides its messages.

- `system/status` `{"status": "requesting"}` as each model request of the main conversation starts, under
  `--include-partial-messages` only (2.1.330 writes none without it);
- `system/status` `{"status": null, "permissionMode": <mode>}` when the permission mode changes mid-session
  (a `set_permission_mode` request, an approved plan, a hook's `setMode`);
- `system/thinking_tokens` `{"estimated_tokens", "estimated_tokens_delta"}` while the model thinks (with
  partial messages, each just before the thinking delta's own stream_event line): the
  estimate counts from zero again at each request, and the deltas of one request add up to its total.
  Claude Code does not say how it estimates; here it is the thinking text's length / 4, rounded up.
(`system/status` around compaction is written with the compaction's own lines, in printers.py.)
"""

from __future__ import annotations

from typing import Any

from yoke import events as ev
from yoke.providers import base as pb

CHARS_PER_TOKEN = 4


class StatusLines:
    """Turns events (and mode changes) into those lines; `system(subtype, **fields)` builds one."""

    def __init__(self, system: Any, partial: bool = True):
        self.system = system
        self.partial = partial  # --include-partial-messages
        self.mode: str | None = None
        self.thinking_chars = 0
        self.thinking_tokens = 0

    def lines(self, event: ev.Event) -> list[dict[str, Any]]:
        if isinstance(event, ev.SessionStarted):
            self.mode = event.permission_mode
            return []
        if getattr(event, "parent_tool_use_id", None) is not None:
            return []  # sub-agents' requests and thinking are theirs; Claude Code reports the main thread
        if isinstance(event, ev.TurnStarted):
            self.thinking_chars = self.thinking_tokens = 0
            return [self.system("status", status="requesting")] if self.partial else []
        if isinstance(event, ev.StreamEvent) and self.partial:
            # with partial messages the line goes before the thinking delta's own stream_event, as
            # 2.1.330 writes it (the printer asks for these lines first)
            raw = event.event
            if isinstance(raw, pb.ThinkingDelta) and raw.thinking:
                return self._thinking(raw.thinking)
            return []
        if isinstance(event, ev.ThinkingDelta) and not self.partial:
            return self._thinking(event.thinking)
        return []

    def _thinking(self, text: str) -> list[dict[str, Any]]:
        if not text:
            return []
        self.thinking_chars += len(text)
        total = -(-self.thinking_chars // CHARS_PER_TOKEN)
        delta, self.thinking_tokens = total - self.thinking_tokens, total
        if delta <= 0:
            return []
        return [self.system("thinking_tokens", estimated_tokens=total, estimated_tokens_delta=delta)]

    def mode_changed(self, mode: str) -> list[dict[str, Any]]:
        """The status line for the session's current mode, when it differs from the last one reported."""
        if self.mode is None or mode == self.mode:
            self.mode = mode
            return []
        self.mode = mode
        return [self.system("status", status=None, permissionMode=mode)]
