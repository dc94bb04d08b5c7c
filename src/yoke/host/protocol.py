"""The bridge's framing: one JSON object per line, `{"id", "type", "payload"}` (docs/wire.md)."""

from __future__ import annotations

import json
from typing import Any

from yoke.jsonsafe import loads, utf8

MAX_MESSAGE = 10 * 1024 * 1024  # bytes per message, either way
TYPES = ("request", "response", "notification", "error", "stream")
REQUEST_TIMEOUT = 30.0  # seconds a client waits for any response


class ProtocolError(Exception):
    """A message the host cannot act on; `code` is the error's machine name."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def encode(kind: str, ident: str | None, payload: Any) -> bytes:
    # UTF-8, not \u escapes: a prompt in another script is not sent at three times its size
    message = {"id": ident, "type": kind, "payload": payload}
    return utf8(json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n")


def error(ident: str | None, code: str, message: str) -> bytes:
    return encode("error", ident, {"code": code, "message": message})


def decode_request(line: bytes) -> tuple[str, str, dict[str, Any]]:
    """(id, method, params) of a request line, or ProtocolError."""
    try:
        message = loads(line)  # a nesting limit: deep JSON is a parse error, not a RecursionError
    except ValueError:
        raise ProtocolError("parse_error", "the line is not JSON") from None
    if not isinstance(message, dict):
        raise ProtocolError("invalid_request", "a message is a JSON object")
    ident = message.get("id")
    if not isinstance(ident, str) or not ident:
        raise ProtocolError("invalid_request", "a request needs a string id")
    if message.get("type") != "request":
        raise ProtocolError("invalid_request", "clients send messages of type request")
    payload = message.get("payload")
    if not isinstance(payload, dict) or not isinstance(payload.get("method"), str):
        raise ProtocolError("invalid_request", "a request's payload needs a method")
    params = payload.get("params") or {}
    if not isinstance(params, dict):
        raise ProtocolError("invalid_request", "params is a JSON object")
    return ident, payload["method"], params
