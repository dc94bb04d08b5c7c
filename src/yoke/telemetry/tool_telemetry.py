"""Tool calls as telemetry: each call's span, its permission decision (`tool_decision`), its result
(`tool_result`, with its duration and size) and what it changed (lines of code, commits, pull requests,
edit decisions), plus `OpenSpan`, a span chosen on the hot path and finished later. `TelemetryObserver`
(observer.py) inherits these handlers."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.redact import redact_text
from yoke.telemetry.attributes import (
    EDIT_TOOLS,
    GH_PR_CREATE,
    GIT_COMMIT,
    changed_lines,
    decision_source,
    json_text,
    language_of,
    new_span_id,
    text_of,
)


class OpenSpan:
    """A span chosen on the hot path and finished later: its ids, start and attributes."""

    __slots__ = ("span_id", "parent_id", "start_ns", "attrs", "first_token_ns")

    def __init__(self, parent_id: int, attrs: dict[str, Any]) -> None:
        self.span_id = new_span_id()
        self.parent_id = parent_id
        self.start_ns = time.time_ns()
        self.attrs = attrs
        self.first_token_ns = 0


class ToolTelemetry:
    # what these handlers use of `TelemetryObserver`, which inherits them
    tools: dict[str, OpenSpan]
    tool_inputs: dict[str, tuple[str, dict[str, Any], int]]
    decided: dict[str, int]
    _model: str

    if TYPE_CHECKING:

        def metric(self, name: str, value: float, attrs: dict[str, Any]) -> None: ...

        def log(self, name: str, attrs: dict[str, Any]) -> None: ...

        def span(self, name: str, span: OpenSpan, end_ns: int, error: str = "") -> None: ...

        def _parent_for(self, event: ev.AgentEvent) -> int: ...

    def _tool_called(self, event: ev.ToolCallCompleted) -> None:
        attrs = {
            "span.type": "tool",
            "tool_name": event.name,
            "tool_use_id": event.tool_use_id,
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.name,
        }
        self.tools[event.tool_use_id] = OpenSpan(self._parent_for(event), attrs)
        size = len(json_text(event.input))
        self.tool_inputs[event.tool_use_id] = (event.name, event.input, size)

    def _decided(self, event: ev.PermissionDecided) -> None:
        decision = "accept" if event.behavior == "allow" else "reject"
        source = decision_source(event.source, event.behavior)
        self.log(
            "tool_decision",
            {
                "decision": decision,
                "source": source,
                "tool_name": event.tool_name,
                "tool_use_id": event.tool_use_id,
            },
        )
        if event.tool_name in EDIT_TOOLS:
            path = str(event.input.get("file_path") or event.input.get("notebook_path") or "")
            self.metric(
                "claude_code.code_edit_tool.decision",
                1,
                {
                    "decision": decision,
                    "source": source,
                    "tool_name": event.tool_name,
                    "language": language_of(path),
                },
            )
        tool = self.tools.get(event.tool_use_id)
        now = time.time_ns()
        self.decided[event.tool_use_id] = now
        if tool is not None:
            tool.attrs["decision"] = decision
            tool.attrs["source"] = source
            waited = OpenSpan(
                tool.span_id, {"span.type": "tool.blocked_on_user", "decision": decision, "source": source}
            )
            waited.start_ns = tool.start_ns
            self.span("claude_code.tool.blocked_on_user", waited, now)

    def _tool_result(self, event: ev.ToolResultEvent) -> None:
        now = time.time_ns()
        name, input, input_size = self.tool_inputs.pop(event.tool_use_id, (event.name, {}, 0))
        tool = self.tools.pop(event.tool_use_id, None)
        decided = self.decided.pop(event.tool_use_id, 0)
        result_size = len(json_text(event.block.get("content", "")))
        duration_ms = (now - tool.start_ns) // 1_000_000 if tool is not None else 0
        fields: dict[str, Any] = {
            "tool_name": name,
            "tool_use_id": event.tool_use_id,
            "success": "false" if event.is_error else "true",
            "duration_ms": str(duration_ms),
            "tool_input_size_bytes": str(input_size),
            "tool_result_size_bytes": str(result_size),
        }
        error = text_of({"content": [event.block]}) if event.is_error else ""
        if error:
            fields["error"] = redact_text(error)[:500]  # a failed command's output: its secrets masked
        self.log("tool_result", fields)
        if not event.is_error:
            self._counted_effects(name, input, event)
        if tool is not None:
            tool.attrs.update(
                {"duration_ms": duration_ms, "success": not event.is_error, "result_size_bytes": result_size}
            )
            if decided:
                run = OpenSpan(
                    tool.span_id,
                    {
                        "span.type": "tool.execution",
                        "success": not event.is_error,
                        "duration_ms": (now - decided) // 1_000_000,
                    },
                )
                run.start_ns = decided
                self.span(
                    "claude_code.tool.execution", run, now, error="tool error" if event.is_error else ""
                )
            self.span("claude_code.tool", tool, now, error=error[:200])

    def _counted_effects(self, name: str, input: dict[str, Any], event: ev.ToolResultEvent) -> None:
        if name in EDIT_TOOLS:
            added, removed = changed_lines(event.data)
            model = self._model
            if added:
                self.metric("claude_code.lines_of_code.count", added, {"type": "added", "model": model})
            if removed:
                self.metric("claude_code.lines_of_code.count", removed, {"type": "removed", "model": model})
        elif name == "Bash":
            command = str(input.get("command") or "")
            if GIT_COMMIT.search(command):
                self.metric("claude_code.commit.count", 1, {})
            if GH_PR_CREATE.search(command):
                self.metric("claude_code.pull_request.count", 1, {})
