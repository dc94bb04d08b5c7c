"""The session's event stream: the only thing front-ends consume.

A small closed set of dataclasses, read-only by contract (not `frozen`: that doubles their import cost, which
every run pays). Every front-end (text/json/stream-json printers, REPL, SDK, ACP)
is one module mapping these to its own format. Every event says which agent produced it: `agent_id` is
"main" for the session itself; a sub-agent's events carry its id and the tool call that started it
(`parent_tool_use_id`), so stream-json can fill `parent_tool_use_id` and a UI can nest them.
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
    "structured_output_retries",
]


@dataclass(slots=True)
class AgentEvent:
    agent_id: str = field(default="main", kw_only=True)
    parent_tool_use_id: str | None = field(default=None, kw_only=True)


def from_agent(event: AgentEvent, agent_id: str, parent_tool_use_id: str | None) -> AgentEvent:
    """Stamp an event with the agent that produced it (set once, where the sub-agent publishes it)."""
    event.agent_id = agent_id
    event.parent_tool_use_id = parent_tool_use_id
    return event


@dataclass(slots=True)
class SessionStarted(AgentEvent):
    session_id: str
    model: str
    cwd: str
    tools: list[str]
    permission_mode: str
    provider: str
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)  # [{name, status, error?}]


@dataclass(slots=True)
class TurnStarted(AgentEvent):
    turn: int  # 1-based model round trip within this query


@dataclass(slots=True)
class StreamEvent(AgentEvent):
    """A raw provider event, for front-ends that show partial messages (--include-partial-messages)."""

    event: ProviderEvent


@dataclass(slots=True)
class TextDelta(AgentEvent):
    text: str


@dataclass(slots=True)
class ThinkingDelta(AgentEvent):
    thinking: str


@dataclass(slots=True)
class ToolCallStarted(AgentEvent):
    tool_use_id: str
    name: str


@dataclass(slots=True)
class ToolCallInputPreview(AgentEvent):
    """The tool input parsed so far (emitted whenever the streamed partial JSON becomes parseable)."""

    tool_use_id: str
    name: str
    input: dict[str, Any]


@dataclass(slots=True)
class ToolCallCompleted(AgentEvent):
    tool_use_id: str
    name: str
    input: dict[str, Any]
    input_error: str | None = None


@dataclass(slots=True)
class AssistantMessage(AgentEvent):
    """One complete assistant message from the model (already appended to the history and transcript)."""

    message: Message
    id: str
    model: str
    stop_reason: str | None
    usage: Usage
    uuid: str
    error: str | None = None  # a synthetic message standing for a failed call: the error kind


@dataclass(slots=True)
class ToolResultEvent(AgentEvent):
    tool_use_id: str
    name: str
    block: Block  # the tool_result block the model will see
    data: Any = None  # structured output (tool_use_result)
    is_error: bool = False


@dataclass(slots=True)
class ToolResultsMessage(AgentEvent):
    """The user message carrying all tool results of one assistant message (appended to the history)."""

    message: Message
    uuid: str
    results: list[ToolResultEvent] = field(default_factory=list)


@dataclass(slots=True)
class PermissionDecided(AgentEvent):
    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    behavior: Literal["allow", "deny"]
    source: str
    reason: str = ""


@dataclass(slots=True)
class UsageEvent(AgentEvent):
    model: str
    usage: Usage  # this round trip
    cost_usd: float
    total_cost_usd: float


@dataclass(slots=True)
class Notice(AgentEvent):
    """Something the user should know (retry, recovery, warnings). `kind` lets printers pick a format."""

    kind: str  # "api_retry", "max_tokens_recovery", "warning", "info", ...
    message: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class TodosChanged(AgentEvent):
    """The session's todo list after a TodoWrite (front-ends show it; the transcript keeps it)."""

    todos: list[dict[str, Any]]


@dataclass(slots=True)
class Compacted(AgentEvent):
    trigger: Literal["manual", "auto"]
    pre_tokens: int


@dataclass(slots=True)
class TurnEnded(AgentEvent):
    turn: int
    stop_reason: str | None


@dataclass(slots=True)
class ModelUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cost_usd: float = 0.0


@dataclass(slots=True)
class Result(AgentEvent):
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
    structured_output: Any = None  # --json-schema: the StructuredOutput tool's validated input


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
