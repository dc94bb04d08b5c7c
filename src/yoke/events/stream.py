"""Events of a model's answer as it streams: the session and turn starting, raw provider events, text and
thinking deltas, tool calls opening and completing, the finished assistant message."""

from __future__ import annotations

from typing import Any

from yoke.events.base import AgentEvent
from yoke.messages import Message
from yoke.providers.base import ProviderEvent, Usage


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
