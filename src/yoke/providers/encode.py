"""A request body's JSON with each history message encoded once.

Every request re-sends the whole conversation; encoding it in full each turn makes the per-turn cost grow
with the session. The messages' JSON is kept for the leading messages a body shares with an earlier one
(`yoke.prefix.PrefixMemo`), and so is that of the system prompt and tools, which rarely change.
"""

from __future__ import annotations

import json
from typing import Any

from yoke.prefix import PrefixMemo

_encode = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


def _encode_message(message: Any) -> bytes:
    return _encode(message).encode("utf-8")


class BodyEncoder:
    def __init__(self) -> None:
        self._messages: PrefixMemo[bytes] = PrefixMemo(_encode_message)
        self._rest: dict[str, Any] | None = None
        self._head = b""

    def encode(self, body: dict[str, Any]) -> bytes:
        messages = body.get("messages")
        if not isinstance(messages, list):
            return _encode(body).encode("utf-8")
        parts = self._messages.values(messages)
        rest = {k: v for k, v in body.items() if k != "messages"}
        # system prompt and tools are fresh copies each turn but rarely differ (tool schemas, like history
        # messages, are never changed in place): comparing is far cheaper than encoding them again
        if rest != self._rest:
            self._rest = rest
            self._head = _encode(rest).encode("utf-8")[:-1]  # without its closing brace
        # One join over every piece: a long session's body is large, and each extra concatenation copied it
        n = len(parts)  # head, part, ", ", part, ..., part, tail
        pieces = [b", "] * (2 * n + 1) if n else [b"", b""]
        pieces[0] = self._head + (b', "messages": [' if rest else b'"messages": [')
        pieces[1 : 2 * n : 2] = parts
        pieces[-1] = b"]}"
        return b"".join(pieces)
