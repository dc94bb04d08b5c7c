"""Assembling an OpenAI Chat Completions answer into the Anthropic-shaped provider events.

Chat Completions has no content blocks, so they are synthesized in order of appearance: a thinking block for
`reasoning_content`/`reasoning`, a text block for `content`, one tool_use block per tool call. A text or
thinking block closes when another kind of output begins; tool calls (which may arrive interleaved, keyed by
`index`) are all closed when the answer finishes, once their arguments are complete.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from yoke.ids import random_hex
from yoke.jsonsafe import loads as safe_json
from yoke.messages import Block
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
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    Usage,
)
from yoke.providers.http import MidStreamError, one_line, prompt_too_long_message
from yoke.providers.sse import SSEEvent
from yoke.providers.transport import StreamInterrupted

FINISH_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


@dataclass(slots=True)
class _ToolCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    block_index: int | None = None  # set once the block has started (its name is known)


class OpenAIAssembler:
    def __init__(self, model: str = "", tool_names: frozenset[str] = frozenset()) -> None:
        self.tool_names = tool_names  # lets calls a local model wrote as text be recovered (see below)
        self.done = False
        self._id = ""
        self._model = model
        self._started = False
        self._blocks: list[Block] = []
        self._text_index: int | None = None  # the open text or thinking block, if any
        self._calls: dict[int, _ToolCall] = {}
        self._finish: str | None = None
        self._usage = Usage()

    def feed(self, event: SSEEvent) -> list[ProviderEvent]:
        data_text = event.data.strip()
        if data_text == "[DONE]":
            return self._finish_message()
        try:
            chunk = safe_json(data_text)
        except ValueError as exc:
            raise StreamInterrupted(f"unreadable event data: {one_line(data_text, 80)!r}") from exc
        if not isinstance(chunk, dict):
            return []
        if chunk.get("error") is not None:
            raise _stream_error(chunk["error"])
        return self.handle_chunk(chunk)

    def handle_chunk(self, chunk: dict[str, Any]) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        if not self._started:
            self._started = True
            self._id = str(chunk.get("id") or f"msg_{random_hex(24)}")
            self._model = str(chunk.get("model") or self._model)
            events.append(MessageStart(self._id, self._model, Usage()))
        if chunk.get("usage"):
            self._usage = usage_from_openai(chunk["usage"])
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue  # only the first choice is used
            delta = choice.get("delta") or choice.get("message") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                events += self._text_like("thinking", reasoning)
            content = delta.get("content")
            if isinstance(content, str) and content:
                events += self._text_like("text", content)
            refusal = delta.get("refusal")
            if isinstance(refusal, str) and refusal:
                events += self._text_like("text", refusal)
            for fragment in delta.get("tool_calls") or []:
                events += self._tool_fragment(fragment)
            if choice.get("finish_reason"):
                self._finish = str(choice["finish_reason"])
        return events

    def end_of_stream(self) -> list[ProviderEvent]:
        # Some compatible servers close without [DONE]; a finish reason means the answer is whole.
        if self._finish is None:
            raise StreamInterrupted("connection closed before the answer finished")
        return self._finish_message()

    def from_body(self, body: Any) -> list[ProviderEvent]:
        if body.get("error") is not None:
            raise _stream_error(body["error"]).error
        events = self.handle_chunk(body)
        return events + self._finish_message()

    # ---- blocks -------------------------------------------------------------------------------------

    def _text_like(self, kind: str, text: str) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        current = self._blocks[self._text_index] if self._text_index is not None else None
        if current is None or current["type"] != kind:
            events += self._close_text()
            shell: Block = {"type": "text", "text": ""}
            if kind == "thinking":
                shell = {"type": "thinking", "thinking": "", "signature": ""}
            self._text_index = len(self._blocks)
            self._blocks.append(shell)
            events.append(BlockStart(self._text_index, dict(shell)))
        block = self._blocks[self._text_index]  # type: ignore[index]
        block[kind] += text
        if kind == "thinking":
            events.append(ThinkingDelta(self._text_index, text))  # type: ignore[arg-type]
        else:
            events.append(TextDelta(self._text_index, text))  # type: ignore[arg-type]
        return events

    def _close_text(self) -> list[ProviderEvent]:
        if self._text_index is None:
            return []
        index, self._text_index = self._text_index, None
        return [BlockStop(index, self._blocks[index])]

    def _tool_fragment(self, fragment: dict[str, Any]) -> list[ProviderEvent]:
        key = fragment.get("index")
        if not isinstance(key, int):
            # No index (some local servers): a new id means a new call, otherwise it continues the last one.
            frag_id = fragment.get("id")
            known = next((k for k, c in self._calls.items() if frag_id and c.id == frag_id), None)
            if known is not None:
                key = known
            elif frag_id or not self._calls:
                key = len(self._calls)
            else:
                key = max(self._calls)
        call = self._calls.setdefault(key, _ToolCall())
        function = fragment.get("function") or {}
        if fragment.get("id") and not call.id:
            call.id = str(fragment["id"])
        if function.get("name") and not call.name:
            call.name = str(function["name"])
        arguments = function.get("arguments")
        if isinstance(arguments, dict):  # a few servers send the object itself
            arguments = json.dumps(arguments)
        events: list[ProviderEvent] = []
        if call.block_index is None and call.name:
            events += self._close_text()
            call.id = call.id or f"call_{random_hex(24)}"
            call.block_index = len(self._blocks)
            block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
            self._blocks.append(block)
            events.append(BlockStart(call.block_index, dict(block, input={})))
            if call.arguments:  # arguments that came before the name
                events.append(ToolInputDelta(call.block_index, "".join(call.arguments)))
        if isinstance(arguments, str) and arguments:
            call.arguments.append(arguments)
            if call.block_index is not None:
                events.append(ToolInputDelta(call.block_index, arguments))
        return events

    # ---- the end ------------------------------------------------------------------------------------

    def _finish_message(self) -> list[ProviderEvent]:
        if self.done:
            return []
        events: list[ProviderEvent] = []
        if not self._started:
            events += self.handle_chunk({})
        events += self._close_text()
        input_errors: dict[str, str] = {}
        if self.tool_names and not any(c.block_index is not None for c in self._calls.values()):
            events += self._recover_text_calls()
        for _, call in sorted(self._calls.items()):
            if call.block_index is None:
                continue  # a call that never got a name cannot be run; drop it
            block = self._blocks[call.block_index]
            block["input"], error = parse_tool_input("".join(call.arguments))
            if error:
                input_errors[call.id] = error
            events.append(BlockStop(call.block_index, block, error))
        stop_reason = FINISH_REASONS.get(self._finish or "stop", self._finish)
        if stop_reason == "end_turn" and any(c.block_index is not None for c in self._calls.values()):
            stop_reason = "tool_use"  # several servers say "stop" after tool calls
        events.append(MessageDelta(stop_reason, Usage(**self._usage.as_dict())))
        content = [b for b in self._blocks if not (b["type"] == "text" and not b["text"])]
        message = {"role": "assistant", "content": content}
        usage = Usage(**self._usage.as_dict())
        events.append(MessageStop(self._id, self._model, message, stop_reason, usage, input_errors))  # type: ignore[arg-type]
        self.done = True
        return events

    def _recover_text_calls(self) -> list[ProviderEvent]:
        """Small local models served without a working tool-call parser (a common Ollama/llama.cpp failure)
        write their calls into the text as `<tool_call>{"name": …, "arguments": {…}}</tool_call>`. A call
        to a tool the request offered is turned into a real tool_use block, and its markup is taken out of
        the text; anything else stays text."""
        events: list[ProviderEvent] = []
        for block in [b for b in self._blocks if b["type"] == "text"]:
            remaining, found = _extract_text_calls(block["text"], self.tool_names)
            if not found:
                continue
            block["text"] = remaining.strip()
            for name, arguments in found:
                index = len(self._blocks)
                call_id = f"call_{random_hex(24)}"
                tool_block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
                self._blocks.append(tool_block)
                self._calls[max(self._calls, default=-1) + 1] = _ToolCall(
                    call_id, name, [json.dumps(arguments)], index
                )
                events.append(BlockStart(index, dict(tool_block)))
        return events


_TEXT_CALL = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.DOTALL)


def _extract_text_calls(
    text: str, tool_names: frozenset[str]
) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """The text without its recognised `<tool_call>` blocks, and those calls in order."""
    found: list[tuple[str, dict[str, Any]]] = []

    def take(match: re.Match[str]) -> str:
        call = _text_call(match.group(1), tool_names)
        if call is None:
            return match.group(0)
        found.append(call)
        return ""

    return _TEXT_CALL.sub(take, text), found


def _text_call(raw: str, tool_names: frozenset[str]) -> tuple[str, dict[str, Any]] | None:
    try:
        call = safe_json(raw)
    except ValueError:
        return None
    if not isinstance(call, dict) or call.get("name") not in tool_names:
        return None
    arguments = call.get("arguments", call.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = safe_json(arguments)
        except ValueError:
            return None
    return (call["name"], arguments) if isinstance(arguments, dict) else None


def usage_from_openai(raw: dict[str, Any]) -> Usage:
    """prompt_tokens includes cached ones; the internal model (Anthropic's) counts them apart."""
    prompt = int(raw.get("prompt_tokens") or 0)
    details = raw.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or raw.get("prompt_cache_hit_tokens") or 0)
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=int(raw.get("completion_tokens") or 0),
        cache_read_input_tokens=cached,
    )


def _stream_error(error: Any) -> MidStreamError:
    if isinstance(error, dict):
        message = one_line(str(error.get("message") or error.get("type") or error))
        code = str(error.get("code") or error.get("type") or "")
    else:
        message, code = one_line(str(error)), ""
    if code == "context_length_exceeded" or "context length" in message.lower():
        return MidStreamError(ProviderError("prompt_too_long", prompt_too_long_message(message)), False)
    retryable = code in ("server_error", "rate_limit_exceeded", "") or "overloaded" in message.lower()
    kind: ErrorKind = "rate_limit" if code == "rate_limit_exceeded" else "server"
    return MidStreamError(ProviderError(kind, f"API error mid-stream: {message}"), retryable)
