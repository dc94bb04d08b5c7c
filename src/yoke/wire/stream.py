"""Events as Claude Code's stream-json lines, in the order 2.1.330 writes them (docs/headless.md); which
method writes which event class is `wire/table.py`'s `WRITE`.

`StreamLines.lines(event)` is every line one event makes (most make none); it keeps what the order needs:
the session's id, denials held until their result, assistant blocks already written under
`--include-partial-messages`, and the status lines' state. Writing them is the front-end's business.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from yoke import events as ev
from yoke.ids import new_uuid
from yoke.messages import text_block
from yoke.wire.blocks import BlockAssembler
from yoke.wire.shapes import (
    KEEPS_IS_ERROR_FALSE,
    SILENT_NOTICES,
    api_message,
    denial_kind,
    denial_written,
    init_message,
    raw_stream_event,
    result_object,
)
from yoke.wire.status import StatusLines
from yoke.wire.table import WRITE
from yoke.wire.tasks import TaskLines


class StreamLines:
    def __init__(
        self,
        init_extra: dict[str, Any] | None = None,
        partial: bool = False,
        forward_subagent_text: bool = False,
    ) -> None:
        self.session_id = ""
        self.init_extra = init_extra or {}  # apiKeySource, and the session's init_fields
        self.blocks = BlockAssembler()  # --include-partial-messages: assistant lines as blocks end
        self.denials: dict[str, dict[str, Any]] = {}  # tool_use_id -> its permission_denied line
        # status "requesting" (under --include-partial-messages only), permission mode, thinking tokens
        self.status = StatusLines(self._system, partial=partial)
        self.tasks = TaskLines(self._system, forward_text=forward_subagent_text)  # sub-agents' task_* lines
        # the table's writer per event class (wire/table.py `WRITE`), bound once
        self._writers: dict[type, Callable[[Any], list[dict[str, Any]]]] = {
            cls: getattr(self, name) for cls, name in WRITE.items()
        }

    def lines(self, event: ev.Event) -> list[dict[str, Any]]:
        if isinstance(event, ev.SessionStarted):
            self.session_id = event.session_id
        status = self.status.lines(event)  # before a stream_event line (a thinking delta's), else after
        if isinstance(event, ev.StreamEvent):
            return [*status, *self._event_lines(event)]
        return [*self._event_lines(event), *status]

    def mode_changed(self, mode: str) -> list[dict[str, Any]]:
        """The status line for a permission mode change (none when the mode is the one last reported)."""
        return self.status.mode_changed(mode)

    def start_mode(self, mode: str) -> None:
        """The mode the session opened in: a change reported before the first query is measured from it."""
        self.status.mode = mode

    def _event_lines(self, event: ev.Event) -> list[dict[str, Any]]:
        """The stream-json objects for one event (most events print nothing): the method `wire/table.py`
        names for its class."""
        write = self._writers.get(type(event))
        return write(event) if write is not None else []

    def _init_lines(self, event: ev.SessionStarted) -> list[dict[str, Any]]:
        return [init_message(event, self.init_extra)]

    def _permission_lines(self, event: ev.PermissionDecided) -> list[dict[str, Any]]:
        if event.behavior == "deny" and denial_written(event.source):
            self.denials[event.tool_use_id] = self._denied(event)  # written just before its result
        return []

    def _compacted_lines(self, event: ev.Compacted) -> list[dict[str, Any]]:
        meta = {"trigger": event.trigger, "pre_tokens": event.pre_tokens}
        return [
            self._system("status", status="compacting"),
            self._system("compact_boundary", compact_metadata=meta),
            self._system("status", status=None, compact_result="success"),
        ]

    def _result_lines(self, event: ev.Result) -> list[dict[str, Any]]:
        return [result_object(event, self.session_id)]

    def _assistant_lines(self, event: ev.AssistantMessage) -> list[dict[str, Any]]:
        # one line per content block, all sharing the API message's id, as Claude Code streams them;
        # with partial messages on, those whose block already ended were written then
        skip = self.blocks.already_written(event.id)
        content = event.message["content"]
        blocks = content if isinstance(content, list) else [text_block(content)]
        lines: list[dict[str, Any]] = []
        first = self.tasks.progress_first(event)
        for shown in self.tasks.shown_blocks(event, blocks[skip:]):
            progress = self.tasks.progress(event, shown)  # a sub-agent's call: task_progress
            line = self._envelope("assistant", event, message=api_message(event, shown))
            lines += [*progress, line] if first else [line, *progress]
        if event.error:  # a synthetic message standing for a failed model call
            for line in lines:
                if line["type"] != "assistant":
                    continue
                line["message"]["stop_reason"] = event.stop_reason
                line["error"] = event.error
        return lines

    def _continuation_lines(self, event: ev.ContinuationMessage) -> list[dict[str, Any]]:
        content = event.message["content"]
        if isinstance(content, str):  # written as a list of blocks, as Claude Code writes it
            content = [{"type": "text", "text": content}]
        line = self._envelope("user", event, message={"role": "user", "content": content})
        line["isSynthetic"] = True
        return [line]

    def _task_lines(self, event: ev.TaskEvent) -> list[dict[str, Any]]:
        """A sub-agent's task_started (with its prompt, for a foreground one) or task_notification."""
        if event.phase == "ended":
            return self.tasks.ended(event)
        lines = self.tasks.started(event)
        if not event.data.get("background"):  # its prompt, as the first message of its conversation
            prompt: dict[str, Any] = {
                "role": "user",
                "content": [text_block(event.data.get("prompt", ""))],
            }
            line = self._envelope("user", event, message=prompt)
            line["parent_tool_use_id"] = event.tool_use_id
            lines.append(line)
        return lines

    def _stream_event_lines(self, event: ev.StreamEvent) -> list[dict[str, Any]]:
        """--include-partial-messages: the raw stream event, and a finished block's assistant line."""
        raw = raw_stream_event(event.event)
        lines = [self._envelope("stream_event", event, event=raw)] if raw is not None else []
        block = self.blocks.feed(event.event) if event.parent_tool_use_id is None else None
        if block is not None:  # the block's assistant line goes before its content_block_stop
            message = {
                "id": self.blocks.message_id,
                "type": "message",
                "role": "assistant",
                "model": self.blocks.model,
                "content": [block],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": self.blocks.usage,
            }
            lines.insert(0, self._envelope("assistant", event, message=message))
        return lines

    def _notice_lines(self, event: ev.Notice) -> list[dict[str, Any]]:
        if event.kind == "api_retry":
            return [self._system("api_retry", **event.data)]
        if event.kind in SILENT_NOTICES:
            return []
        if event.kind == "compaction_coming":  # before the work, as Claude Code says it; with the window used
            return [self._system("status", status="compacting", **event.data)]
        if event.kind == "stop_hook_blocked":  # after the hook's feedback line, as 2.1.330 writes it
            return [
                self._system("notification", key="stop-hook-error", text=event.message, priority="immediate")
            ]
        level = "warning" if event.kind == "warning" else "info"
        return [self._system("informational", content=event.message, level=level)]

    def _denied(self, event: ev.PermissionDecided) -> dict[str, Any]:
        """`system/permission_denied` for a denied call, written just before its result's `user` line (after
        the results of calls that ran before it), as 2.1.330 writes it: `decision_reason_type` says what
        denied it (shapes.denial_kind); a sub-agent's denial names the agent (`agent_id`)."""
        fields: dict[str, Any] = {"tool_name": event.tool_name, "tool_use_id": event.tool_use_id}
        kind = denial_kind(event.source, event.tool_name)
        if kind:
            fields["decision_reason_type"] = kind
        if event.parent_tool_use_id is not None:
            fields["agent_id"] = event.agent_id
        return self._system("permission_denied", **fields, message=event.reason)

    def _tool_results(self, event: ev.ToolResultsMessage) -> list[dict[str, Any]]:
        """One `user` line per tool result, carrying the tool's structured output as `tool_use_result`."""
        content = event.message["content"]
        data = {r.tool_use_id: r.data for r in event.results}
        names = {r.tool_use_id: r.name for r in event.results}
        lines = []
        for block in content if isinstance(content, list) else []:
            tool_use_id: str = block.get("tool_use_id", "")
            if block.get("is_error") is False and names.get(tool_use_id, "") not in KEEPS_IS_ERROR_FALSE:
                block = {k: v for k, v in block.items() if k != "is_error"}
            denial = self.denials.pop(tool_use_id, None)
            if denial is not None:
                lines.append(denial)
            line = self._envelope("user", event, message={"role": "user", "content": [block]})
            result_data = data.get(tool_use_id)
            if result_data is not None:
                line["tool_use_result"] = result_data
            lines.append(line)
        return lines

    def _envelope(self, kind: str, source: ev.AgentEvent, **fields: Any) -> dict[str, Any]:
        return {
            "type": kind,
            **fields,
            "parent_tool_use_id": source.parent_tool_use_id,
            "session_id": self.session_id,
            "uuid": new_uuid(),
        }

    def _system(self, subtype: str, **fields: Any) -> dict[str, Any]:
        return {
            "type": "system",
            "subtype": subtype,
            **fields,
            "session_id": self.session_id,
            "uuid": new_uuid(),
        }
