"""Claude Code's stream-json lines back into events: what a client of a hosted session (`host/remote.py`)
renders; which function reads which line kind is `wire/table.py`'s `READ`. The other direction is
`wire/stream.py`; `tests/host/test_wire_roundtrip.py` sends every event class
that has a line through both and compares.

`message_events(state, message, streamed)` keeps on `state` what the lines say about the session (its model,
permission mode and cost) and returns the message's events; `streamed`: text deltas of this message came as
`stream_event` lines already, so its assistant line adds no text again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypedDict, cast, get_args

from yoke import events as ev
from yoke.events import Usage
from yoke.messages import Message
from yoke.wire.table import READ


class _Where(TypedDict):
    """Which agent an event belongs to: the keyword arguments every agent event takes."""

    agent_id: str
    parent_tool_use_id: str | None


TERMINATION_REASONS: dict[str, ev.TerminationReason] = {
    reason: reason for reason in get_args(ev.TerminationReason)
}


def message_events(state: Any, message: dict[str, Any], streamed: bool) -> list[Any]:
    """The line's events: read by the function `wire/table.py`'s `READ` names for its kind."""
    kind = message.get("type")
    parent = message.get("parent_tool_use_id")
    where: _Where = {"agent_id": "sub" if parent else "main", "parent_tool_use_id": parent}
    name = READ.get(f"{kind}/{message.get('subtype')}") or READ.get(str(kind))
    return _READERS[name](state, message, streamed, where) if name else []


def _stream_events(state: Any, message: dict[str, Any], streamed: bool, where: _Where) -> list[Any]:
    delta = (message.get("event") or {}).get("delta") or {}
    if delta.get("type") == "text_delta":
        return [ev.TextDelta(str(delta.get("text") or ""), **where)]
    if delta.get("type") == "thinking_delta":
        return [ev.ThinkingDelta(str(delta.get("thinking") or ""), **where)]
    return []


def _user_events(state: Any, message: dict[str, Any], streamed: bool, where: _Where) -> list[Any]:
    """A synthetic user line (a continuation), or tool results, one event per tool_result block."""
    if message.get("isSynthetic"):
        body = cast(Message, {"role": "user", "content": (message.get("message") or {}).get("content")})
        return [ev.ContinuationMessage(body, str(message.get("uuid") or ""), **where)]
    content = (message.get("message") or {}).get("content")
    if not isinstance(content, list):
        return []
    return [
        ev.ToolResultEvent(
            str(block.get("tool_use_id")), "", block, message.get("tool_use_result"), bool(block.get("is_error")),
            **where,
        )
        for block in content
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]  # fmt: skip


def _assistant_events(state: Any, message: dict[str, Any], streamed: bool, where: _Where) -> list[Any]:
    """An assistant message: its text (unless it was streamed), its tool calls, then the message itself."""
    body: dict[str, Any] = message.get("message") or {}
    out: list[Any] = []
    for block in body.get("content") or []:
        if block.get("type") == "text" and not streamed:
            out.append(ev.TextDelta(str(block.get("text") or ""), **where))
        elif block.get("type") == "tool_use":
            out.append(ev.ToolCallStarted(str(block.get("id")), str(block.get("name")), **where))
            out.append(
                ev.ToolCallCompleted(
                    str(block.get("id")), str(block.get("name")), block.get("input") or {}, **where
                )
            )
    out.append(
        ev.AssistantMessage(
            cast(Message, body),  # an API message: a Message with its id, model and usage beside
            str(body.get("id") or ""),
            str(body.get("model") or ""),
            body.get("stop_reason"),
            Usage.from_dict(body.get("usage")),
            str(message.get("uuid") or ""),
            **where,
        )
    )
    return out


def _result_events(state: Any, message: dict[str, Any], streamed: bool, where: _Where) -> list[Any]:
    """The hosted session's result line, as the `Result` event (its cost kept on the session)."""
    state.total_cost_usd = float(message.get("total_cost_usd") or 0)
    text = str(message.get("result") or "; ".join(message.get("errors") or []))
    # absent, or a reason this version does not know: what is_error tells
    reason: ev.TerminationReason = TERMINATION_REASONS.get(str(message.get("terminal_reason"))) or (
        "completed" if not message.get("is_error") else "model_error"
    )
    usage = Usage.from_dict(message.get("usage"))
    return [
        ev.Result(reason, bool(message.get("is_error")), text, int(message.get("num_turns") or 0),
                  int(message.get("duration_ms") or 0), int(message.get("duration_api_ms") or 0),
                  state.total_cost_usd, usage, {}, list(message.get("permission_denials") or []), **where)
    ]  # fmt: skip


def _init_events(state: Any, message: dict[str, Any], streamed: bool, where: _Where) -> list[Any]:
    """system/init: the session's model and mode kept on `state`."""
    state.model = str(message.get("model") or state.model)
    state.permission_mode = str(message.get("permissionMode") or state.permission_mode)
    if isinstance(message.get("profile"), str) and hasattr(state, "profile"):
        state.profile = message["profile"]  # a Yoke extension of system/init (yoke profile)
    return [
        ev.SessionStarted(
            str(message.get("session_id") or ""), state.model, str(message.get("cwd") or ""),
            [str(t) for t in message.get("tools") or []], state.permission_mode, "",
            list(message.get("mcp_servers") or []), **where,
        )
    ]  # fmt: skip


def _notice_events(state: Any, message: dict[str, Any], streamed: bool, where: _Where) -> list[Any]:
    if message.get("subtype") == "api_retry":
        data = {k: v for k, v in message.items() if k not in ENVELOPE}
        return [ev.Notice("api_retry", "", data, **where)]
    kind = "warning" if message.get("level") == "warning" else "info"
    return [ev.Notice(kind, str(message.get("content") or ""), **where)]


def _compacted_events(state: Any, message: dict[str, Any], streamed: bool, where: _Where) -> list[Any]:
    meta = message.get("compact_metadata") or {}
    trigger: Literal["manual", "auto"] = "auto" if meta.get("trigger") == "auto" else "manual"
    return [ev.Compacted(trigger, int(meta.get("pre_tokens") or 0), **where)]


def _task_events(state: Any, message: dict[str, Any], streamed: bool, where: _Where) -> list[Any]:
    data = {k: v for k, v in message.items() if k not in ENVELOPE and k not in ("task_id", "tool_use_id")}
    phase: Literal["started", "ended"] = "started" if message.get("subtype") == "task_started" else "ended"
    return [
        ev.TaskEvent(
            phase, str(message.get("task_id") or ""), str(message.get("tool_use_id") or ""), data, **where
        )
    ]


ENVELOPE = ("type", "subtype", "session_id", "uuid", "parent_tool_use_id")

# the table's reader functions by name (a name `READ` gives that is not here fails at import)
_READERS: dict[str, Callable[[Any, dict[str, Any], bool, _Where], list[Any]]] = {
    name: globals()[name] for name in set(READ.values())
}
