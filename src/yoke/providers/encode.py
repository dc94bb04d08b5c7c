"""A request body's JSON with each history message encoded once.

Every request re-sends the whole conversation; encoding it in full each turn makes the per-turn cost grow
with the session. History messages are never changed in place (a rule of the loop), so a message's JSON can
be kept by the message's identity and joined into the next body; entries for messages that left the history
are dropped at once, so nothing dead is kept alive.
"""

from __future__ import annotations

import json
from typing import Any

_encode = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


class BodyEncoder:
    def __init__(self) -> None:
        self._messages: dict[int, tuple[Any, bytes]] = {}
        self._rest: dict[str, Any] | None = None
        self._head = b""

    def encode(self, body: dict[str, Any]) -> bytes:
        messages = body.get("messages")
        if not isinstance(messages, list):
            return _encode(body).encode("utf-8")
        live: dict[int, tuple[Any, bytes]] = {}
        parts: list[bytes] = []
        for message in messages:
            hit = self._messages.get(id(message))
            if hit is None or hit[0] is not message:
                hit = (message, _encode(message).encode("utf-8"))
            live[id(message)] = hit
            parts.append(hit[1])
        self._messages = live
        rest = {k: v for k, v in body.items() if k != "messages"}
        # system prompt and tools are fresh copies each turn but rarely differ (tool schemas, like history
        # messages, are never changed in place): comparing is far cheaper than encoding them again
        if rest != self._rest:
            self._rest = rest
            self._head = _encode(rest).encode("utf-8")[:-1]  # without its closing brace
        head = self._head
        joined = b'"messages": [' + b", ".join(parts) + b"]}"
        return head + (b", " if rest else b"") + joined
