"""What every event is: an `AgentEvent`, stamped with the agent that produced it, and how a run ends."""

from __future__ import annotations

from typing import Literal

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
