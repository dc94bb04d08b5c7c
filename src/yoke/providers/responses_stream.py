"""Assembling an OpenAI Responses API answer (streamed `response.*` events or one response object) into the
Anthropic-shaped provider events.

Output items map to blocks in order: a `reasoning` item to a thinking block (its summary text streamed as
thinking, its encrypted content kept as the tagged signature), a `message` item to a text block, a
`function_call` item to a tool_use block whose id is the item's `call_id`. The answer is complete at
`response.completed` (or `response.incomplete`, which says why it stopped short).
"""

from __future__ import annotations

import json
from typing import Any

from yoke.ids import random_hex
from yoke.jsonsafe import loads as safe_json
from yoke.messages import Block, Message
from yoke.providers.anthropic_stream import parse_tool_input
from yoke.providers.base import (
    BlockStart,
    BlockStop,
    ErrorKind,
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
from yoke.providers.history import tag_signature
from yoke.providers.http import MidStreamError, one_line, prompt_too_long_message
from yoke.providers.sse import SSEEvent
from yoke.providers.transport import StreamInterrupted

ORIGIN = "openai-responses"
INCOMPLETE_REASONS = {"max_output_tokens": "max_tokens", "content_filter": "refusal"}


class ResponsesAssembler:
    def __init__(self, model: str = "") -> None:
        self.done = False
        self._id = ""
        self._model = model
        self._started = False
        self._blocks: list[Block] = []
        self._by_output: dict[int, int] = {}  # output_index -> block index
        self._open: set[int] = set()
        self._arguments: dict[int, list[str]] = {}
        self._input_errors: dict[str, str] = {}
        self._usage = Usage()

    def feed(self, event: SSEEvent) -> list[ProviderEvent]:
        text = event.data.strip()
        if not text or text == "[DONE]":
            return []
        try:
            data = safe_json(text)
        except ValueError as exc:
            raise StreamInterrupted(f"unreadable event data: {one_line(text, 80)!r}") from exc
        if not isinstance(data, dict):
            return []
        return self.handle(str(data.get("type") or event.event), data)

    def handle(self, kind: str, data: dict[str, Any]) -> list[ProviderEvent]:
        if kind in ("response.created", "response.in_progress"):
            return self._start(data.get("response") or {})
        if kind == "response.output_item.added":
            return self._item_added(
                int(data.get("output_index", len(self._by_output))), data.get("item") or {}
            )
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            return self._text(data, "text")
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return self._text(data, "thinking")
        if kind == "response.reasoning_summary_part.added" and int(data.get("summary_index") or 0) > 0:
            return self._text({**data, "delta": "\n\n"}, "thinking")
        if kind == "response.function_call_arguments.delta":
            return self._arguments_delta(data)
        if kind == "response.output_item.done":
            return self._item_done(int(data.get("output_index", -1)), data.get("item") or {})
        if kind in ("response.completed", "response.incomplete"):
            return self._finish(data.get("response") or {})
        if kind == "response.failed":
            raise _failure((data.get("response") or {}).get("error") or {})
        if kind == "error":
            raise _failure(data)
        return []

    def end_of_stream(self) -> list[ProviderEvent]:
        raise StreamInterrupted("connection closed before response.completed")

    def from_body(self, body: Any) -> list[ProviderEvent]:
        if body.get("error") and body.get("status") != "completed":
            raise _failure(body["error"]).error
        events = self._start(body)
        for index, item in enumerate(body.get("output") or []):
            events += self._item_added(index, {**item, "arguments": "", "summary": []})
            block_index = self._by_output.get(index)
            if block_index is not None:
                events += self._whole_item_deltas(index, item)
            events += self._item_done(index, item)
        return events + self._finish(body)

    # ---- items --------------------------------------------------------------------------------------

    def _start(self, response: dict[str, Any]) -> list[ProviderEvent]:
        if self._started:
            return []
        self._started = True
        self._id = str(response.get("id") or f"resp_{random_hex(24)}")
        self._model = str(response.get("model") or self._model)
        return [MessageStart(self._id, self._model, Usage())]

    def _item_added(self, output_index: int, item: dict[str, Any]) -> list[ProviderEvent]:
        events = self._start({}) if not self._started else []
        kind = item.get("type")
        if kind == "message":
            shell: Block = {"type": "text", "text": ""}
        elif kind == "reasoning":
            shell = {"type": "thinking", "thinking": "", "signature": ""}
        elif kind == "function_call":
            call_id = str(item.get("call_id") or item.get("id") or f"call_{random_hex(24)}")
            shell = {"type": "tool_use", "id": call_id, "name": str(item.get("name") or ""), "input": {}}
            self._arguments[output_index] = []
        else:
            return events  # web search calls and other hosted-tool items are not used by the loop
        index = len(self._blocks)
        self._blocks.append(shell)
        self._by_output[output_index] = index
        self._open.add(index)
        events.append(BlockStart(index, dict(shell)))
        return events

    def _text(self, data: dict[str, Any], kind: str) -> list[ProviderEvent]:
        index = self._by_output.get(int(data.get("output_index", -1)))
        delta = str(data.get("delta") or "")
        if index is None or not delta or self._blocks[index]["type"] != kind:
            return []
        self._blocks[index][kind] += delta
        return [ThinkingDelta(index, delta) if kind == "thinking" else TextDelta(index, delta)]

    def _arguments_delta(self, data: dict[str, Any]) -> list[ProviderEvent]:
        output_index = int(data.get("output_index", -1))
        index = self._by_output.get(output_index)
        delta = str(data.get("delta") or "")
        if index is None or not delta:
            return []
        self._arguments.setdefault(output_index, []).append(delta)
        return [ToolInputDelta(index, delta)]

    def _whole_item_deltas(self, output_index: int, item: dict[str, Any]) -> list[ProviderEvent]:
        """The deltas a stream would have sent for a finished item (the non-streaming path)."""
        events: list[ProviderEvent] = []
        base = {"output_index": output_index}
        if item.get("type") == "message":
            for part in item.get("content") or []:
                text = part.get("text") or part.get("refusal") or ""
                events += self._text({**base, "delta": text}, "text")
        elif item.get("type") == "reasoning":
            summary = "\n\n".join(s.get("text", "") for s in item.get("summary") or [])
            events += self._text({**base, "delta": summary}, "thinking")
        elif item.get("type") == "function_call":
            events += self._arguments_delta({**base, "delta": item.get("arguments") or ""})
        return events

    def _item_done(self, output_index: int, item: dict[str, Any]) -> list[ProviderEvent]:
        index = self._by_output.get(output_index)
        if index is None or index not in self._open:
            return []
        self._open.discard(index)
        block = self._blocks[index]
        events: list[ProviderEvent] = []
        error = None
        if block["type"] == "thinking":
            kept = {k: item[k] for k in ("encrypted_content",) if item.get(k)}
            if kept:
                block["signature"] = tag_signature(ORIGIN, json.dumps(kept, separators=(",", ":")))
                events.append(SignatureDelta(index, block["signature"]))
        elif block["type"] == "tool_use":
            streamed = "".join(self._arguments.pop(output_index, []))
            block["input"], error = parse_tool_input(str(item.get("arguments") or streamed))
            block["name"] = str(item.get("name") or block["name"])
            if error:
                self._input_errors[block["id"]] = error
        events.append(BlockStop(index, block, error))
        return events

    def _finish(self, response: dict[str, Any]) -> list[ProviderEvent]:
        if self.done:
            return []
        events: list[ProviderEvent] = [self._item_done_fallback(i) for i in sorted(self._open)]
        if response.get("usage"):
            self._usage = usage_from_responses(response["usage"])
        has_calls = any(b["type"] == "tool_use" for b in self._blocks)
        stop_reason = "tool_use" if has_calls else "end_turn"
        if response.get("status") == "incomplete":
            reason = str((response.get("incomplete_details") or {}).get("reason") or "")
            stop_reason = INCOMPLETE_REASONS.get(reason, stop_reason)
        events.append(MessageDelta(stop_reason, self._usage.replace()))
        content = [b for b in self._blocks if not (b["type"] == "text" and not b["text"])]
        message: Message = {"role": "assistant", "content": content}
        events.append(
            MessageStop(
                self._id, self._model, message, stop_reason, self._usage.replace(), dict(self._input_errors)
            )
        )
        self.done = True
        return events

    def _item_done_fallback(self, index: int) -> ProviderEvent:
        output_index = next(o for o, b in self._by_output.items() if b == index)
        return self._item_done(output_index, {})[-1]


def usage_from_responses(raw: dict[str, Any]) -> Usage:
    """input_tokens includes cached ones (input_tokens_details.cached_tokens); reasoning is output."""
    total_in = int(raw.get("input_tokens") or 0)
    cached = int((raw.get("input_tokens_details") or {}).get("cached_tokens") or 0)
    return Usage(
        input_tokens=max(0, total_in - cached),
        output_tokens=int(raw.get("output_tokens") or 0),
        cache_read_input_tokens=cached,
    )


def _failure(error: dict[str, Any]) -> MidStreamError:
    code = str(error.get("code") or error.get("type") or "")
    message = one_line(str(error.get("message") or code or "the response failed"))
    if code == "context_length_exceeded" or "context window" in message.lower():
        return MidStreamError(ProviderError("prompt_too_long", prompt_too_long_message(message)), False)
    retryable = code in ("server_error", "rate_limit_exceeded", "") or "overloaded" in message.lower()
    kind: ErrorKind = (
        "rate_limit"
        if code == "rate_limit_exceeded"
        else "overloaded"
        if "overloaded" in message.lower()
        else "server"
    )
    return MidStreamError(
        ProviderError(kind, f"API error mid-stream ({code or 'error'}): {message}"), retryable
    )
