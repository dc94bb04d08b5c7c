"""The loop's event stream: the only thing front-ends consume.

A small closed set of frozen dataclasses. Every front-end (text/json/stream-json printers, REPL, SDK, ACP)
is one module mapping these to its own format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from yoke.messages import Block, Message
from yoke.providers.base import ProviderEvent, Usage

TerminationReason = Literal[
    "completed",
    "max_turns",
    "max_tokens",
    "interrupted",
    "model_error",
    "budget_exceeded",
    "prompt_too_long",
    "tool_denied_stop",
    "hook_stopped",
    "loop_detected",
]


@dataclass(slots=True, frozen=True)
class SessionStarted:
    session_id: str
    model: str
    cwd: str
    tools: list[str]
    permission_mode: str
    provider: str


@dataclass(slots=True, frozen=True)
class TurnStarted:
    turn: int  # 1-based model round trip within this query


@dataclass(slots=True, frozen=True)
class StreamEvent:
    """A raw provider event, for front-ends that show partial messages (--include-partial-messages)."""

    event: ProviderEvent


@dataclass(slots=True, frozen=True)
class TextDelta:
    text: str


@dataclass(slots=True, frozen=True)
class ThinkingDelta:
    thinking: str


@dataclass(slots=True, frozen=True)
class ToolCallStarted:
    tool_use_id: str
    name: str


@dataclass(slots=True, frozen=True)
class ToolCallInputPreview:
    """The tool input parsed so far (emitted whenever the streamed partial JSON becomes parseable)."""

    tool_use_id: str
    name: str
    input: dict[str, Any]


@dataclass(slots=True, frozen=True)
class ToolCallCompleted:
    tool_use_id: str
    name: str
    input: dict[str, Any]
    input_error: str | None = None


@dataclass(slots=True, frozen=True)
class AssistantMessage:
    """One complete assistant message from the model (already appended to the history and transcript)."""

    message: Message
    id: str
    model: str
    stop_reason: str | None
    usage: Usage
    uuid: str


@dataclass(slots=True, frozen=True)
class ToolResultEvent:
    tool_use_id: str
    name: str
    block: Block  # the tool_result block the model will see
    data: Any = None  # structured output (tool_use_result)
    is_error: bool = False


@dataclass(slots=True, frozen=True)
class ToolResultsMessage:
    """The user message carrying all tool results of one assistant message (appended to the history)."""

    message: Message
    uuid: str
    results: list[ToolResultEvent] = field(default_factory=list)


@dataclass(slots=True, frozen=True)
class PermissionDecided:
    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    behavior: Literal["allow", "deny"]
    source: str
    reason: str = ""


@dataclass(slots=True, frozen=True)
class UsageEvent:
    model: str
    usage: Usage  # this round trip
    cost_usd: float
    total_cost_usd: float


@dataclass(slots=True, frozen=True)
class Notice:
    """Something the user should know (retry, recovery, warnings). `kind` lets printers pick a format."""

    kind: str  # "api_retry", "max_tokens_recovery", "warning", "info", ...
    message: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, frozen=True)
class TodosChanged:
    """The session's todo list after a TodoWrite (front-ends show it; the transcript keeps it)."""

    todos: list[dict[str, Any]]


@dataclass(slots=True, frozen=True)
class Compacted:
    trigger: Literal["manual", "auto"]
    pre_tokens: int


@dataclass(slots=True, frozen=True)
class TurnEnded:
    turn: int
    stop_reason: str | None


@dataclass(slots=True, frozen=True)
class ModelUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cost_usd: float = 0.0


@dataclass(slots=True, frozen=True)
class Result:
    reason: TerminationReason
    is_error: bool
    text: str  # the final assistant text (success) or the error line
    num_turns: int
    duration_ms: int
    duration_api_ms: int
    total_cost_usd: float
    usage: Usage
    model_usage: dict[str, ModelUsage]
    permission_denials: list[dict[str, Any]]
    stop_reason: str | None = None
    errors: list[str] = field(default_factory=list)
    api_error_status: int | None = None


Event = (
    SessionStarted
    | TurnStarted
    | StreamEvent
    | TextDelta
    | ThinkingDelta
    | ToolCallStarted
    | ToolCallInputPreview
    | ToolCallCompleted
    | AssistantMessage
    | ToolResultEvent
    | ToolResultsMessage
    | PermissionDecided
    | UsageEvent
    | Notice
    | TodosChanged
    | Compacted
    | TurnEnded
    | Result
)
