"""Headless printers: map loop events to `--output-format text | json | stream-json`.

The shapes follow Claude Code's (see docs/headless.md): stream-json writes one JSON object per line and
flushes it the moment its event happens; json writes the single result object; text writes the final
answer. Diagnostics always go to stderr, never to stdout.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from yoke import __version__
from yoke import events as ev
from yoke.ids import new_uuid
from yoke.providers import base as pb

# The Claude Code release whose headless protocol Yoke speaks (the Agent SDKs check it is at least 2.0.0).
COMPAT_VERSION = "2.1.330"
# Claude Code writes `is_error: false` on a successful tool result only for these tools; the rest leave it out.
KEEPS_IS_ERROR_FALSE = frozenset({"Bash"})

# Notices Claude Code writes no stream-json line for (an MCP server's state is reported by `mcp_status`
# control requests and the init line's `mcp_servers`).
SILENT_NOTICES = frozenset({"mcp_status"})

# A denial's source (yoke.seams Decision.source, up to its first ":") -> permission_denied's
# decision_reason_type, where 2.1.330 wrote one on the same script (a mode, the classifier; none for a deny
# rule or when nobody could be asked: tests/cli/cc_2_1_330).
DENIAL_KINDS = {"mode": "mode", "classifier": "classifier"}

RESULT_SUBTYPES = {
    "completed": "success",
    "max_turns": "error_max_turns",
    "budget_exceeded": "error_max_budget_usd",
    "model_error": "success",  # Claude Code reports API errors as success + is_error, with the message
    "prompt_too_long": "success",
    "structured_output_retries": "error_max_structured_output_retries",
}


def result_object(result: ev.Result, session_id: str) -> dict[str, Any]:
    subtype = RESULT_SUBTYPES.get(result.reason, "error_during_execution")
    usage = result.usage.as_dict()
    usage["server_tool_use"] = {"web_search_requests": 0, "web_fetch_requests": 0}
    usage["service_tier"] = "standard"
    obj: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": result.is_error,
        "api_error_status": result.api_error_status,
        "duration_ms": result.duration_ms,
        "duration_api_ms": result.duration_api_ms,
        "num_turns": result.num_turns,
    }
    if subtype == "success":
        obj["result"] = result.text
    obj.update(
        {
            "stop_reason": result.stop_reason,
            "session_id": session_id,
            "total_cost_usd": round(result.total_cost_usd, 8),
            "usage": usage,
            "modelUsage": {
                model: {
                    "inputTokens": m.input_tokens,
                    "outputTokens": m.output_tokens,
                    "cacheReadInputTokens": m.cache_read_input_tokens,
                    "cacheCreationInputTokens": m.cache_creation_input_tokens,
                    "webSearchRequests": 0,
                    "costUSD": round(m.cost_usd, 8),
                    "contextWindow": _context_window(model),
                }
                for model, m in result.model_usage.items()
            },
            "permission_denials": result.permission_denials,
            "terminal_reason": result.reason,
            "uuid": new_uuid(),
        }
    )
    if result.structured_output is not None:
        obj["structured_output"] = result.structured_output
    if subtype != "success":
        obj["errors"] = result.errors
    return obj


def _context_window(model: str) -> int:
    from yoke.providers.tokens import context_window

    return context_window(model)


def raw_stream_event(event: pb.ProviderEvent) -> dict[str, Any] | None:
    """A provider event as the Anthropic SSE event it mirrors (for stream_event lines)."""
    if isinstance(event, pb.MessageStart):
        return {
            "type": "message_start",
            "message": {
                "id": event.id,
                "type": "message",
                "role": "assistant",
                "model": event.model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": event.usage.as_dict(),
            },
        }
    if isinstance(event, pb.BlockStart):
        return {"type": "content_block_start", "index": event.index, "content_block": event.block}
    if isinstance(event, pb.TextDelta):
        return _delta(event.index, {"type": "text_delta", "text": event.text})
    if isinstance(event, pb.ThinkingDelta):
        return _delta(event.index, {"type": "thinking_delta", "thinking": event.thinking})
    if isinstance(event, pb.SignatureDelta):
        return _delta(event.index, {"type": "signature_delta", "signature": event.signature})
    if isinstance(event, pb.ToolInputDelta):
        return _delta(event.index, {"type": "input_json_delta", "partial_json": event.partial_json})
    if isinstance(event, pb.BlockStop):
        return {"type": "content_block_stop", "index": event.index}
    if isinstance(event, pb.MessageDelta):
        return {
            "type": "message_delta",
            "delta": {"stop_reason": event.stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": event.usage.output_tokens},
        }
    if isinstance(event, pb.MessageStop):
        return {"type": "message_stop"}
    return None


def _api_message(event: ev.AssistantMessage, block: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": event.id,
        "type": "message",
        "role": "assistant",
        "model": event.model,
        "content": [block],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": event.usage.as_dict(),
    }


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


class Printer:
    """Base printer: remembers the result; subclasses decide what reaches stdout."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None):
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.session_id = ""
        self.result: ev.Result | None = None

    def handle(self, event: ev.Event) -> None:
        if isinstance(event, ev.SessionStarted):
            self.session_id = event.session_id
        elif isinstance(event, ev.Result):
            self.result = event
        self.on_event(event)

    def on_event(self, event: ev.Event) -> None:  # pragma: no cover - overridden
        pass

    def retry_line(self, event: ev.Event) -> None:
        """Text and json modes: a retry is said on stderr as it happens (stdout keeps only the result)."""
        if isinstance(event, ev.Notice) and event.kind == "api_retry":
            print(f"yoke: {event.message}", file=self.err, flush=True)

    def warn(self, message: str) -> None:
        print(message, file=self.err, flush=True)

    def note_mode(self, mode: str) -> None:
        """The session's permission mode now (stream-json reports a change; other formats ignore it)."""

    def start_mode(self, mode: str) -> None:
        """The mode the session opened in: a change reported before the first query is measured from it."""

    def emit(self, obj: dict[str, Any]) -> None:
        """One JSON line on stdout (stream-json messages, and control frames in every output format)."""
        self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.out.flush()


class TextPrinter(Printer):
    """stdout carries what a pipe expects, as Claude Code prints it: the answer, or the error that is the
    result (an API error's text, `Error: Reached max turns (N)`); other failures go to stderr."""

    def on_event(self, event: ev.Event) -> None:
        self.retry_line(event)
        if isinstance(event, ev.Result):
            print(text_mode_line(event), file=self.out if on_stdout(event) else self.err, flush=True)


def text_mode_line(result: ev.Result) -> str:
    if result.reason == "max_turns":  # Claude Code's wording in text mode
        return f"Error: Reached max turns ({max(result.num_turns - 1, 0)})"
    if result.is_error and result.reason not in ("model_error", "prompt_too_long"):
        return f"Error: {result.text}"
    return result.text


def on_stdout(result: ev.Result) -> bool:
    return not result.is_error or result.reason in ("max_turns", "model_error", "prompt_too_long")


class JsonPrinter(Printer):
    def on_event(self, event: ev.Event) -> None:
        self.retry_line(event)
        if isinstance(event, ev.Result):
            self.out.write(json.dumps(result_object(event, self.session_id)) + "\n")
            self.out.flush()


class StreamJsonPrinter(Printer):
    """One JSON object per line, written and flushed as each event happens."""

    def __init__(
        self, *args: Any, init_extra: dict[str, Any] | None = None, partial: bool = False, **kwargs: Any
    ):
        from yoke.cli.partial_blocks import BlockAssembler
        from yoke.cli.stream_status import StatusLines

        super().__init__(*args, **kwargs)
        self.init_extra = init_extra or {}
        self.blocks = BlockAssembler()  # --include-partial-messages: assistant lines as blocks end
        self.denials: dict[
            str, dict[str, Any]
        ] = {}  # tool_use_id -> its permission_denied line, until its result
        # status "requesting" (under --include-partial-messages only), permission mode, thinking tokens
        self.status = StatusLines(self._system, partial=partial)

    def on_event(self, event: ev.Event) -> None:
        status = self.status.lines(event)  # before a stream_event line (a thinking delta's), else after
        lines = (
            [*status, *self._lines(event)]
            if isinstance(event, ev.StreamEvent)
            else [*self._lines(event), *status]
        )
        for obj in lines:
            self.emit(obj)

    def note_mode(self, mode: str) -> None:
        for obj in self.status.mode_changed(mode):
            self.emit(obj)

    def start_mode(self, mode: str) -> None:
        self.status.mode = mode

    def _lines(self, event: ev.Event) -> list[dict[str, Any]]:
        """The stream-json objects for one event (most events print nothing)."""
        if isinstance(event, ev.SessionStarted):
            return [self._init(event)]
        if isinstance(event, ev.AssistantMessage):
            # one line per content block, all sharing the API message's id, as Claude Code streams them;
            # with partial messages on, those whose block already ended were written then
            skip = self.blocks.already_written(event.id)
            lines = [
                self._envelope("assistant", event, message=_api_message(event, block))
                for block in event.message["content"][skip:]
            ]
            if event.error:  # a synthetic message standing for a failed model call
                for line in lines:
                    line["message"]["stop_reason"] = event.stop_reason
                    line["error"] = event.error
            return lines
        if isinstance(event, ev.ToolResultsMessage):
            return self._tool_results(event)
        if isinstance(event, ev.ContinuationMessage):
            content = event.message["content"]
            if isinstance(content, str):  # written as a list of blocks, as Claude Code writes it
                content = [{"type": "text", "text": content}]
            line = self._envelope("user", event, message={"role": "user", "content": content})
            line["isSynthetic"] = True
            return [line]
        if isinstance(event, ev.PermissionDecided):
            if event.behavior == "deny" and event.parent_tool_use_id is None:
                self.denials[event.tool_use_id] = self._denied(event)  # written just before its result
            return []
        if isinstance(event, ev.StreamEvent):
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
        if isinstance(event, ev.Notice):
            if event.kind == "api_retry":
                return [self._system("api_retry", **event.data)]
            if event.kind in SILENT_NOTICES:
                return []
            level = "warning" if event.kind == "warning" else "info"
            return [self._system("informational", content=event.message, level=level)]
        if isinstance(event, ev.Compacted):
            meta = {"trigger": event.trigger, "pre_tokens": event.pre_tokens}
            return [
                self._system("status", status="compacting"),
                self._system("compact_boundary", compact_metadata=meta),
                self._system("status", status=None, compact_result="success"),
            ]
        if isinstance(event, ev.Result):
            return [result_object(event, self.session_id)]
        return []

    def _denied(self, event: ev.PermissionDecided) -> dict[str, Any]:
        """`system/permission_denied` for a denied call of the main conversation, written just before its
        result's `user` line (after the results of calls that ran before it), as 2.1.330 writes it: `decision_reason_type` says what denied it when a mode or the classifier did."""
        fields: dict[str, Any] = {"tool_name": event.tool_name, "tool_use_id": event.tool_use_id}
        kind = DENIAL_KINDS.get(event.source.split(":", 1)[0])
        if kind:
            fields["decision_reason_type"] = kind
        return self._system("permission_denied", **fields, message=event.reason)

    def _tool_results(self, event: ev.ToolResultsMessage) -> list[dict[str, Any]]:
        """One `user` line per tool result, carrying the tool's structured output as `tool_use_result`."""
        content = event.message["content"]
        data = {r.tool_use_id: r.data for r in event.results}
        names = {r.tool_use_id: r.name for r in event.results}
        lines = []
        for block in content if isinstance(content, list) else []:
            if (
                block.get("is_error") is False
                and names.get(block.get("tool_use_id")) not in KEEPS_IS_ERROR_FALSE
            ):
                block = {k: v for k, v in block.items() if k != "is_error"}
            denial = self.denials.pop(block.get("tool_use_id"), None)
            if denial is not None:
                lines.append(denial)
            line = self._envelope("user", event, message={"role": "user", "content": [block]})
            result_data = data.get(block.get("tool_use_id"))
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

    def _init(self, event: ev.SessionStarted) -> dict[str, Any]:
        obj = {
            "type": "system",
            "subtype": "init",
            "cwd": event.cwd,
            "session_id": event.session_id,
            "tools": event.tools,
            "mcp_servers": list(event.mcp_servers),
            "model": event.model,
            "permissionMode": event.permission_mode,
            "slash_commands": [],
            "apiKeySource": self.init_extra.get("apiKeySource", "none"),
            "claude_code_version": COMPAT_VERSION,
            "yoke_version": __version__,
            "output_style": "default",
            "agents": [],
            "skills": [],
            "plugins": [],
            "uuid": new_uuid(),
        }
        obj.update({k: v for k, v in self.init_extra.items() if k != "apiKeySource"})
        return obj


def make_printer(output_format: str, verbose: bool = False, **kwargs: Any) -> Printer:
    if output_format == "text" and verbose:
        from yoke.cli.progress import ProgressPrinter

        return ProgressPrinter()
    if output_format == "json":
        return JsonPrinter()
    if output_format == "stream-json":
        return StreamJsonPrinter(**kwargs)
    return TextPrinter()
