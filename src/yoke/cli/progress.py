"""A human-readable live view of a headless run (`-p --verbose` in text mode, and the demo)."""

from __future__ import annotations

import json
from typing import Any

from yoke import events as ev
from yoke.cli.printers import Printer, on_stdout, text_mode_line
from yoke.messages import result_text

MAX_RESULT_LINES = 6


class ProgressPrinter(Printer):
    """Shows each step as it happens on stderr (the model's words, each tool call, a few lines of each
    result); stdout gets only the final answer, as in plain text mode, so pipes keep working."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._text_open = False

    def on_event(self, event: ev.Event) -> None:
        self._show(event)
        if isinstance(event, ev.Result):
            stream = self.out if on_stdout(event) else self.err
            print(text_mode_line(event), file=stream, flush=True)

    def _show(self, event: ev.Event) -> None:
        w = self.err.write
        if isinstance(event, ev.SessionStarted):
            w(f"· session {event.session_id} · model {event.model} · {event.cwd}\n")
        elif isinstance(event, ev.TextDelta):
            if not self._text_open:
                w("\n")
                self._text_open = True
            w(event.text)
        elif isinstance(event, ev.AssistantMessage):
            if self._text_open:
                w("\n")
                self._text_open = False
            for block in event.message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    w(f"● {block['name']}({_brief(block.get('input'))})\n")
        elif isinstance(event, ev.ToolResultsMessage):
            for result in event.results:
                self._result(result)
        elif isinstance(event, ev.Notice):
            w(f"  ! {event.message}\n")
        elif isinstance(event, ev.TodosChanged):
            marks = {"completed": "☒", "in_progress": "◐"}
            for todo in event.todos:
                w(f"  {marks.get(todo.get('status', ''), '☐')} {todo.get('content', '')}\n")
        elif isinstance(event, ev.Result):
            if self._text_open:
                w("\n")
            status = "done" if not event.is_error else f"stopped: {event.reason}"
            w(
                f"\n── {status} · {event.num_turns} turns · {event.duration_ms / 1000:.1f}s"
                f" · ${event.total_cost_usd:.4f}\n"
            )
        self.err.flush()

    def _result(self, result: ev.ToolResultEvent) -> None:
        text = result_text(result.block.get("content", "")).rstrip()
        lines = text.splitlines() or ["(no output)"]
        mark = "✗" if result.is_error else "⎿"
        shown = lines[:MAX_RESULT_LINES]
        self.err.write(f"  {mark} {shown[0]}\n")
        for line in shown[1:]:
            self.err.write(f"    {line}\n")
        if len(lines) > MAX_RESULT_LINES:
            self.err.write(f"    … {len(lines) - MAX_RESULT_LINES} more lines\n")


def _brief(value: Any, limit: int = 90) -> str:
    if isinstance(value, dict):
        for key in ("command", "file_path", "pattern", "url", "notebook_path"):
            if key in value:
                text = str(value[key])
                return text if len(text) <= limit else text[: limit - 1] + "…"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
