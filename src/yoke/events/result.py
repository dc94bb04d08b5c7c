"""The query's last event (`Result`, with per-model usage) and `Event`, the closed set front-ends consume."""

from __future__ import annotations

from typing import Any

from yoke.events.base import AgentEvent, TerminationReason
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
from yoke.providers.base import Usage
from yoke.records import Record


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
