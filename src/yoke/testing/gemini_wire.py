"""Rendering scripted turns in the Gemini API wire format (`generateContent` JSON and
`streamGenerateContent?alt=sse` chunks).

Like the real API: text and thought parts arrive over several chunks, a function call arrives whole (no id;
the first call of a turn carries a `thoughtSignature`, as Gemini 3 does), the last chunk has the
`finishReason` and `usageMetadata`, and the stream simply ends (no terminator event).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from yoke.testing.script import Fault, Turn
from yoke.testing.wire import new_id, pieces, resolve_usage

FINISH_REASONS = {
    "end_turn": "STOP",
    "tool_use": "STOP",
    "stop_sequence": "STOP",
    "pause_turn": "STOP",
    "max_tokens": "MAX_TOKENS",
    "refusal": "SAFETY",
}
# status -> (Google status, message)
ERRORS = {
    400: ("INVALID_ARGUMENT", "Request contains an invalid argument."),
    401: ("UNAUTHENTICATED", "API key not valid. Please pass a valid API key."),
    403: ("PERMISSION_DENIED", "The caller does not have permission"),
    404: ("NOT_FOUND", "models/{model} is not found for API version v1beta, or is not supported."),
    429: ("RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
    500: ("INTERNAL", "An internal error has occurred. Please retry or report."),
    503: ("UNAVAILABLE", "The model is overloaded. Please try again later."),
    529: ("UNAVAILABLE", "The model is overloaded. Please try again later."),
}
PROMPT_TOO_LONG = "The input token count (1250000) exceeds the maximum number of tokens allowed (1048576)."
MODELS = ["gemini-2.5-pro", "gemini-2.5-flash", "gemini-3-pro-preview"]


def response(
    turn: Turn, request: Mapping[str, Any], signatures: dict[str, str] | None = None
) -> dict[str, Any]:
    """The non-streaming `GenerateContentResponse`."""
    model = str(request.get("model", "scripted-model"))
    parts, finish = _parts(turn, model, signatures)
    body = _envelope(model)
    if turn.block_reason:
        return {
            **body,
            "promptFeedback": {"blockReason": turn.block_reason},
            "usageMetadata": usage_body(turn, request),
        }
    candidate = {"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}
    return {**body, "candidates": [candidate], "usageMetadata": usage_body(turn, request)}


def stream_frames(
    turn: Turn, request: Mapping[str, Any], signatures: dict[str, str] | None = None
) -> list[bytes]:
    model = str(request.get("model", "scripted-model"))
    envelope = _envelope(model)
    if turn.block_reason:
        feedback = {"blockReason": turn.block_reason}
        return [_frame({**envelope, "promptFeedback": feedback, "usageMetadata": usage_body(turn, request)})]
    parts, finish = _parts(turn, model, signatures)
    frames = []
    for part in _streamed_parts(parts):
        candidate = {"content": {"role": "model", "parts": [part]}, "index": 0}
        frames.append(_frame({**envelope, "candidates": [candidate]}))
    last = {"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": finish, "index": 0}
    frames.append(_frame({**envelope, "candidates": [last], "usageMetadata": usage_body(turn, request)}))
    return frames


def usage_body(turn: Turn, request: Mapping[str, Any]) -> dict[str, int]:
    """Gemini counts cached tokens inside promptTokenCount and thinking apart from the candidates."""
    u = resolve_usage(turn, request)
    prompt = u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
    thoughts = u.get("thinking_tokens", 0)
    body = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": u["output_tokens"] - thoughts,
        "totalTokenCount": prompt + u["output_tokens"],
    }
    if u["cache_read_input_tokens"]:
        body["cachedContentTokenCount"] = u["cache_read_input_tokens"]
    if thoughts:
        body["thoughtsTokenCount"] = thoughts
    return body


def error_status_body(status: int, fault: Fault, request: Mapping[str, Any] | None) -> dict[str, Any]:
    model = (request or {}).get("model", "scripted-model")
    if fault.prompt_too_long:
        code, text = "INVALID_ARGUMENT", PROMPT_TOO_LONG
    else:
        code, text = ERRORS.get(status, ("INTERNAL", "Scripted error"))
    return error_body(status, fault.error_type or code, fault.message or text.format(model=model))


def error_body(status: int, code: str, text: str) -> dict[str, Any]:
    return {"error": {"code": status, "message": text, "status": code}}


def stream_error_frame() -> bytes:
    return _frame(error_body(503, "UNAVAILABLE", "The model is overloaded. Please try again later."))


def models_body(models: list[str] | None = None) -> dict[str, Any]:
    models = MODELS if models is None else models
    return {"models": [{"name": f"models/{m}", "displayName": m} for m in models]}


def _envelope(model: str) -> dict[str, Any]:
    return {"modelVersion": model, "responseId": new_id("")}


def _frame(data: dict[str, Any]) -> bytes:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"data: {payload}\r\n\r\n".encode()


def _parts(turn: Turn, model: str, signatures: dict[str, str] | None) -> tuple[list[dict[str, Any]], str]:
    """The turn's parts (whole) and its finishReason. A tool call whose `raw_input` is not a JSON object
    cannot be expressed (Gemini sends args as an object): the answer ends MALFORMED_FUNCTION_CALL instead."""
    parts: list[dict[str, Any]] = []
    first_call = True
    for block in turn.content:
        kind = block["type"]
        if kind == "text":
            parts.append({"text": block["text"]})
        elif kind == "thinking":
            part: dict[str, Any] = {"text": block["thinking"], "thought": True}
            if block.get("signature"):
                part["thoughtSignature"] = _issue(block["signature"], model, signatures)
            parts.append(part)
        elif kind == "tool_use":
            args = block.get("input")
            if "raw_input" in block:
                try:
                    # json-ours: test harness (the scripted server, side-by-side runs)
                    args = json.loads(block["raw_input"])
                except json.JSONDecodeError:
                    args = None
                if not isinstance(args, dict):
                    return [p for p in parts if "functionCall" not in p], "MALFORMED_FUNCTION_CALL"
            part = {"functionCall": {"name": block["name"], "args": args or {}}}
            if first_call:
                part["thoughtSignature"] = _issue(
                    block.get("signature") or new_id("gsig_"), model, signatures
                )
            first_call = False
            parts.append(part)
    return parts, FINISH_REASONS.get(turn.stop_reason, "STOP")


def _issue(signature: str, model: str, signatures: dict[str, str] | None) -> str:
    if signatures is not None:
        signatures[signature] = model
    return signature


def _streamed_parts(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Text and thought parts split into pieces (the signature rides on the last piece)."""
    out: list[dict[str, Any]] = []
    for part in parts:
        if "functionCall" in part or not part.get("text"):
            out.append(part)
            continue
        chunks = pieces(part["text"])
        for i, chunk in enumerate(chunks):
            piece = {k: v for k, v in part.items() if k != "thoughtSignature" or i == len(chunks) - 1}
            piece["text"] = chunk
            out.append(piece)
    return out
