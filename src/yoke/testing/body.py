"""A model request's JSON body as the scripted server reads it: parsed in full only when something needs it.

Answering a request needs a handful of its top-level fields (model, stream and a few options), while a long
session's request carries its whole history: parsing all of it took the server more CPU than the client
spent on the turn, and so hid the client's own cost in every long-session figure. With msgspec installed (the
`dev` extra) those fields are read by a decoder that checks the whole text is JSON but builds nothing else;
without it the body is parsed in full at once, as before. Everything else (request validation, a callable
turn, `requests`) reads the full body, parsed on first use.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

# The top-level fields the wires answer from; reading any other key parses the whole body.
PEEKED = ("model", "stream", "store", "include", "stream_options")

_peek_decoder: Any = None  # msgspec's decoder for PEEKED, made on first use; False: msgspec not installed


def _peeker() -> Any:
    global _peek_decoder
    if _peek_decoder is None:
        try:
            import msgspec
        except ImportError:
            _peek_decoder = False
        else:
            fields = [(name, Any, msgspec.UNSET) for name in PEEKED]
            _peek_decoder = msgspec.json.Decoder(msgspec.defstruct("Peeked", fields))
    return _peek_decoder


def parse_body(raw: bytes) -> RequestBody | None:
    """The body if it is a JSON object, else None."""
    if not raw:
        return None
    peeker = _peeker()
    if peeker:
        import msgspec

        try:
            peeked = peeker.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        fields = {n: v for n in PEEKED if (v := getattr(peeked, n)) is not msgspec.UNSET}
        return RequestBody(raw, fields)
    try:
        # json-ours: test harness (the scripted server, side-by-side runs)
        full = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return RequestBody(raw, None, full) if isinstance(full, dict) else None


class RequestBody(Mapping[str, Any]):
    """A read-only view of a request's JSON object; `full()` is the object itself."""

    __slots__ = ("raw", "_fields", "_full")

    def __init__(self, raw: bytes, fields: dict[str, Any] | None, full: dict[str, Any] | None = None) -> None:
        self.raw = raw
        self._fields = fields
        self._full = full

    def full(self) -> dict[str, Any]:
        if self._full is None:
            # json-ours: test harness (the scripted server, side-by-side runs)
            self._full = json.loads(self.raw)
        return self._full

    def chars(self) -> int:
        """The length of the body's JSON text."""
        return len(self.raw.decode("utf-8", errors="replace"))

    def __getitem__(self, key: str) -> Any:  # `get` and `in` come from Mapping, through this
        if self._full is None and self._fields is not None and key in PEEKED:
            return self._fields[key]
        return self.full()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.full())

    def __len__(self) -> int:
        return len(self.full())


def as_dict(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body as a plain dict (for validation and a test's callable turn): a `RequestBody` parsed in full."""
    return body.full() if isinstance(body, RequestBody) else dict(body)
