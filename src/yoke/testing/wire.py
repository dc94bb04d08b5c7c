"""Helpers both wire formats share: ids, chunking, token estimates, SSE framing."""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Mapping
from typing import Any

from yoke.testing.body import RequestBody
from yoke.testing.script import Turn

# Chunks stay small so even short scripted strings arrive in several deltas and clients must reassemble.
MAX_PIECE = 24


def new_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


def pieces(text: str) -> list[str]:
    """Split text into at least three pieces (when it is that long), each at most MAX_PIECE characters."""
    if not text:
        return []
    size = max(1, min(MAX_PIECE, math.ceil(len(text) / 3)))
    return [text[i : i + size] for i in range(0, len(text), size)]


def tool_arguments(block: dict[str, Any]) -> str:
    """The tool input as JSON text; `raw_input` is sent verbatim so malformed JSON reaches the client."""
    if "raw_input" in block:
        return block["raw_input"]
    return json.dumps(block["input"], ensure_ascii=False)


def resolve_usage(turn: Turn, request: Mapping[str, Any] | None) -> dict[str, int]:
    """The turn's usage with plausible defaults: input grows with the request, output with the answer."""
    usage = {
        "input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 0,
    }
    usage.update(turn.usage)
    # Estimated only when the script does not say: sizing a long session's request costs as much as parsing it.
    if "input_tokens" not in turn.usage:
        if isinstance(request, RequestBody):
            request_chars = request.chars()
        else:
            request_chars = len(json.dumps(request, ensure_ascii=False)) if request else 0
        usage["input_tokens"] = max(1, request_chars // 4)
    if "output_tokens" not in turn.usage:
        answer_chars = sum(len(json.dumps(block, ensure_ascii=False)) for block in turn.content)
        usage["output_tokens"] = max(1, answer_chars // 4)
    return usage


def sse(data: dict[str, Any] | str, event: str | None = None) -> bytes:
    """One server-sent event frame."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()
