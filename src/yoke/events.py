"""The session's event stream: the only thing front-ends consume.

A small closed set of records (`yoke.records.Record`: plain slotted classes, no per-import cost), read-only by
contract. Every front-end (text/json/stream-json printers, REPL, SDK, ACP)
is one module mapping these to its own format. Every event says which agent produced it: `agent_id` is
"main" for the session itself; a sub-agent's events carry its id and the tool call that started it
(`parent_tool_use_id`), so stream-json can fill `parent_tool_use_id` and a UI can nest them.
"""

from __future__ import annotations

from typing import Any, Literal

from yoke.messages import Block, Message
from yoke.providers.base import ProviderEvent, Usage
from yoke.records import Record

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


class AgentEvent(Record):
    __slots__ = ("agent_id", "parent_tool_use_id")

    agent_id: str
    parent_tool_use_id: str | None

    def __init__(self, *, agent_id: str = "main", parent_tool_use_id: str | None = None) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id


def from_agent(event: AgentEvent, agent_id: str, parent_tool_use_id: str | None) -> AgentEvent:
    """Stamp an event with the agent that produced it (set once, where the sub-agent publishes it)."""
    event.agent_id = agent_id
    event.parent_tool_use_id = parent_tool_use_id
    return event


class SessionStarted(AgentEvent):
    __slots__ = ("session_id", "model", "cwd", "tools", "permission_mode", "provider", "mcp_servers")

    session_id: str
    model: str
    cwd: str
    tools: list[str]
    permission_mode: str
    provider: str
    mcp_servers: list[dict[str, Any]]  # [{name, status, error?}]

    def __init__(
        self,
        session_id: str,
        model: str,
        cwd: str,
        tools: list[str],
        permission_mode: str,
        provider: str,
        mcp_servers: list[dict[str, Any]] | None = None,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.session_id = session_id
        self.model = model
        self.cwd = cwd
        self.tools = tools
        self.permission_mode = permission_mode
        self.provider = provider
        self.mcp_servers = [] if mcp_servers is None else mcp_servers


class TurnStarted(AgentEvent):
    __slots__ = ("turn",)

    turn: int  # 1-based model round trip within this query

    def __init__(self, turn: int, *, agent_id: str = "main", parent_tool_use_id: str | None = None) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.turn = turn


class StreamEvent(AgentEvent):
    """A raw provider event, for front-ends that show partial messages (--include-partial-messages)."""

    __slots__ = ("event",)

    event: ProviderEvent

    def __init__(
        self, event: ProviderEvent, *, agent_id: str = "main", parent_tool_use_id: str | None = None
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.event = event


class TextDelta(AgentEvent):
    __slots__ = ("text",)

    text: str

    def __init__(self, text: str, *, agent_id: str = "main", parent_tool_use_id: str | None = None) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.text = text


class ThinkingDelta(AgentEvent):
    __slots__ = ("thinking",)

    thinking: str

    def __init__(
        self, thinking: str, *, agent_id: str = "main", parent_tool_use_id: str | None = None
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.thinking = thinking


class ToolCallStarted(AgentEvent):
    __slots__ = ("tool_use_id", "name")

    tool_use_id: str
    name: str

    def __init__(
        self, tool_use_id: str, name: str, *, agent_id: str = "main", parent_tool_use_id: str | None = None
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.tool_use_id = tool_use_id
        self.name = name


class ToolCallInputPreview(AgentEvent):
    """The tool input parsed so far (emitted whenever the streamed partial JSON becomes parseable)."""

    __slots__ = ("tool_use_id", "name", "input")

    tool_use_id: str
    name: str
    input: dict[str, Any]

    def __init__(
        self,
        tool_use_id: str,
        name: str,
        input: dict[str, Any],
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.tool_use_id = tool_use_id
        self.name = name
        self.input = input


class ToolCallCompleted(AgentEvent):
    __slots__ = ("tool_use_id", "name", "input", "input_error")

    tool_use_id: str
    name: str
    input: dict[str, Any]
    input_error: str | None

    def __init__(
        self,
        tool_use_id: str,
        name: str,
        input: dict[str, Any],
        input_error: str | None = None,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.tool_use_id = tool_use_id
        self.name = name
        self.input = input
        self.input_error = input_error


class AssistantMessage(AgentEvent):
    """One complete assistant message from the model (already appended to the history and transcript)."""

    __slots__ = ("message", "id", "model", "stop_reason", "usage", "uuid", "error")

    message: Message
    id: str
    model: str
    stop_reason: str | None
    usage: Usage
    uuid: str
    error: str | None  # a synthetic message standing for a failed call: the error kind

    def __init__(
        self,
        message: Message,
        id: str,
        model: str,
        stop_reason: str | None,
        usage: Usage,
        uuid: str,
        error: str | None = None,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.message = message
        self.id = id
        self.model = model
        self.stop_reason = stop_reason
        self.usage = usage
        self.uuid = uuid
        self.error = error


class ToolResultEvent(AgentEvent):
    __slots__ = ("tool_use_id", "name", "block", "data", "is_error")

    tool_use_id: str
    name: str
    block: Block  # the tool_result block the model will see
    data: Any  # structured output (tool_use_result)
    is_error: bool

    def __init__(
        self,
        tool_use_id: str,
        name: str,
        block: Block,
        data: Any = None,
        is_error: bool = False,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.tool_use_id = tool_use_id
        self.name = name
        self.block = block
        self.data = data
        self.is_error = is_error


class ToolResultsMessage(AgentEvent):
    """The user message carrying all tool results of one assistant message (appended to the history)."""

    __slots__ = ("message", "uuid", "results")

    message: Message
    uuid: str
    results: list[ToolResultEvent]

    def __init__(
        self,
        message: Message,
        uuid: str,
        results: list[ToolResultEvent] | None = None,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.message = message
        self.uuid = uuid
        self.results = [] if results is None else results


class ContinuationMessage(AgentEvent):
    """A user message the loop added to keep the query going (a Stop listener's feedback, such as the
    structured-output reminder); Claude Code writes it as a synthetic `user` line."""

    __slots__ = ("message", "uuid")

    message: Message
    uuid: str

    def __init__(
        self, message: Message, uuid: str, *, agent_id: str = "main", parent_tool_use_id: str | None = None
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.message = message
        self.uuid = uuid


class PermissionDecided(AgentEvent):
    __slots__ = ("tool_use_id", "tool_name", "input", "behavior", "source", "reason")

    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    behavior: Literal["allow", "deny"]
    source: str
    reason: str

    def __init__(
        self,
        tool_use_id: str,
        tool_name: str,
        input: dict[str, Any],
        behavior: Literal["allow", "deny"],
        source: str,
        reason: str = "",
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.tool_use_id = tool_use_id
        self.tool_name = tool_name
        self.input = input
        self.behavior = behavior
        self.source = source
        self.reason = reason


class UsageEvent(AgentEvent):
    __slots__ = ("model", "usage", "cost_usd", "total_cost_usd")

    model: str
    usage: Usage  # this round trip
    cost_usd: float
    total_cost_usd: float

    def __init__(
        self,
        model: str,
        usage: Usage,
        cost_usd: float,
        total_cost_usd: float,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.model = model
        self.usage = usage
        self.cost_usd = cost_usd
        self.total_cost_usd = total_cost_usd


class Notice(AgentEvent):
    """Something the user should know (retry, recovery, warnings). `kind` lets printers pick a format."""

    __slots__ = ("kind", "message", "data")

    kind: str  # "api_retry", "max_tokens_recovery", "warning", "info", ...
    message: str
    data: dict[str, Any]

    def __init__(
        self,
        kind: str,
        message: str,
        data: dict[str, Any] | None = None,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.kind = kind
        self.message = message
        self.data = {} if data is None else data


class TodosChanged(AgentEvent):
    """The session's todo list after a TodoWrite (front-ends show it; the transcript keeps it)."""

    __slots__ = ("todos",)

    todos: list[dict[str, Any]]

    def __init__(
        self, todos: list[dict[str, Any]], *, agent_id: str = "main", parent_tool_use_id: str | None = None
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.todos = todos


class TaskEvent(AgentEvent):
    """A step in a sub-agent's life as its parent sees it (the Agent tool's call): `started` (data:
    description, subagent_type, prompt, background, depth), `ended` (data: status, summary, output_file,
    total_tokens, tool_uses, duration_ms). Stream-json writes them as Claude Code's `task_*` lines."""

    __slots__ = ("phase", "task_id", "tool_use_id", "data")

    phase: Literal["started", "ended"]
    task_id: str
    tool_use_id: str
    data: dict[str, Any]

    def __init__(
        self,
        phase: Literal["started", "ended"],
        task_id: str,
        tool_use_id: str,
        data: dict[str, Any] | None = None,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.phase = phase
        self.task_id = task_id
        self.tool_use_id = tool_use_id
        self.data = {} if data is None else data


class Compacted(AgentEvent):
    __slots__ = ("trigger", "pre_tokens")

    trigger: Literal["manual", "auto"]
    pre_tokens: int

    def __init__(
        self,
        trigger: Literal["manual", "auto"],
        pre_tokens: int,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.trigger = trigger
        self.pre_tokens = pre_tokens


class TurnEnded(AgentEvent):
    __slots__ = ("turn", "stop_reason")

    turn: int
    stop_reason: str | None

    def __init__(
        self,
        turn: int,
        stop_reason: str | None,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.turn = turn
        self.stop_reason = stop_reason


class ModelUsage(Record):
    __slots__ = (
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "cost_usd",
    )

    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    cost_usd: float

    def __init__(
        self,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cache_read_input_tokens: int = 0,
        cache_creation_input_tokens: int = 0,
        cost_usd: float = 0.0,
    ) -> None:
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cache_read_input_tokens = cache_read_input_tokens
        self.cache_creation_input_tokens = cache_creation_input_tokens
        self.cost_usd = cost_usd


class Result(AgentEvent):
    __slots__ = (
        "reason",
        "is_error",
        "text",
        "num_turns",
        "duration_ms",
        "duration_api_ms",
        "total_cost_usd",
        "usage",
        "model_usage",
        "permission_denials",
        "stop_reason",
        "errors",
        "api_error_status",
        "structured_output",
    )

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
    stop_reason: str | None
    errors: list[str]
    api_error_status: int | None
    structured_output: Any  # --json-schema: the StructuredOutput tool's validated input

    def __init__(
        self,
        reason: TerminationReason,
        is_error: bool,
        text: str,
        num_turns: int,
        duration_ms: int,
        duration_api_ms: int,
        total_cost_usd: float,
        usage: Usage,
        model_usage: dict[str, ModelUsage],
        permission_denials: list[dict[str, Any]],
        stop_reason: str | None = None,
        errors: list[str] | None = None,
        api_error_status: int | None = None,
        structured_output: Any = None,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.reason = reason
        self.is_error = is_error
        self.text = text
        self.num_turns = num_turns
        self.duration_ms = duration_ms
        self.duration_api_ms = duration_api_ms
        self.total_cost_usd = total_cost_usd
        self.usage = usage
        self.model_usage = model_usage
        self.permission_denials = permission_denials
        self.stop_reason = stop_reason
        self.errors = [] if errors is None else errors
        self.api_error_status = api_error_status
        self.structured_output = structured_output


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
    | ContinuationMessage
    | PermissionDecided
    | UsageEvent
    | Notice
    | TodosChanged
    | TaskEvent
    | Compacted
    | TurnEnded
    | Result
)
