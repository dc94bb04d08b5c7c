"""Assembling Gemini `GenerateContentResponse` chunks (streamed or one body) into provider events.

Each chunk carries the next parts of the first candidate. Consecutive text parts make one text block and
thought parts (`"thought": true`) one thinking block; a `functionCall` arrives whole and becomes a complete
tool_use block (Gemini gives no id unless the model made one, so one is made up: `gemini_…`). A
`thoughtSignature` is kept on the part it came with, tagged `gemini:` (see history.py). The stream has no
terminator: the answer is complete once a chunk has carried a `finishReason` and the body ends.
"""

from __future__ import annotations

import json
from typing import Any

from yoke.ids import random_hex
from yoke.jsonsafe import loads as safe_json
from yoke.messages import Block
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

REFUSALS = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE"}
)
TOOL_TROUBLE = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"})
RETRYABLE_STATUSES = frozenset({"UNAVAILABLE", "INTERNAL", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"})


def stop_reason_for(finish: str | None, has_calls: bool) -> str:
    if finish == "MAX_TOKENS":
        return "max_tokens"
    if finish in REFUSALS:
        return "refusal"
    return "tool_use" if has_calls else "end_turn"


class GeminiAssembler:
    def __init__(self, model: str = "") -> None:
        self.done = False
        self._id = ""
        self._model = model
        self._started = False
        self._blocks: list[Block] = []
        self._open: int | None = None  # the open text or thinking block
        self._finish: str | None = None
        self._blocked: str | None = None  # promptFeedback.blockReason
        self._usage = Usage()
        self._has_calls = False

    def feed(self, event: SSEEvent) -> list[ProviderEvent]:
        text = event.data.strip()
        if not text:
            return []
        try:
            chunk = safe_json(text)
        except ValueError as exc:
            raise StreamInterrupted(f"unreadable event data: {one_line(text, 80)!r}") from exc
        if isinstance(chunk, list):  # the non-SSE stream form is a JSON array of chunks
            return [e for c in chunk if isinstance(c, dict) for e in self.handle_chunk(c)]
        return self.handle_chunk(chunk) if isinstance(chunk, dict) else []

    def handle_chunk(self, chunk: dict[str, Any]) -> list[ProviderEvent]:
        if chunk.get("error") is not None:
            raise stream_error(chunk["error"])
        events: list[ProviderEvent] = []
        if not self._started:
            self._started = True
            self._id = str(chunk.get("responseId") or f"msg_{random_hex(24)}")
            self._model = str(chunk.get("modelVersion") or self._model)
            events.append(MessageStart(self._id, self._model, Usage()))
        if chunk.get("usageMetadata"):
            self._usage = usage_from_gemini(chunk["usageMetadata"])
        feedback = chunk.get("promptFeedback") or {}
        if feedback.get("blockReason"):
            self._blocked = str(feedback["blockReason"])
        candidates = chunk.get("candidates") or []
        if candidates:
            candidate = candidates[0]
            for part in (candidate.get("content") or {}).get("parts") or []:
                events += self._part(part)
            if candidate.get("finishReason"):
                self._finish = str(candidate["finishReason"])
        return events

    def end_of_stream(self) -> list[ProviderEvent]:
        if self._finish is None and self._blocked is None:
            raise StreamInterrupted("connection closed before the answer finished")
        return self._finish_message()

    def from_body(self, body: Any) -> list[ProviderEvent]:
        return self.handle_chunk(body) + self._finish_message()

    # ---- parts --------------------------------------------------------------------------------------

    def _part(self, part: dict[str, Any]) -> list[ProviderEvent]:
        signature = tag_signature("gemini", str(part.get("thoughtSignature") or ""))
        if isinstance(part.get("functionCall"), dict):
            return self._call(part["functionCall"], signature)
        if "text" not in part:
            return []  # inline data, code execution and other parts a coding loop does not use
        kind = "thinking" if part.get("thought") else "text"
        events = self._text_like(kind, str(part.get("text") or ""))
        if signature and self._open is not None:
            index = self._open
            self._blocks[index]["signature"] = signature
            if kind == "thinking":
                events.append(SignatureDelta(index, signature))
        return events

    def _text_like(self, kind: str, text: str) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        current = self._blocks[self._open] if self._open is not None else None
        if current is None or current["type"] != kind:
            if not text:
                return events  # an empty part only carries a signature for the open block
            events += self._close_open()
            shell: Block = {"type": "text", "text": ""}
            if kind == "thinking":
                shell = {"type": "thinking", "thinking": "", "signature": ""}
            self._open = len(self._blocks)
            self._blocks.append(shell)
            events.append(BlockStart(self._open, dict(shell)))
        if text:
            index = self._open
            assert index is not None
            self._blocks[index][kind] += text
            events.append(ThinkingDelta(index, text) if kind == "thinking" else TextDelta(index, text))
        return events

    def _close_open(self) -> list[ProviderEvent]:
        if self._open is None:
            return []
        index, self._open = self._open, None
        return [BlockStop(index, self._blocks[index])]

    def _call(self, call: dict[str, Any], signature: str) -> list[ProviderEvent]:
        events = self._close_open()
        self._has_calls = True
        args = call.get("args")
        args = args if isinstance(args, dict) else {}
        index = len(self._blocks)
        block: Block = {
            "type": "tool_use",
            "id": str(call.get("id") or self._call_id(index)),
            "name": str(call.get("name") or ""),
            "input": args,
        }
        if signature:
            block["signature"] = signature
        self._blocks.append(block)
        events.append(BlockStart(index, {**block, "input": {}}))
        events.append(ToolInputDelta(index, json.dumps(args, ensure_ascii=False)))
        events.append(BlockStop(index, block))
        return events

    def _call_id(self, index: int) -> str:
        """A made-up id, derived from the response id so a replayed cassette yields the same ids."""
        import hashlib

        digest = hashlib.sha256(f"{self._id}/{index}".encode()).hexdigest()[:24]
        return f"gemini_{digest}"

    # ---- the end ------------------------------------------------------------------------------------

    def _finish_message(self) -> list[ProviderEvent]:
        if self.done:
            return []
        events: list[ProviderEvent] = []
        if not self._started:
            events += self.handle_chunk({})
        events += self._close_open()
        stop_reason = stop_reason_for(self._finish, self._has_calls)
        note = self._explanation()
        if note and not any(b["type"] in ("text", "tool_use") for b in self._blocks):
            index = len(self._blocks)
            self._blocks.append({"type": "text", "text": note})
            events += [BlockStart(index, {"type": "text", "text": ""}), TextDelta(index, note)]
            events.append(BlockStop(index, self._blocks[index]))
            if self._blocked:
                stop_reason = "refusal"
        events.append(MessageDelta(stop_reason, self._usage.replace()))
        content = [b for b in self._blocks if not (b["type"] == "text" and not b["text"])]
        message = {"role": "assistant", "content": content}
        usage = self._usage.replace()
        events.append(MessageStop(self._id, self._model, message, stop_reason, usage))  # type: ignore[arg-type]
        self.done = True
        return events

    def _explanation(self) -> str | None:
        """Why an answer came back empty, in words, so the user is not left with '(no content)'."""
        if self._blocked:
            return f"Gemini blocked the prompt (blockReason {self._blocked})."
        if self._finish in REFUSALS:
            return f"Gemini stopped the answer (finishReason {self._finish})."
        if self._finish in TOOL_TROUBLE:
            return f"Gemini could not produce a valid tool call (finishReason {self._finish})."
        return None


def usage_from_gemini(raw: dict[str, Any]) -> Usage:
    """promptTokenCount includes the cached tokens; thinking tokens are billed as output."""
    prompt = int(raw.get("promptTokenCount") or 0) + int(raw.get("toolUsePromptTokenCount") or 0)
    cached = int(raw.get("cachedContentTokenCount") or 0)
    output = int(raw.get("candidatesTokenCount") or 0) + int(raw.get("thoughtsTokenCount") or 0)
    return Usage(input_tokens=max(0, prompt - cached), output_tokens=output, cache_read_input_tokens=cached)


def stream_error(error: Any) -> MidStreamError:
    if not isinstance(error, dict):
        return MidStreamError(ProviderError("server", f"API error mid-stream: {one_line(str(error))}"), True)
    status = str(error.get("status") or "")
    message = one_line(str(error.get("message") or status or error))
    if "exceeds the maximum number of tokens" in message.lower():
        return MidStreamError(ProviderError("prompt_too_long", prompt_too_long_message(message)), False)
    code = error.get("code")
    kind: ErrorKind = (
        "rate_limit" if status == "RESOURCE_EXHAUSTED" else "overloaded" if code == 503 else "server"
    )
    retryable = status in RETRYABLE_STATUSES or (isinstance(code, int) and code >= 500)
    return MidStreamError(
        ProviderError(kind, f"API error mid-stream ({status or code}): {message}"), retryable
    )
