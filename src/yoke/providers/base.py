"""The provider seam: one streaming interface over every model API.

A provider turns a `ModelRequest` into an async stream of `ProviderEvent`s. The event set mirrors the
Anthropic streaming shape (message start, block start / deltas / stop, message delta, message stop)
because it is the richest; the OpenAI-compatible provider synthesizes the same sequence. Every stream
ends with exactly one `MessageStop` carrying the complete assistant message, or raises `ProviderError`.
`RetryNotice`s may come before the `MessageStart`; one with `discard_partial` may also come mid-message, and
then the consumer drops what it has of that message and starts over at the next `MessageStart`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, Literal, Protocol

from yoke.messages import Block, Message
from yoke.records import Record

StopReason = str  # "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "pause_turn" | "refusal"


class Usage(Record):
    __slots__ = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")

    def __init__(
        self,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cache_read_input_tokens: int = 0,
        cache_creation_input_tokens: int = 0,
    ) -> None:
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cache_read_input_tokens = cache_read_input_tokens
        self.cache_creation_input_tokens = cache_creation_input_tokens

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_input_tokens += other.cache_read_input_tokens
        self.cache_creation_input_tokens += other.cache_creation_input_tokens

    def as_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "output_tokens": self.output_tokens,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> Usage:
        d = d or {}
        return cls(
            input_tokens=int(d.get("input_tokens") or 0),
            output_tokens=int(d.get("output_tokens") or 0),
            cache_read_input_tokens=int(d.get("cache_read_input_tokens") or 0),
            cache_creation_input_tokens=int(d.get("cache_creation_input_tokens") or 0),
        )


class ToolSpec(Record):
    """A tool as the model sees it."""

    __slots__ = ("name", "description", "input_schema")

    name: str
    description: str
    input_schema: dict[str, Any]

    def __init__(self, name: str, description: str, input_schema: dict[str, Any]) -> None:
        self.name = name
        self.description = description
        self.input_schema = input_schema


class ModelRequest(Record):
    __slots__ = (
        "model",
        "messages",
        "system",
        "tools",
        "max_tokens",
        "temperature",
        "thinking_budget",
        "effort",
        "stop_sequences",
        "stream",
        "thinking_display",
    )

    def __init__(
        self,
        model: str,
        messages: list[Message],
        system: list[Block] | None = None,  # text blocks
        tools: list[ToolSpec] | None = None,
        max_tokens: int = 32000,
        temperature: float | None = None,
        thinking_budget: int | None = None,  # None = thinking off
        effort: str
        | None = None,  # low|medium|high|xhigh|max; each wire sends what the model takes (effort.py)
        stop_sequences: list[str] | None = None,
        stream: bool = True,
        thinking_display: str = "updates",  # "omitted": thinking nobody reads comes back without its text
    ) -> None:
        self.model = model
        self.messages = messages
        self.system = [] if system is None else system
        self.tools = [] if tools is None else tools
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.thinking_budget = thinking_budget
        self.effort = effort
        self.stop_sequences = [] if stop_sequences is None else stop_sequences
        self.stream = stream
        self.thinking_display = thinking_display


# ---- provider events -------------------------------------------------------------------------------


class MessageStart(Record):
    __slots__ = ("id", "model", "usage")

    id: str
    model: str
    usage: Usage

    def __init__(self, id: str, model: str, usage: Usage) -> None:
        self.id = id
        self.model = model
        self.usage = usage


class BlockStart(Record):
    __slots__ = ("index", "block")

    index: int
    block: Block  # the block's opening shape: {"type":"text","text":""}, {"type":"tool_use","id","name","input":{}}

    def __init__(self, index: int, block: Block) -> None:
        self.index = index
        self.block = block


class TextDelta(Record):
    __slots__ = ("index", "text")

    index: int
    text: str

    def __init__(self, index: int, text: str) -> None:
        self.index = index
        self.text = text


class ThinkingDelta(Record):
    __slots__ = ("index", "thinking")

    index: int
    thinking: str

    def __init__(self, index: int, thinking: str) -> None:
        self.index = index
        self.thinking = thinking


class SignatureDelta(Record):
    __slots__ = ("index", "signature")

    index: int
    signature: str

    def __init__(self, index: int, signature: str) -> None:
        self.index = index
        self.signature = signature


class ToolInputDelta(Record):
    __slots__ = ("index", "partial_json")

    index: int
    partial_json: str

    def __init__(self, index: int, partial_json: str) -> None:
        self.index = index
        self.partial_json = partial_json


class BlockStop(Record):
    """A block is complete. For tool_use, `block["input"]` is the parsed input; when the model's JSON did not
    parse, `input_error` says why and `block["input"]` is {} (the loop turns it into an error result)."""

    __slots__ = ("index", "block", "input_error")

    index: int
    block: Block
    input_error: str | None

    def __init__(self, index: int, block: Block, input_error: str | None = None) -> None:
        self.index = index
        self.block = block
        self.input_error = input_error


class MessageDelta(Record):
    __slots__ = ("stop_reason", "usage")

    stop_reason: StopReason | None
    usage: Usage

    def __init__(self, stop_reason: StopReason | None, usage: Usage) -> None:
        self.stop_reason = stop_reason
        self.usage = usage


class MessageStop(Record):
    """The complete assistant message (role, content) plus its id, model, stop reason and final usage."""

    __slots__ = ("id", "model", "message", "stop_reason", "usage", "input_errors")

    id: str
    model: str
    message: Message
    stop_reason: StopReason | None
    usage: Usage
    input_errors: dict[str, str]  # tool_use id -> JSON parse error

    def __init__(
        self,
        id: str,
        model: str,
        message: Message,
        stop_reason: StopReason | None,
        usage: Usage,
        input_errors: dict[str, str] | None = None,
    ) -> None:
        self.id = id
        self.model = model
        self.message = message
        self.stop_reason = stop_reason
        self.usage = usage
        self.input_errors = {} if input_errors is None else input_errors


class RetryNotice(Record):
    """A request failed and will be retried after `delay_s` (shown as system/api_retry in stream-json).

    `discard_partial` is set when a streaming answer broke off (connection cut, idle too long, or a
    retryable error event mid-stream) and the provider is asking again without streaming: everything
    received since the last `MessageStart` is void, and a fresh `MessageStart` with the full answer follows.
    """

    __slots__ = ("attempt", "max_retries", "delay_s", "status", "error", "discard_partial")

    attempt: int
    max_retries: int
    delay_s: float
    status: int | None
    error: str
    discard_partial: bool

    def __init__(
        self,
        attempt: int,
        max_retries: int,
        delay_s: float,
        status: int | None,
        error: str,
        discard_partial: bool = False,
    ) -> None:
        self.attempt = attempt
        self.max_retries = max_retries
        self.delay_s = delay_s
        self.status = status
        self.error = error
        self.discard_partial = discard_partial


class ModelFallback(Record):
    """The provider switched models (e.g. to `--fallback-model` after repeated overload); later requests go
    to `to_model`. Comes before the new model's `MessageStart`; `message` is the line every front-end shows."""

    __slots__ = ("from_model", "to_model", "message")

    from_model: str
    to_model: str
    message: str

    def __init__(self, from_model: str, to_model: str, message: str) -> None:
        self.from_model = from_model
        self.to_model = to_model
        self.message = message


ProviderEvent = (
    MessageStart
    | BlockStart
    | TextDelta
    | ThinkingDelta
    | SignatureDelta
    | ToolInputDelta
    | BlockStop
    | MessageDelta
    | MessageStop
    | RetryNotice
    | ModelFallback
)


# ---- errors ----------------------------------------------------------------------------------------

ErrorKind = Literal[
    "authentication",  # 401, missing key
    "permission",  # 403
    "not_found",  # 404, unknown model
    "prompt_too_long",
    "rate_limit",  # 429 after retries
    "overloaded",  # 529 after retries
    "server",  # 5xx after retries
    "connection",  # unreachable / timeouts after retries
    "invalid_request",  # other 400s
    "replay_mismatch",  # a replayed run diverged from its cassette
    "config",  # bad provider configuration (e.g. missing SDK for Bedrock)
]


class ProviderError(Exception):
    """A model call failed in a way the user must hear about. `str(err)` is one clear line."""

    def __init__(self, kind: ErrorKind, message: str, status: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.status = status


class Provider(Protocol):
    name: str  # "anthropic", "openai", "bedrock", "vertex", "replay"

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]: ...

    async def aclose(self) -> None: ...
