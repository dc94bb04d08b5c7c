"""Rendering scripted turns in the OpenAI Chat Completions wire format (JSON and `data:` chunks)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from yoke.testing.script import Fault, Turn
from yoke.testing.wire import new_id, pieces, resolve_usage, sse, tool_arguments

FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}
# status -> (type, code, message)
ERRORS: dict[int, tuple[str, str | None, str]] = {
    400: ("invalid_request_error", None, "Invalid request (scripted fault)"),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    403: (
        "permission_error",
        "unsupported_country_region_territory",
        "Country, region, or territory not supported.",
    ),
    404: (
        "invalid_request_error",
        "model_not_found",
        "The model `{model}` does not exist or you do not have access to it.",
    ),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests (scripted fault)"),
    500: ("server_error", None, "The server had an error while processing your request."),
    503: ("server_error", None, "The engine is currently overloaded, please try again later."),
    529: ("server_error", None, "The engine is currently overloaded, please try again later."),
}
PROMPT_TOO_LONG = (
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens. "
    "Please reduce the length of the messages."
)
MODELS = ["gpt-4o", "gpt-4o-mini", "deepseek-reasoner"]


def completion(turn: Turn, request: Mapping[str, Any]) -> dict[str, Any]:
    """The non-streaming `chat.completion` body."""
    text = "".join(b["text"] for b in turn.content if b["type"] == "text")
    reasoning = "".join(b["thinking"] for b in turn.content if b["type"] == "thinking")
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if reasoning:
        message["reasoning_content"] = reasoning
    calls = [_tool_call(b) for b in turn.tool_uses]
    if calls:
        message["tool_calls"] = calls
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason(turn)}
    return {**_envelope("chat.completion", request), "choices": [choice], "usage": usage_body(turn, request)}


def stream_frames(turn: Turn, request: Mapping[str, Any]) -> list[bytes]:
    """Every `data:` line of a streamed completion, ending with `data: [DONE]`."""
    include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
    envelope = _envelope("chat.completion.chunk", request)
    if include_usage:
        envelope["usage"] = None  # the API marks every ordinary chunk like this when usage is requested

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return sse({**envelope, "choices": [choice]})

    frames = [chunk({"role": "assistant", "content": ""})]
    for delta in _content_deltas(turn):
        frames.append(chunk(delta))
    frames.append(chunk({}, finish_reason(turn)))
    if include_usage:
        frames.append(sse({**envelope, "choices": [], "usage": usage_body(turn, request)}))
    frames.append(sse("[DONE]"))
    return frames


def finish_reason(turn: Turn) -> str:
    return FINISH_REASONS.get(turn.stop_reason, turn.stop_reason)


def usage_body(turn: Turn, request: Mapping[str, Any]) -> dict[str, Any]:
    """OpenAI counts cached tokens inside prompt_tokens; Anthropic-style script usage keeps them apart."""
    u = resolve_usage(turn, request)
    prompt = u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
    return {
        "prompt_tokens": prompt,
        "completion_tokens": u["output_tokens"],
        "total_tokens": prompt + u["output_tokens"],
        "prompt_tokens_details": {"cached_tokens": u["cache_read_input_tokens"]},
    }


def error_status_body(status: int, fault: Fault, request: Mapping[str, Any] | None) -> dict[str, Any]:
    model = (request or {}).get("model", "scripted-model")
    code: str | None
    if fault.prompt_too_long:
        kind, code, text = "invalid_request_error", "context_length_exceeded", PROMPT_TOO_LONG
    else:
        kind, code, text = ERRORS.get(status, ("server_error", None, "Scripted error"))
    return error_body(fault.error_type or kind, fault.message or text.format(model=model), code)


def error_body(kind: str, text: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": text, "type": kind, "param": None, "code": code}}


def stream_error_frame() -> bytes:
    return sse(error_body("server_error", "The engine is currently overloaded, please try again later."))


def models_body(models: list[str] | None = None) -> dict[str, Any]:
    models = MODELS if models is None else models
    data = [{"id": m, "object": "model", "created": 1700000000, "owned_by": "yoke-testing"} for m in models]
    return {"object": "list", "data": data}


def _envelope(kind: str, request: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": new_id("chatcmpl-"),
        "object": kind,
        "created": int(time.time()),
        "model": request.get("model", "scripted-model"),
        "system_fingerprint": "fp_yoke_testing",
    }


def _tool_call(block: dict[str, Any]) -> dict[str, Any]:
    function = {"name": block["name"], "arguments": tool_arguments(block)}
    return {"id": block.get("id") or new_id("call_"), "type": "function", "function": function}


def _content_deltas(turn: Turn) -> list[dict[str, Any]]:
    """Deltas in block order; tool-call argument fragments are interleaved across calls if the turn asks."""
    deltas: list[dict[str, Any]] = []
    pending_calls: list[list[dict[str, Any]]] = []
    tool_index = 0
    for block in turn.content:
        if block["type"] == "text":
            deltas += [{"content": p} for p in pieces(block["text"])]
        elif block["type"] == "thinking":
            deltas += [{"reasoning_content": p} for p in pieces(block["thinking"])]
        elif block["type"] == "tool_use":
            call_deltas = _tool_call_deltas(tool_index, block)
            tool_index += 1
            if turn.interleave_tool_calls:
                pending_calls.append(call_deltas)
            else:
                deltas += call_deltas
    deltas += _round_robin(pending_calls)
    return deltas


def _tool_call_deltas(index: int, block: dict[str, Any]) -> list[dict[str, Any]]:
    call = _tool_call(block)
    opening = {"index": index, "id": call["id"], "type": "function"}
    opening["function"] = {"name": call["function"]["name"], "arguments": ""}
    fragments = [
        {"index": index, "function": {"arguments": p}} for p in pieces(call["function"]["arguments"])
    ]
    return [{"tool_calls": [d]} for d in (opening, *fragments)]


def _round_robin(sequences: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for step in range(max((len(s) for s in sequences), default=0)):
        out += [s[step] for s in sequences if step < len(s)]
    return out
