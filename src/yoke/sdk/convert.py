"""Session events as the SDK's messages, field for field what `claude-agent-sdk` builds from a CLI's
stream-json lines: one AssistantMessage per content block, one UserMessage per tool result, the
ResultMessage with the same numbers the CLI's result line carries."""

from __future__ import annotations

from typing import Any

from yoke import events as ev
from yoke.ids import new_uuid
from yoke.sdk import types as t


def content_block(block: Any) -> t.ContentBlock | None:
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "text":
        return t.TextBlock(block.get("text", ""))
    if kind == "thinking":
        return t.ThinkingBlock(block.get("thinking", ""), block.get("signature", ""))
    if kind == "tool_use":
        return t.ToolUseBlock(block["id"], block["name"], block.get("input") or {})
    if kind == "tool_result":
        return t.ToolResultBlock(block["tool_use_id"], block.get("content"), block.get("is_error"))
    return None


class MessageConverter:
    def __init__(self, include_partial: bool = False, init_extra: dict[str, Any] | None = None):
        self.session_id = ""
        self.include_partial = include_partial
        self.init_extra = init_extra or {}  # slash_commands, skills, output_style, plugins of the session

    def messages(self, event: ev.Event) -> list[t.Message]:
        if isinstance(event, ev.SessionStarted):
            return [self._init(event)]
        if isinstance(event, ev.AssistantMessage):
            return self._assistant(event)
        if isinstance(event, ev.ToolResultsMessage):
            return self._tool_results(event)
        if isinstance(event, ev.StreamEvent) and self.include_partial:
            from yoke.wire.shapes import raw_stream_event

            raw = raw_stream_event(event.event)
            if raw is not None:
                return [t.StreamEvent(new_uuid(), self.session_id, raw, event.parent_tool_use_id)]
        if isinstance(event, ev.Notice) and event.kind == "diagnostics":
            return []  # the terminal's line under an edit; the model reads the diagnostics in the result
        if isinstance(event, ev.Notice):
            subtype = "api_retry" if event.kind == "api_retry" else "informational"
            return [
                t.SystemMessage(
                    subtype, {"type": "system", "subtype": subtype, "content": event.message, **event.data}
                )
            ]
        if isinstance(event, ev.Compacted):
            data = {"compact_metadata": {"trigger": event.trigger, "pre_tokens": event.pre_tokens}}
            return [
                t.SystemMessage("compact_boundary", {"type": "system", "subtype": "compact_boundary", **data})
            ]
        if isinstance(event, ev.Result):
            return [self._result(event)]
        return []

    def _init(self, event: ev.SessionStarted) -> t.SystemMessage:
        from yoke.wire.shapes import init_message

        self.session_id = event.session_id
        return t.SystemMessage("init", init_message(event, self.init_extra, yoke_version=False))

    def _assistant(self, event: ev.AssistantMessage) -> list[t.Message]:
        out: list[t.Message] = []
        for block in event.message["content"]:
            converted = content_block(block)
            if converted is None:
                continue
            out.append(
                t.AssistantMessage(
                    [converted],
                    event.model,
                    event.parent_tool_use_id,
                    usage=event.usage.as_dict(),
                    message_id=event.id,
                    session_id=self.session_id,
                    uuid=new_uuid(),
                )
            )
        return out

    def _tool_results(self, event: ev.ToolResultsMessage) -> list[t.Message]:
        data = {r.tool_use_id: r.data for r in event.results}
        out: list[t.Message] = []
        content = event.message["content"]
        for block in content if isinstance(content, list) else []:
            converted = content_block(block)
            if converted is None:
                continue
            result = data.get(str(block.get("tool_use_id") or ""))
            out.append(
                t.UserMessage(
                    [converted],
                    new_uuid(),
                    event.parent_tool_use_id,
                    result if isinstance(result, dict) else None,
                )
            )
        return out

    def _result(self, event: ev.Result) -> t.ResultMessage:
        from yoke.wire.shapes import result_object

        obj = result_object(event, self.session_id)
        return t.ResultMessage(
            subtype=obj["subtype"],
            duration_ms=obj["duration_ms"],
            duration_api_ms=obj["duration_api_ms"],
            is_error=obj["is_error"],
            num_turns=obj["num_turns"],
            session_id=obj["session_id"],
            stop_reason=obj.get("stop_reason"),
            total_cost_usd=obj.get("total_cost_usd"),
            usage=obj.get("usage"),
            result=obj.get("result"),
            structured_output=obj.get("structured_output"),
            model_usage=obj.get("modelUsage"),
            permission_denials=obj.get("permission_denials"),
            errors=obj.get("errors"),
            api_error_status=obj.get("api_error_status"),
            uuid=obj.get("uuid"),
            terminal_reason=obj.get("terminal_reason"),
        )
