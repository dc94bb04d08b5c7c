"""Rendering scripted turns in the OpenAI Responses API wire format (a response object, or `response.*`
server-sent events).

Items come in block order: thinking as a `reasoning` item (summary text, and encrypted content when the
request asked for `reasoning.encrypted_content`), text as a `message` item, tool calls as `function_call`
items. A turn stopped by `max_tokens` ends `response.incomplete`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from yoke.testing.openai_wire import ERRORS, PROMPT_TOO_LONG
from yoke.testing.openai_wire import error_body as openai_error_body
from yoke.testing.script import Fault, Turn
from yoke.testing.wire import new_id, pieces, resolve_usage, sse, tool_arguments

INCOMPLETE = {"max_tokens": "max_output_tokens", "refusal": "content_filter"}
MODELS = ["gpt-5.1", "gpt-5.1-codex", "o4-mini"]


def response(
    turn: Turn, request: Mapping[str, Any], signatures: dict[str, str] | None = None
) -> dict[str, Any]:
    """The non-streaming response object."""
    body = _shell(turn, request)
    body["output"] = _items(turn, request, signatures)
    body["usage"] = usage_body(turn, request)
    return body


def stream_frames(
    turn: Turn, request: Mapping[str, Any], signatures: dict[str, str] | None = None
) -> list[bytes]:
    counter = iter(range(1_000_000))
    shell = _shell(turn, request)
    items = _items(turn, request, signatures)

    def event(kind: str, **fields: Any) -> bytes:
        return sse({"type": kind, "sequence_number": next(counter), **fields}, event=kind)

    opening = {**shell, "status": "in_progress", "output": [], "usage": None, "incomplete_details": None}
    frames = [event("response.created", response=opening), event("response.in_progress", response=opening)]
    for index, item in enumerate(items):
        frames += _item_frames(index, item, event)
    final = {**shell, "output": items, "usage": usage_body(turn, request)}
    frames.append(event(f"response.{final['status']}", response=final))
    return frames


def usage_body(turn: Turn, request: Mapping[str, Any]) -> dict[str, Any]:
    u = resolve_usage(turn, request)
    total_in = u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
    return {
        "input_tokens": total_in,
        "input_tokens_details": {"cached_tokens": u["cache_read_input_tokens"]},
        "output_tokens": u["output_tokens"],
        "output_tokens_details": {"reasoning_tokens": u.get("thinking_tokens", 0)},
        "total_tokens": total_in + u["output_tokens"],
    }


def error_status_body(status: int, fault: Fault, request: Mapping[str, Any] | None) -> dict[str, Any]:
    model = (request or {}).get("model", "scripted-model")
    code: str | None
    if fault.prompt_too_long:
        kind, code, text = "invalid_request_error", "context_length_exceeded", PROMPT_TOO_LONG
    else:
        kind, code, text = ERRORS.get(status, ("server_error", None, "Scripted error"))
    return openai_error_body(fault.error_type or kind, fault.message or text.format(model=model), code)


def error_body(kind: str, text: str, code: str | None = None) -> dict[str, Any]:
    return openai_error_body(kind, text, code)


def stream_error_frame() -> bytes:
    data = {"type": "error", "code": "server_error", "message": "The server is overloaded.", "param": None}
    return sse(data, event="error")


def models_body(models: list[str] | None = None) -> dict[str, Any]:
    models = MODELS if models is None else models
    data = [{"id": m, "object": "model", "created": 1700000000, "owned_by": "yoke-testing"} for m in models]
    return {"object": "list", "data": data}


def _shell(turn: Turn, request: Mapping[str, Any]) -> dict[str, Any]:
    reason = INCOMPLETE.get(turn.stop_reason)
    return {
        "id": new_id("resp_"),
        "object": "response",
        "created_at": int(time.time()),
        "status": "incomplete" if reason else "completed",
        "incomplete_details": {"reason": reason} if reason else None,
        "model": request.get("model", "scripted-model"),
        "store": bool(request.get("store", True)),
    }


def _items(turn: Turn, request: Mapping[str, Any], signatures: dict[str, str] | None) -> list[dict[str, Any]]:
    wants_encrypted = "reasoning.encrypted_content" in (request.get("include") or [])
    items: list[dict[str, Any]] = []
    for block in turn.content:
        kind = block["type"]
        if kind == "thinking":
            item: dict[str, Any] = {"type": "reasoning", "id": new_id("rs_"), "summary": []}
            if block["thinking"]:
                item["summary"] = [{"type": "summary_text", "text": block["thinking"]}]
            if wants_encrypted:
                encrypted = block.get("signature") or new_id("enc_")
                if signatures is not None:
                    signatures[encrypted] = str(request.get("model", ""))
                item["encrypted_content"] = encrypted
            items.append(item)
        elif kind == "text":
            part = {"type": "output_text", "text": block["text"], "annotations": []}
            items.append(
                {
                    "type": "message",
                    "id": new_id("msg_"),
                    "status": "completed",
                    "role": "assistant",
                    "content": [part],
                }
            )
        elif kind == "tool_use":
            items.append(
                {
                    "type": "function_call",
                    "id": new_id("fc_"),
                    "call_id": block.get("id") or new_id("call_"),
                    "name": block["name"],
                    "arguments": tool_arguments(block),
                    "status": "completed",
                }
            )
    return items


def _item_frames(index: int, item: dict[str, Any], event: Any) -> list[bytes]:
    kind = item["type"]
    base = {"output_index": index, "item_id": item["id"]}
    if kind == "message":
        opening = {**item, "status": "in_progress", "content": []}
        text = item["content"][0]["text"]
        frames = [event("response.output_item.added", output_index=index, item=opening)]
        frames.append(
            event(
                "response.content_part.added",
                **base,
                content_index=0,
                part={"type": "output_text", "text": "", "annotations": []},
            )
        )
        frames += [
            event("response.output_text.delta", **base, content_index=0, delta=p) for p in pieces(text)
        ]
        frames.append(event("response.output_text.done", **base, content_index=0, text=text))
        frames.append(event("response.content_part.done", **base, content_index=0, part=item["content"][0]))
    elif kind == "reasoning":
        opening = {"type": "reasoning", "id": item["id"], "summary": []}
        frames = [event("response.output_item.added", output_index=index, item=opening)]
        for s_index, summary in enumerate(item["summary"]):
            frames.append(
                event(
                    "response.reasoning_summary_part.added",
                    **base,
                    summary_index=s_index,
                    part={"type": "summary_text", "text": ""},
                )
            )
            frames += [
                event("response.reasoning_summary_text.delta", **base, summary_index=s_index, delta=p)
                for p in pieces(summary["text"])
            ]
            frames.append(
                event(
                    "response.reasoning_summary_text.done",
                    **base,
                    summary_index=s_index,
                    text=summary["text"],
                )
            )
    else:
        opening = {**item, "arguments": "", "status": "in_progress"}
        frames = [event("response.output_item.added", output_index=index, item=opening)]
        frames += [
            event("response.function_call_arguments.delta", **base, delta=p)
            for p in pieces(item["arguments"])
        ]
        frames.append(event("response.function_call_arguments.done", **base, arguments=item["arguments"]))
    frames.append(event("response.output_item.done", output_index=index, item=item))
    return frames
