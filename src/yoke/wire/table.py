"""Every event class, and how it travels as Claude Code's stream-json (`wire/stream.py` writes the lines,
`wire/decode.py` reads them back): the one list both directions answer to. `tests/host/test_wire_roundtrip.py`
checks that every class of `yoke.events.Event` and of the port's events is here, and sends every carried
one through both directions. A new event class fails that test until it is listed."""

from __future__ import annotations

from yoke import events as ev
from yoke.events import port

# event class -> (the line it makes, the class it reads back as); None: not on the wire, with why
CARRIED: dict[type, tuple[str, type] | None] = {
    ev.SessionStarted: ("system/init", ev.SessionStarted),
    ev.StreamEvent: ("stream_event (--include-partial-messages; hosted sessions always)", ev.TextDelta),
    ev.TextDelta: ("stream_event text_delta, or an assistant text block", ev.TextDelta),
    ev.ThinkingDelta: ("stream_event thinking_delta", ev.ThinkingDelta),
    ev.ToolCallStarted: ("assistant tool_use block", ev.ToolCallStarted),
    ev.ToolCallCompleted: ("assistant tool_use block", ev.ToolCallCompleted),
    ev.AssistantMessage: ("assistant (one line per content block)", ev.AssistantMessage),
    ev.ToolResultEvent: ("user tool_result block, tool_use_result", ev.ToolResultEvent),
    ev.ToolResultsMessage: ("user (one line per tool_result block)", ev.ToolResultEvent),
    ev.ContinuationMessage: ("user with isSynthetic", ev.ContinuationMessage),
    ev.Notice: ("system/informational, system/api_retry", ev.Notice),
    ev.Compacted: ("system/compact_boundary", ev.Compacted),
    ev.TaskEvent: ("system/task_started, system/task_notification", ev.TaskEvent),
    ev.Result: ("result", ev.Result),
    # not lines of their own: folded into others, or the session's own bookkeeping
    ev.TurnStarted: None,  # a model round trip begins: the assistant line says it
    ev.ToolCallInputPreview: None,  # partial tool input: the stream_event input_json_delta carries it
    ev.PermissionDecided: None,  # a denial is system/permission_denied beside its result (not read back)
    ev.UsageEvent: None,  # in the assistant line's usage and the result's
    ev.TodosChanged: None,  # the TodoWrite call and its result carry it
    ev.TurnEnded: None,  # the assistant line's stop_reason
}

# the port's own events: lines of the host's stream and its answers, read by `host/remote.py`
PORT_CARRIED: dict[type, str] = {
    port.TurnBegan: "user with isReplay (its uuid the prompt's id); a query without one: a follow-up",
    port.Asked: "control_request can_use_tool",
    port.Answered: "control_response",
    port.Idle: "the session.state notification with state idle",
    port.Queued: "the op method's answer ({id, position})",
}
