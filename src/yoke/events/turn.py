"""Events of a turn's work after the model answers: tool results, continuations, permission decisions, usage,
notices, todos, sub-agent tasks, compaction and the turn's end."""

from __future__ import annotations

from typing import Any, Literal

from yoke.events.base import AgentEvent
from yoke.messages import Block, Message
from yoke.providers.base import Usage


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
    __slots__ = ("model", "usage", "cost_usd", "total_cost_usd", "attribution")

    model: str
    usage: Usage  # this round trip
    cost_usd: float
    total_cost_usd: float
    attribution: dict[str, Any]  # why it cost what it did (`loop/spend.py`: cause, cacheMiss, newResults)

    def __init__(
        self,
        model: str,
        usage: Usage,
        cost_usd: float,
        total_cost_usd: float,
        *,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
        attribution: dict[str, Any] | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id
        self.model = model
        self.usage = usage
        self.cost_usd = cost_usd
        self.total_cost_usd = total_cost_usd
        self.attribution = {} if attribution is None else attribution


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
