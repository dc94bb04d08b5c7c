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
from itertools import accumulate
from typing import Any

from yoke.regex import lazy_compile

MAX_DEPTH = 500  # far beyond any real document, and well inside the interpreter's recursion limit


class JSONTooDeep(ValueError):
    def __init__(self, limit: int = MAX_DEPTH):
        super().__init__(f"JSON nested deeper than {limit} levels")


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads`, raising `JSONTooDeep` (a ValueError) for a document nested deeper than `max_depth`."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONTooDeep(max_depth) from None
    if _brackets(text) > max_depth and depth_of(text) > max_depth:
        raise JSONTooDeep(max_depth)
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
