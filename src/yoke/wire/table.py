"""Every event class, and how it travels as Claude Code's stream-json: the one table both directions are
driven by. Per class: the lines it makes (`type`, or `type/subtype`), the `StreamLines` method that writes
them (`wire/stream.py`, through `WRITE`), the `wire/decode.py` function that reads such a line back (through
`READ`, by line kind), and the class it reads back as. `tests/host/test_wire_roundtrip.py` checks that every
class of `yoke.events.Event` and of the port's events is here, and sends every carried one through both
directions. A new event class fails that test until it is listed."""

from __future__ import annotations

from typing import NamedTuple

from yoke import events as ev
from yoke.events import port


class Row(NamedTuple):
    says: str  # the line it makes, in words (docs/headless.md orders them)
    read_as: type | None  # the class its lines read back as; None: not read back
    lines: tuple[str, ...] = ()  # the line kinds it writes: `type` or `type/subtype`
    write: str = ""  # the `StreamLines` method that writes it ("": no line of its own)
    read: str = ""  # the `wire/decode.py` function that reads its lines
    unread: tuple[str, ...] = ()  # line kinds it also writes that no event is read back from


ROWS: dict[type, Row] = {
    ev.SessionStarted: Row("system/init", ev.SessionStarted, ("system/init",), "_init_lines", "_init_events"),
    ev.StreamEvent: Row(
        "stream_event (--include-partial-messages; hosted sessions always)",
        ev.TextDelta, ("stream_event",), "_stream_event_lines", "_stream_events",
    ),
    ev.TextDelta: Row("stream_event text_delta, or an assistant text block", ev.TextDelta),
    ev.ThinkingDelta: Row("stream_event thinking_delta", ev.ThinkingDelta),
    ev.ToolCallStarted: Row("assistant tool_use block", ev.ToolCallStarted),
    ev.ToolCallCompleted: Row("assistant tool_use block", ev.ToolCallCompleted),
    ev.AssistantMessage: Row(
        "assistant (one line per content block)",
        ev.AssistantMessage, ("assistant",), "_assistant_lines", "_assistant_events",
        ("system/task_progress",),  # beside a sub-agent's tool call
    ),
    ev.ToolResultEvent: Row("user tool_result block, tool_use_result", ev.ToolResultEvent),
    ev.ToolResultsMessage: Row(
        "user (one line per tool_result block)", ev.ToolResultEvent, ("user",), "_tool_results", "_user_events"
    ),
    ev.ContinuationMessage: Row(
        "user with isSynthetic", ev.ContinuationMessage, ("user",), "_continuation_lines", "_user_events"
    ),
    ev.Notice: Row(
        "system/informational, system/api_retry",
        ev.Notice, ("system/informational", "system/api_retry"), "_notice_lines", "_notice_events",
        ("system/notification",),  # a Stop hook that blocked
    ),
    ev.Compacted: Row(
        "system/compact_boundary",
        ev.Compacted, ("system/compact_boundary",), "_compacted_lines", "_compacted_events",
    ),
    ev.TaskEvent: Row(
        "system/task_started, system/task_notification",
        ev.TaskEvent, ("system/task_started", "system/task_notification"), "_task_lines", "_task_events",
        ("user", "system/task_updated", "system/background_tasks_changed"),  # a foreground one's prompt
    ),
    ev.Result: Row("result", ev.Result, ("result",), "_result_lines", "_result_events"),
    # not lines of their own: folded into others, or the session's own bookkeeping
    ev.TurnStarted: Row("", None),  # a model round trip begins: the assistant line says it
    ev.ToolCallInputPreview: Row("", None),  # partial tool input: the stream_event input_json_delta carries it
    # a denial is system/permission_denied beside its result (held until then; not read back)
    ev.PermissionDecided: Row("", None, ("system/permission_denied",), "_permission_lines"),
    ev.UsageEvent: Row("", None),  # in the assistant line's usage and the result's
    ev.TodosChanged: Row("", None),  # the TodoWrite call and its result carry it
    ev.TurnEnded: Row("", None),  # the assistant line's stop_reason
}  # fmt: skip

# event class -> (the line it makes, the class it reads back as); None: not on the wire
CARRIED: dict[type, tuple[str, type] | None] = {
    cls: (row.says, row.read_as) if row.says and row.read_as is not None else None
    for cls, row in ROWS.items()
}
# the writer: event class -> its StreamLines method
WRITE: dict[type, str] = {cls: row.write for cls, row in ROWS.items() if row.write}
# the reader: line kind (`type/subtype`, else `type`) -> its decode function
READ: dict[str, str] = {kind: row.read for row in ROWS.values() if row.read for kind in row.lines}

# the port's own events: lines of the host's stream and its answers, read by `host/remote.py`
PORT_CARRIED: dict[type, str] = {
    port.TurnBegan: "user with isReplay (its uuid the prompt's id), or system unattended_turn (a prompt no "
    "person started); a query without either: a follow-up",
    port.Asked: "control_request can_use_tool",
    port.Answered: "control_response",
    port.Idle: "the session.state notification with state idle",
    port.Queued: "the op method's answer ({id, position})",
}
