"""A request body's JSON with each history message encoded once, and the body itself edited, not rebuilt.

Every request re-sends the whole conversation; encoding it in full each turn makes the per-turn cost grow
with the session. The messages' JSON is kept for the leading messages a body shares with an earlier one
(`yoke.prefix.PrefixMemo`), and so is that of the system prompt and tools, which rarely change. Gathering
thousands of separate pieces into one body was then the largest cost left that grew with the session, so
the last body is kept whole: a request that shares its leading messages with it only rewrites its end.
"""

from __future__ import annotations

import json
from typing import Any

from yoke.jsonsafe import utf8
from yoke.prefix import PrefixMemo, common_prefix

_encode = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode
_SEPARATOR, _END = b", ", b"]}"


def _encode_message(message: Any) -> bytes:
    return utf8(_encode(message))


class BodyEncoder:
    """Encodes request bodies whose history is the list under `key` ("messages"; Gemini's "contents", the
    Responses API's "input"). The list is written last in the body."""

    def __init__(self, key: str = "messages") -> None:
        self._key = key
        self._opening_text = f'"{key}": ['.encode()
        self._messages: PrefixMemo[bytes] = PrefixMemo(_encode_message)
        self._rest: dict[str, Any] | None = None
        self._body = bytearray()  # the last body: head, then the messages' JSON, then _END
        self._opening = 0  # where the first message begins in it
        self._parts: list[bytes] = []  # the messages' JSON it holds
        self._ends: list[int] = []  # where each of those ends in it

    def encode(self, body: dict[str, Any]) -> bytes:
        messages = body.get(self._key)
        if not isinstance(messages, list):
            return utf8(_encode(body))
        parts = self._messages.values(messages)
        rest = {k: v for k, v in body.items() if k != self._key}
        # system prompt and tools are fresh copies each turn but rarely differ (tool schemas, like history
        # messages, are never changed in place): comparing is far cheaper than encoding them again
        if rest != self._rest:
            self._rest = rest
            head = utf8(_encode(rest))[:-1]  # without its closing brace
            self._body = bytearray(head + (b", " if rest else b"") + self._opening_text)
            self._opening = len(self._body)
            self._parts, self._ends = [], []
        kept = common_prefix(self._parts, parts)
        out, ends = self._body, self._ends
        del out[ends[kept - 1] if kept else self._opening :], ends[kept:]
        for index in range(kept, len(parts)):
            if index:
                out += _SEPARATOR
            out += parts[index]
            ends.append(len(out))
        self._parts = list(parts)
        out += _END
        return bytes(out)
