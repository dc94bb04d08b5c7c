"""Assembling an Anthropic Messages answer (streamed events or one JSON body) into provider events.

Shared by the direct HTTP provider and the Bedrock/Vertex one (whose SDK yields the same event types).
"""

from __future__ import annotations

import json
from typing import Any

from yoke.jsonsafe import loads as safe_json
from yoke.messages import Block
from yoke.providers.base import (
    BlockStart,
    BlockStop,
    MessageDelta,
    MessageStart,
    MessageStop,
    ProviderError,
    ProviderEvent,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    Usage,
)
from yoke.providers.http import MidStreamError, one_line, prompt_too_long_message
from yoke.providers.sse import SSEEvent
from yoke.providers.transport import StreamInterrupted

# Error types of an `error` event, with the kind we report and whether asking again may help.
STREAM_ERROR_TYPES: dict[str, tuple[str, bool]] = {
    "overloaded_error": ("overloaded", True),
    "rate_limit_error": ("rate_limit", True),
    "api_error": ("server", True),
    "timeout_error": ("server", True),
    "invalid_request_error": ("invalid_request", False),
    "authentication_error": ("authentication", False),
    "permission_error": ("permission", False),
    "not_found_error": ("not_found", False),
    "request_too_large": ("prompt_too_long", False),
}


# Content block types the Messages API sends and takes back in a later request's history. A block of
# another type (a newer API's, a proxy's invention) is dropped as it arrives: kept, it would be stored in
# the transcript and sent back on every later turn, where the API refuses it.
KNOWN_BLOCK_TYPES = frozenset(
    {
        "text",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "container_upload",
    }
)


class AnthropicAssembler:
    def __init__(self, model: str = "") -> None:
        self.done = False
        self._id = ""
        self._model = model
        self._usage = Usage()
        self._stop_reason: str | None = None
        self._blocks: dict[int, Block] = {}
        self._open: set[int] = set()
        self._json_parts: dict[int, list[str]] = {}
        self._input_errors: dict[str, str] = {}

    # ---- streaming ----------------------------------------------------------------------------------

    def feed(self, event: SSEEvent) -> list[ProviderEvent]:
        if event.event == "ping":
            return []
        try:
            data = safe_json(event.data)
        except ValueError as exc:
            raise StreamInterrupted(f"unreadable event data: {one_line(event.data, 80)!r}") from exc
        if not isinstance(data, dict):
            return []
        return self.handle(str(data.get("type") or event.event), data)

    def handle(self, kind: str, data: dict[str, Any]) -> list[ProviderEvent]:
        """Take one event already decoded to a dict (the SDK path calls this directly)."""
        handler = _HANDLERS.get(kind)
        return handler(self, data) if handler else []

    def end_of_stream(self) -> list[ProviderEvent]:
        raise StreamInterrupted("connection closed before message_stop")

    def _message_start(self, data: dict[str, Any]) -> list[ProviderEvent]:
        message = data.get("message") or {}
        self._id = str(message.get("id") or self._id)
        self._model = str(message.get("model") or self._model)
        self._usage = Usage.from_dict(message.get("usage"))
        return [MessageStart(self._id, self._model, self._usage.replace())]

    def _block_start(self, data: dict[str, Any]) -> list[ProviderEvent]:
        index = int(data.get("index", len(self._blocks)))
        block = dict(data.get("content_block") or {"type": "text"})
        kind = block.get("type")
        if kind not in KNOWN_BLOCK_TYPES:
            return []  # its deltas and stop find no block and are dropped too
        if kind == "text":
            block.setdefault("text", "")
        elif kind == "thinking":
            block.setdefault("thinking", "")
            block.setdefault("signature", "")
        elif kind in ("tool_use", "server_tool_use"):
            block["input"] = dict(block.get("input") or {})
            self._json_parts[index] = []
        self._blocks[index] = block
        self._open.add(index)
        return [BlockStart(index, _snapshot(block))]

    def _block_delta(self, data: dict[str, Any]) -> list[ProviderEvent]:
        index = int(data.get("index", -1))
        block = self._blocks.get(index)
        delta = data.get("delta") or {}
        if block is None:
            return []
        kind = delta.get("type")
        if kind == "text_delta":
            text = str(delta.get("text", ""))
            block["text"] = block.get("text", "") + text
            return [TextDelta(index, text)]
        if kind == "thinking_delta":
            text = str(delta.get("thinking", ""))
            block["thinking"] = block.get("thinking", "") + text
            return [ThinkingDelta(index, text)]
        if kind == "signature_delta":
            signature = str(delta.get("signature", ""))
            block["signature"] = block.get("signature", "") + signature
            return [SignatureDelta(index, signature)]
        if kind == "input_json_delta":
            partial = str(delta.get("partial_json", ""))
            self._json_parts.setdefault(index, []).append(partial)
            return [ToolInputDelta(index, partial)]
        if kind == "citations_delta" and delta.get("citation") is not None:
            block.setdefault("citations", []).append(delta["citation"])
        return []

    def _block_stop(self, data: dict[str, Any]) -> list[ProviderEvent]:
        index = int(data.get("index", -1))
        if index not in self._open:
            return []
        return [self._close_block(index)]

    def _close_block(self, index: int) -> BlockStop:
        self._open.discard(index)
        block = self._blocks[index]
        error = None
        parts = self._json_parts.pop(index, None)
        if parts:
            block["input"], error = parse_tool_input("".join(parts))
            if error and block.get("id"):
                self._input_errors[str(block["id"])] = error
        return BlockStop(index, block, error)

    def _message_delta(self, data: dict[str, Any]) -> list[ProviderEvent]:
        delta = data.get("delta") or {}
        if "stop_reason" in delta:
            self._stop_reason = delta.get("stop_reason")
        _merge_final_usage(self._usage, data.get("usage") or {})
        return [MessageDelta(self._stop_reason, self._usage.replace())]

    def _message_stop(self, data: dict[str, Any]) -> list[ProviderEvent]:
        events: list[ProviderEvent] = [self._close_block(i) for i in sorted(self._open)]
        self.done = True
        content = [b for i, b in sorted(self._blocks.items()) if not _is_empty_text(b)]
        message = {"role": "assistant", "content": content}
        events.append(
            MessageStop(
                self._id,
                self._model,
                message,  # type: ignore[arg-type]
                self._stop_reason,
                self._usage.replace(),
                dict(self._input_errors),
            )
        )
        return events

    def _error(self, data: dict[str, Any]) -> list[ProviderEvent]:
        error = data.get("error") or {}
        error_type = str(error.get("type") or "api_error")
        message = one_line(str(error.get("message") or error_type))
        kind, retryable = STREAM_ERROR_TYPES.get(error_type, ("server", True))
        text = f"API error mid-stream ({error_type}): {message}"
        if error_type == "invalid_request_error" and "prompt is too long" in message.lower():
            kind, text = "prompt_too_long", prompt_too_long_message(message)
        raise MidStreamError(ProviderError(kind, text), retryable)  # type: ignore[arg-type]

    # ---- one JSON body ------------------------------------------------------------------------------

    def from_body(self, body: Any) -> list[ProviderEvent]:
        """Replay a non-streaming answer through the streaming path, so both give identical events."""
        if body.get("type") == "error":
            try:
                self._error(body)
            except MidStreamError as exc:
                raise exc.error from None
        usage = dict(body.get("usage") or {})
        start = {k: v for k, v in body.items() if k not in ("content", "stop_reason", "stop_sequence")}
        start["content"] = []
        start["usage"] = {**usage, "output_tokens": 0}
        events = self.handle("message_start", {"type": "message_start", "message": start})
        for index, block in enumerate(body.get("content") or []):
            for kind, data in synthesize_block_events(index, block):
                events += self.handle(kind, data)
        delta = {"stop_reason": body.get("stop_reason"), "stop_sequence": body.get("stop_sequence")}
        events += self.handle("message_delta", {"delta": delta, "usage": usage})
        events += self.handle("message_stop", {})
        return events


_HANDLERS = {
    "message_start": AnthropicAssembler._message_start,
    "content_block_start": AnthropicAssembler._block_start,
    "content_block_delta": AnthropicAssembler._block_delta,
    "content_block_stop": AnthropicAssembler._block_stop,
    "message_delta": AnthropicAssembler._message_delta,
    "message_stop": AnthropicAssembler._message_stop,
    "error": AnthropicAssembler._error,
}


def synthesize_block_events(index: int, block: Block) -> list[tuple[str, dict[str, Any]]]:
    """The start / delta / stop events a streaming answer would have sent for one finished block."""
    kind = block.get("type")
    deltas: list[dict[str, Any]] = []
    shell = dict(block)
    if kind == "text":
        shell["text"] = ""
        deltas.append({"type": "text_delta", "text": block.get("text", "")})
    elif kind == "thinking":
        shell["thinking"], shell["signature"] = "", ""
        deltas.append({"type": "thinking_delta", "thinking": block.get("thinking", "")})
        if block.get("signature"):
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind in ("tool_use", "server_tool_use"):
        shell["input"] = {}
        deltas.append({"type": "input_json_delta", "partial_json": json.dumps(block.get("input") or {})})
    events = [("content_block_start", {"index": index, "content_block": shell})]
    events += [("content_block_delta", {"index": index, "delta": d}) for d in deltas]
    events.append(("content_block_stop", {"index": index}))
    return events


def parse_tool_input(text: str) -> tuple[dict[str, Any], str | None]:
    """A tool call's accumulated JSON as a dict, or ({}, reason) when it is not a JSON object."""
    if not text.strip():
        return {}, None
    try:
        value = safe_json(text)
    except ValueError as exc:
        return {}, f"tool input is not valid JSON ({exc})"
    if not isinstance(value, dict):
        return {}, f"tool input must be a JSON object, not {type(value).__name__}"
    return value, None


def _merge_final_usage(usage: Usage, update: dict[str, Any]) -> None:
    """message_delta carries the final output count; newer servers repeat cumulative input counts too."""
    if update.get("output_tokens") is not None:
        usage.output_tokens = int(update["output_tokens"])
    for name in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
        value = update.get(name)
        if value:
            setattr(usage, name, int(value))


def _snapshot(block: Block) -> Block:
    copy = dict(block)
    if isinstance(copy.get("input"), dict):
        copy["input"] = dict(copy["input"])
    return copy


def _is_empty_text(block: Block) -> bool:
    return block.get("type") == "text" and not block.get("text")
