"""Rendering scripted turns in the Anthropic Messages API wire format (JSON and SSE)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from yoke.testing.script import Fault, Turn
from yoke.testing.wire import new_id, pieces, resolve_usage, sse, tool_arguments

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
PROMPT_TOO_LONG = "prompt is too long: 250000 tokens > 200000 maximum"
MODELS = ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"]


def message(turn: Turn, request: Mapping[str, Any]) -> dict[str, Any]:
    """The non-streaming response body."""
    return {
        "id": new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "scripted-model"),
        "content": [_final_block(block) for block in turn.content],
        "stop_reason": turn.stop_reason,
        "stop_sequence": turn.stop_sequence,
        "usage": resolve_usage(turn, request),
    }


def stream_frames(turn: Turn, request: Mapping[str, Any]) -> list[bytes]:
    """Every SSE frame of a streamed response, in order, as the real API sends them."""
    usage = resolve_usage(turn, request)
    start = {
        "id": new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "scripted-model"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": 1},
    }
    frames = [_event("message_start", message=start)]
    for index, block in enumerate(turn.content):
        frames.extend(_block_frames(index, block))
    # The API sends its first ping right after the first block opens (or after message_start if none).
    frames.insert(2 if turn.content else 1, _event("ping"))
    frames.append(
        _event(
            "message_delta",
            delta={"stop_reason": turn.stop_reason, "stop_sequence": turn.stop_sequence},
            usage={"output_tokens": usage["output_tokens"]},
        )
    )
    frames.append(_event("message_stop"))
    return frames


def error_status_body(status: int, fault: Fault, request: Mapping[str, Any] | None) -> dict[str, Any]:
    """The JSON body for a scripted error status."""
    model = (request or {}).get("model", "scripted-model")
    if fault.prompt_too_long:
        kind, text = "invalid_request_error", PROMPT_TOO_LONG
    else:
        kind = ERROR_TYPES.get(status, "api_error")
        text = _default_message(kind, model)
    return error_body(fault.error_type or kind, fault.message or text)


def error_body(kind: str, text: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": text}, "request_id": new_id("req_")}


def stream_error_frame() -> bytes:
    return sse(error_body("overloaded_error", "Overloaded"), event="error")


def models_body(models: list[str] | None = None) -> dict[str, Any]:
    models = MODELS if models is None else models
    data = [
        {"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"} for m in models
    ]
    first, last = (models[0], models[-1]) if models else (None, None)
    return {"data": data, "has_more": False, "first_id": first, "last_id": last}


def _event(kind: str, **fields: Any) -> bytes:
    return sse({"type": kind, **fields}, event=kind)


def _block_frames(index: int, block: dict[str, Any]) -> list[bytes]:
    kind = block["type"]
    opening: dict[str, Any]
    if kind == "text":
        opening = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
    elif kind == "thinking":
        opening = {"type": "thinking", "thinking": ""}
        deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces(block["thinking"])]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind == "tool_use":
        opening = {"type": "tool_use", "id": block.get("id") or new_id("toolu_"), "name": block["name"]}
        opening["input"] = {}
        # The API opens with an empty fragment before the real ones.
        fragments = ["", *pieces(tool_arguments(block))]
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in fragments]
    else:  # redacted_thinking arrives whole in its start event
        opening, deltas = dict(block), []
    frames = [_event("content_block_start", index=index, content_block=opening)]
    frames += [_event("content_block_delta", index=index, delta=d) for d in deltas]
    frames.append(_event("content_block_stop", index=index))
    return frames


def _final_block(block: dict[str, Any]) -> dict[str, Any]:
    if block["type"] != "tool_use":
        return dict(block)
    out = {"type": "tool_use", "id": block.get("id") or new_id("toolu_"), "name": block["name"]}
    if "raw_input" in block:
        # A complete JSON response cannot carry broken JSON; the nearest thing is the raw text as the input.
        try:
            # json-ours: test harness (the scripted server, side-by-side runs)
            out["input"] = json.loads(block["raw_input"])
        except json.JSONDecodeError:
            out["input"] = block["raw_input"]
    else:
        out["input"] = block["input"]
    return out


def _default_message(kind: str, model: str) -> str:
    return {
        "invalid_request_error": "Invalid request (scripted fault)",
        "authentication_error": "invalid x-api-key",
        "permission_error": "Your API key does not have permission to use the specified resource.",
        "not_found_error": f"model: {model}",
        "request_too_large": "Request exceeds the maximum allowed number of bytes.",
        "rate_limit_error": "Number of requests has exceeded your rate limit (scripted fault)",
        "overloaded_error": "Overloaded",
    }.get(kind, "Internal server error")
