"""Provider events to loop events: deltas, tool-call starts, input previews once the partial JSON parses,
tool-call completion, and retry notices (a broken stream's partial state is dropped)."""

from __future__ import annotations

from typing import Any

from yoke import events as ev
from yoke.jsonsafe import loads as safe_json
from yoke.providers import base as pb


class EventTranslator:
    """Turns provider events into loop events, including a preview of a tool's input once its JSON parses."""

    def __init__(self) -> None:
        self.tools: dict[int, tuple[str, str]] = {}
        self.partial: dict[int, str] = {}

    def translate(self, item: Any) -> list[ev.Event]:
        if isinstance(item, pb.TextDelta):
            return [ev.TextDelta(item.text)]
        if isinstance(item, pb.ThinkingDelta):
            return [ev.ThinkingDelta(item.thinking)]
        if isinstance(item, pb.BlockStart) and item.block.get("type") == "tool_use":
            self.tools[item.index] = (item.block.get("id", ""), item.block.get("name", ""))
            self.partial[item.index] = ""
            return [ev.ToolCallStarted(*self.tools[item.index])]
        if isinstance(item, pb.ToolInputDelta) and item.index in self.tools:
            text = self.partial[item.index] + item.partial_json
            self.partial[item.index] = text
            if text.rstrip().endswith("}"):  # only then can it parse; avoids a json.loads per fragment
                try:
                    parsed = safe_json(text)
                except ValueError:
                    return []
                if isinstance(parsed, dict):
                    return [ev.ToolCallInputPreview(*self.tools[item.index], parsed)]
            return []
        if isinstance(item, pb.BlockStop) and item.block.get("type") == "tool_use":
            return [
                ev.ToolCallCompleted(
                    item.block.get("id", ""),
                    item.block.get("name", ""),
                    item.block.get("input") or {},
                    item.input_error,
                )
            ]
        if isinstance(item, pb.ModelFallback):
            data = {"from_model": item.from_model, "to_model": item.to_model}
            return [ev.Notice("model_fallback", item.message, data)]
        if isinstance(item, pb.RetryNotice):
            if item.discard_partial:  # the stream broke off: what was streamed so far is superseded
                self.tools.clear()
                self.partial.clear()
                message = f"The response stream broke off ({item.error}); retrying once without streaming."
            else:
                what = f"API error {item.status}" if item.status else f"cannot reach the API ({item.error})"
                message = (
                    f"{what}; retrying in {item.delay_s:.1f}s (attempt {item.attempt}/{item.max_retries})"
                )
            return [
                ev.Notice(
                    "api_retry",
                    message,
                    {
                        "attempt": item.attempt,
                        "max_retries": item.max_retries,
                        "retry_delay_ms": int(item.delay_s * 1000),
                        "error_status": item.status,
                        "error": item.error,
                    },
                )
            ]
        return []
