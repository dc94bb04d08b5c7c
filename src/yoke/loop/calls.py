"""What the executor works with: a tool call as the model asked it, its outcome, a batch's report, and how a
result reads (the error wrapper, notes appended, the interrupted answer). `loop/executor.py` runs the calls."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import field
from typing import Any, Protocol

from yoke.messages import Block, tool_result_block
from yoke.records import Record, dataclass
from yoke.tools.base import Tool, ToolContext

Emit = Callable[[Any], None]  # the query's event channel; tools' own events join it in order


class ToolObserver(Protocol):
    """A session collaborator that watches tool calls: checkpoints before a change, memory files after."""

    def before_change(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> None: ...

    def after_success(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> str | None:
        """Extra context for the model next to the result, or None."""
        ...


class ChangeReviewer(Protocol):
    """An observer that also waits on a change (language servers' diagnostics): `prepare_change` before a
    call that is not read-only runs, `review_change` after any call succeeded (it picks the calls it cares
    about), its text appended to the result. Each bounds its own waits; the executor calls them on the
    observers that have them."""

    async def prepare_change(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> None: ...

    async def review_change(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> str | None: ...


class ToolCall(Record):
    __slots__ = ("id", "name", "input", "input_error")

    id: str
    name: str
    input: dict[str, Any]
    input_error: str | None

    def __init__(self, id: str, name: str, input: dict[str, Any], input_error: str | None = None) -> None:
        self.id = id
        self.name = name
        self.input = input
        self.input_error = input_error


class CallOutcome(Record):
    __slots__ = ("call", "block", "data", "is_error", "denied", "stop_turn", "stop_query", "ends_query")

    call: ToolCall
    block: Block
    data: Any
    is_error: bool
    denied: bool
    stop_turn: bool  # the user denied and asked to stop
    stop_query: str  # a listener's `continue: false`: end the query with this reason
    ends_query: bool  # the tool's success is the query's answer (Tool.ends_query)

    def __init__(
        self,
        call: ToolCall,
        block: Block,
        data: Any = None,
        is_error: bool = False,
        denied: bool = False,
        stop_turn: bool = False,
        stop_query: str = "",
        ends_query: bool = False,
    ) -> None:
        self.call = call
        self.block = block
        self.data = data
        self.is_error = is_error
        self.denied = denied
        self.stop_turn = stop_turn
        self.stop_query = stop_query
        self.ends_query = ends_query


@dataclass
class ExecutionReport:
    outcomes: list[CallOutcome] = field(default_factory=list)
    stop_query: str = ""

    @property
    def stop_turn(self) -> bool:
        return any(o.stop_turn for o in self.outcomes)

    @property
    def ends_query(self) -> bool:
        return any(o.ends_query for o in self.outcomes)


def error_text(message: str) -> str:
    return f"<tool_use_error>{message}</tool_use_error>"


def first_text(content: str | list[Block]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


def json_text(data: Any) -> str:
    try:
        return json.dumps(data, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(data)


def with_notes(content: str | list[Block], notes: list[str]) -> str | list[Block]:
    notes = [n for n in notes if n]
    if not notes:
        return content
    text = "\n\n".join(notes)
    if isinstance(content, str):
        return f"{content}\n\n{text}"
    return [*content, {"type": "text", "text": text}]


def interrupted_block(call_id: str) -> Block:
    return tool_result_block(call_id, "[Request interrupted by user for tool use]", True)
