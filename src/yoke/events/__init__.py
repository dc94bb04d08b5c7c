"""The session's event stream: the only thing front-ends consume.

A small closed set of records (`yoke.records.Record`: plain slotted classes, no per-import cost), read-only by
contract. Every front-end (text/json/stream-json printers, REPL, SDK, ACP)
is one module mapping these to its own format. Every event says which agent produced it: `agent_id` is
"main" for the session itself; a sub-agent's events carry its id and the tool call that started it
(`parent_tool_use_id`), so stream-json can fill `parent_tool_use_id` and a UI can nest them.

The records live in `base` (what every event is), `stream` (a model answer as it streams), `turn` (the
turn's work after it) and `result` (the last event and the `Event` union); all are named here, as they
always were: `from yoke import events as ev; ev.TextDelta`.
"""

from __future__ import annotations

from yoke.events.base import AgentEvent, TerminationReason, from_agent
from yoke.events.result import Event, ModelUsage, Result
from yoke.events.stream import (
    AssistantMessage,
    SessionStarted,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallCompleted,
    ToolCallInputPreview,
    ToolCallStarted,
    TurnStarted,
)
from yoke.events.turn import (
    Compacted,
    ContinuationMessage,
    Notice,
    PermissionDecided,
    TaskEvent,
    TodosChanged,
    ToolResultEvent,
    ToolResultsMessage,
    TurnEnded,
    UsageEvent,
)
from yoke.messages import Block, Message
from yoke.providers.base import ProviderEvent, Usage

__all__ = [
    "AgentEvent",
    "AssistantMessage",
    "Block",
    "Compacted",
    "ContinuationMessage",
    "Event",
    "Message",
    "ModelUsage",
    "Notice",
    "PermissionDecided",
    "ProviderEvent",
    "Result",
    "SessionStarted",
    "StreamEvent",
    "TaskEvent",
    "TerminationReason",
    "TextDelta",
    "ThinkingDelta",
    "TodosChanged",
    "ToolCallCompleted",
    "ToolCallInputPreview",
    "ToolCallStarted",
    "ToolResultEvent",
    "ToolResultsMessage",
    "TurnEnded",
    "TurnStarted",
    "Usage",
    "UsageEvent",
    "from_agent",
]
