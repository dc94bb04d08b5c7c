"""What a query writes into the history and the transcript: the model's answer accepted, the tool results of
a batch, and answers for calls left dangling (an interrupt, a bug), so the history stays valid for the next
request, a resume or another provider. `loop/run.py` decides when; these say what is written."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yoke import events as ev
from yoke.loop.calls import ExecutionReport, ToolCall, interrupted_block
from yoke.messages import Block, Message, tool_result_block, tool_uses, user_message
from yoke.providers import base as pb

if TYPE_CHECKING:
    from yoke.loop.turn import Agent


def accept_answer(agent: Agent, stop: pb.MessageStop, turns: int) -> list[ev.Event]:
    """The model's finished message into the history, the transcript and the ledger; its events."""
    message = stop.message
    if not message["content"]:
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": "(no content)"}],
        }  # the API refuses empty text
    agent.messages.append(message)
    uuid = agent.recorder.assistant(stop, message)
    agent.last_usage = stop.usage
    model = stop.model or agent.settings.model
    detail = agent.spend.answered(stop.usage, message)
    detail.update(agentId=agent.agent_id, parentToolUseId=agent.parent_tool_use_id, messageUuid=uuid)
    cost = agent.ledger.add(model, stop.usage, "turn", detail)
    return [
        ev.AssistantMessage(message, stop.id, model, stop.stop_reason, stop.usage, uuid),
        ev.UsageEvent(model, stop.usage, cost, agent.ledger.total_cost_usd, attribution=detail),
        *(ev.Notice("warning", text) for text in agent.ledger.take_notices()),
        ev.TurnEnded(turns, stop.stop_reason),
    ]


def calls_of(stop: pb.MessageStop) -> list[ToolCall]:
    return [
        ToolCall(b["id"], b["name"], b.get("input") or {}, stop.input_errors.get(b["id"]))
        for b in tool_uses(stop.message)
    ]


def answer_calls(agent: Agent, report: ExecutionReport) -> ev.ToolResultsMessage:
    """A batch's results as one user message; calls skipped after a stop are answered as not run."""
    blocks = [o.block for o in report.outcomes]
    answered = {o.call.id for o in report.outcomes}
    for use in tool_uses(agent.messages[-1]):  # calls skipped after a stop still need an answer
        if use["id"] not in answered:
            blocks.append(tool_result_block(use["id"], "Not run: the turn was stopped.", True))
    message = user_message(blocks)
    agent.messages.append(message)
    data = report.outcomes[0].data if len(report.outcomes) == 1 else None
    uuid = agent.recorder.user(message, tool_use_result=data)
    results = [
        ev.ToolResultEvent(o.call.id, o.call.name, o.block, o.data, o.is_error) for o in report.outcomes
    ]
    return ev.ToolResultsMessage(message, uuid, results)


def answer_dangling(
    agent: Agent, calls: list[ToolCall], finished: dict[str, Block], reason: str | None
) -> ev.ToolResultsMessage:
    """Answer every unanswered tool call (a result already produced is kept; None: interrupted)."""
    blocks = [
        finished.get(c.id)
        or (interrupted_block(c.id) if reason is None else tool_result_block(c.id, reason, True))
        for c in calls
    ]
    message = user_message(blocks)
    agent.messages.append(message)
    uuid = agent.recorder.user(message)
    return ev.ToolResultsMessage(message, uuid, [])


def dangling_calls(messages: list[Message]) -> list[ToolCall]:
    """The last assistant message's tool calls, if the history has no answer to them yet."""
    if not messages or messages[-1]["role"] != "assistant":
        return []
    return [ToolCall(u["id"], u["name"], u.get("input") or {}) for u in tool_uses(messages[-1])]
