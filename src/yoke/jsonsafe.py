"""Parsing JSON Yoke did not write (transcripts, settings, stdin frames, hook output, MCP config) without
letting a hostile nesting depth crash the reader.

The standard parser recurses once per level; 100,000 nested brackets raise `RecursionError`, which no
caller expects and which takes the whole command down. Here anything nested deeper than `MAX_DEPTH` is a
`JSONTooDeep`, a `ValueError` like any other malformed JSON, so the caller's existing "not valid JSON"
path (skip the line, report the file) handles it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from itertools import accumulate
from typing import Any

from yoke.regex import lazy_compile

MAX_DEPTH = 500  # far beyond any real document, and well inside the interpreter's recursion limit


class JSONTooDeep(json.JSONDecodeError):
    """A `JSONDecodeError` (so every "invalid JSON at line L column C" report names it too)."""

    def __init__(self, text: str | bytes, limit: int = MAX_DEPTH):
        doc = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
        super().__init__(f"nested deeper than {limit} levels", doc, _too_deep_at(doc, limit))


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads`, raising `JSONTooDeep` (a ValueError) for a document nested deeper than `max_depth`."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONTooDeep(text, max_depth) from None
    if _brackets(text) > max_depth and depth_of(text) > max_depth:
        raise JSONTooDeep(text, max_depth)
    return value


def _brackets(text: str | bytes) -> int:
    """Cheap: a document with fewer brackets than the limit cannot be nested deeper than it."""
    if isinstance(text, str):
        return text.count("[") + text.count("{")
    return text.count(b"[") + text.count(b"{")


_STRING = lazy_compile(r'"(?:[^"\\]|\\.)*"', re.S)
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def depth_of(text: str | bytes) -> int:
    """The deepest nesting of brackets outside strings (of text that parsed as JSON)."""
    if not isinstance(text, str):
        text = bytes(text).decode("utf-8", "replace")
    bare = _STRING.sub("", text)
    steps = [_STEP[c] for c in bare.encode("ascii", "ignore") if c in _STEP]
    return max(accumulate(steps), default=0)


def _too_deep_at(text: str, limit: int) -> int:
    """Where the nesting first passes `limit` (0 if it does not): for the error's line and column."""
    depth = 0
    in_string = escaped = False
    for pos, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return pos
        elif char in "]}":
            depth -= 1
    return 0


def utf8(text: str) -> bytes:
    """JSON text as UTF-8 bytes, even when it holds undecodable bytes kept as surrogate escapes (a prompt
    or a directory name that is not UTF-8): each becomes U+FFFD, since JSON must be valid Unicode."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "replace")  # a lone surrogate that is not an escaped byte
    return raw.decode("utf-8", "replace").encode("utf-8")


def dict_at(document: Mapping[str, Any], key: str) -> dict[str, Any]:
    """`document[key]` when it is an object, else an empty one: a setting of the wrong type reads as unset."""
    value = document.get(key)
    return value if isinstance(value, dict) else {}
