"""The conversation as the terminal shows it: session events in, finished lines out to scrollback, and a
small live part (the Markdown block being streamed, a thinking line) that the prompt redraws in place.

Nothing here depends on how long the conversation is: each event touches only the current block.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text

from yoke.ui.markdown_stream import MarkdownStream
from yoke.ui.paint import Painter
from yoke.ui.tool_view import call_line, result_lines, todo_lines

if TYPE_CHECKING:
    from yoke import events as ev


class ConversationView:
    def __init__(self, painter: Painter, emit: Callable[[str], None], cwd: str):
        self.painter = painter
        self.emit = emit  # writes finished ANSI text into the scrollback
        self.cwd = cwd
        self.md = MarkdownStream()
        self.thinking = ""
        self.thinking_started = 0.0
        self.calls: dict[str, tuple[str, dict[str, Any]]] = {}
        self.shown_results: set[str] = set()
        self.diagnostics: dict[str, str] = {}  # tool_use_id -> an edit's diagnostics line, shown under it
        # Ctrl+O: the results of the latest turn that were shown cut short (call line, result), and
        # whether the expanded view is on (results then shown whole as they come)
        self.cut_results: list[tuple[Text, tuple[str, dict[str, Any], Any, Any, bool]]] = []
        self.expanded = False
        self.output_tokens = 0  # this turn, estimated while streaming, exact after each response
        self._streamed_chars = 0
        self._counted_tokens = 0
        self._live_key: tuple[str, int] | None = None
        self._live_ansi = ""
        self.version = 0  # bumped whenever the live part changes
        self.todos: list[dict[str, Any]] | None = None  # shown live while the turn runs, printed at its end

    # ---- the live part ----------------------------------------------------------------------------------

    def live_ansi(self, width: int, max_lines: int) -> str:
        key = (self.md.text + "\0" + self.thinking[-200:] + "\0" + str(self.version), width)
        if key != self._live_key:
            parts = []
            if self.todos:
                parts.append(self.painter.ansi(*todo_lines(self.todos), width=width))
            if self.thinking:
                last = " ".join(self.thinking.split())[-(width - 4) :]
                parts.append(self.painter.ansi(Text(f"✻ {last}", style="dim italic"), width=width))
            if self.md.text.strip():
                text = self.md.text + ("\n```" if self.md.in_code else "")
                parts.append(self.painter.markdown(text, width=width))
            rendered = "".join(parts).rstrip("\n")
            lines = rendered.split("\n")
            self._live_ansi = "\n".join(lines[-max_lines:]) if len(lines) > max_lines else rendered
            self._live_key = key
        return self._live_ansi

    @property
    def tokens(self) -> int:
        return self._counted_tokens + self._streamed_chars // 4

    def reset_turn(self) -> None:
        self._counted_tokens = 0
        self._streamed_chars = 0
        self.cut_results.clear()  # Ctrl+O expands the latest turn's; memory stays bounded

    # ---- events -----------------------------------------------------------------------------------------

    def on_event(self, event: ev.Event) -> None:
        from yoke import events as ev  # loaded with the session, after the prompt is on screen

        nested = event.agent_id != "main"
        if nested:
            self._nested(event)
            return
        if isinstance(event, ev.TextDelta):
            self._flush_thinking()
            self._streamed_chars += len(event.text)
            done = self.md.feed(event.text)
            if done:
                self.emit(self.painter.markdown(done))
            self.version += 1
        elif isinstance(event, ev.ThinkingDelta):
            if not self.thinking:
                self.thinking_started = time.monotonic()
            self.thinking += event.thinking
            self._streamed_chars += len(event.thinking)
            self.version += 1
        elif isinstance(event, ev.ToolCallStarted):
            self.finish_text()
        elif isinstance(event, ev.ToolCallCompleted):
            self.calls[event.tool_use_id] = (event.name, dict(event.input))
            if event.name != "TodoWrite":
                self.emit(self.painter.ansi(call_line(event.name, event.input, self.cwd)))
        elif isinstance(event, ev.AssistantMessage):
            self.finish_text()
            self._streamed_chars = 0
            self._counted_tokens += int(getattr(event.usage, "output_tokens", 0) or 0)
        elif isinstance(event, ev.ToolResultEvent):
            self._result(event)
        elif isinstance(event, ev.ToolResultsMessage):
            for result in event.results:
                self._result(result)
        elif isinstance(event, ev.TodosChanged):
            self.todos = list(event.todos)  # updated in place in the live area
            self.version += 1
        elif isinstance(event, ev.Notice):
            self._notice(event)
        elif isinstance(event, ev.Compacted):
            self.finish_text()
            self.emit(
                self.painter.ansi(
                    Text(f"✻ Conversation compacted ({event.pre_tokens:,} tokens before)", style="dim")
                )
            )
        elif isinstance(event, ev.Result):
            self.finish_text()
            if self.todos:
                self.emit(self.painter.ansi(*todo_lines(self.todos)))
            self.todos = None
            self._result_line(event)
            # what was kept to pair calls with results is not needed past the turn: memory stays bounded
            self.calls.clear()
            self.shown_results.clear()

    def _notice(self, event: ev.Notice) -> None:
        if event.kind == "diagnostics" and event.data.get("tool_use_id"):  # comes before its edit's result
            self.diagnostics[str(event.data["tool_use_id"])] = event.message
            return
        warning = event.kind in ("warning", "api_retry")
        line = f"  ⚠ {event.message}" if warning else f"  {event.message}"
        self.emit(self.painter.ansi(Text(line, style="yellow" if warning else "dim")))

    def finish_text(self) -> None:
        self._flush_thinking()
        rest = self.md.finish()
        if rest.strip():
            self.emit(self.painter.markdown(rest))
        self.version += 1

    def _flush_thinking(self) -> None:
        if not self.thinking:
            return
        seconds = max(1, round(time.monotonic() - self.thinking_started))
        lines = [line for line in self.thinking.strip().splitlines() if line.strip()]
        shown = " ".join(lines[0].split())[: self.painter.width - 24] if lines else ""
        more = "…" if len(lines) > 1 or len(shown) < len(lines[0] if lines else "") else ""
        self.emit(self.painter.ansi(Text(f"✻ Thought for {seconds}s: {shown}{more}", style="dim italic")))
        self.thinking = ""

    def _result(self, result: ev.ToolResultEvent) -> None:
        if result.tool_use_id in self.shown_results:
            return
        self.shown_results.add(result.tool_use_id)
        name, input = self.calls.get(result.tool_use_id, (result.name, {}))
        content = result.block.get("content", "") if isinstance(result.block, dict) else ""
        parts = (name, input, content, result.data, result.is_error)
        lines, cut = result_lines(*parts, full=self.expanded)
        if cut:
            self.cut_results.append((call_line(name, input, self.cwd), parts))
        if lines:
            self.emit(self.painter.ansi(*lines))
        said = self.diagnostics.pop(result.tool_use_id, "")
        if said:
            style = "dim" if said == "no new problems" else "yellow"
            self.emit(self.painter.ansi(Text(f"     LSP: {said}", style=style)))

    def _nested(self, event: ev.Event) -> None:
        """A sub-agent's progress, indented under the Agent call that started it: its tool calls (from its
        finished messages or, where streamed, its calls), its errors and notices."""
        from yoke import events as ev

        if isinstance(event, ev.ToolCallCompleted):
            self._nested_call(event.tool_use_id, event.name, event.input)
        elif isinstance(event, ev.AssistantMessage):
            for block in event.message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    self._nested_call(str(block.get("id")), str(block.get("name")), block.get("input") or {})
        elif isinstance(event, ev.Notice):
            self.emit(self.painter.ansi(Text(f"     {event.message}", style="dim")))
        elif isinstance(event, ev.Result) and event.is_error:
            self.emit(self.painter.ansi(Text(f"     sub-agent stopped: {event.reason}", style="dim")))

    def _nested_call(self, tool_use_id: str, name: str, input: dict[str, Any]) -> None:
        if tool_use_id in self.shown_results:  # seen already (streamed, then in the finished message)
            return
        self.shown_results.add(tool_use_id)
        self.emit(self.painter.ansi(call_line(name, input, self.cwd, nested=True)))

    def _result_line(self, event: ev.Result) -> None:
        if event.reason in ("interrupted", "tool_denied_stop"):
            self.emit(self.painter.ansi(Text("  ⎿  Interrupted · What should Yoke do instead?", style="red")))
        elif event.is_error:
            self.emit(self.painter.ansi(Text(f"  ⎿  {event.reason}: {event.text}", style="red")))

    def toggle_expanded(self) -> None:
        """Ctrl+O: turn the expanded view on (the latest turn's cut results are printed whole, and results
        that come are shown whole) or off again. The scrollback keeps what it has: only what follows
        changes."""
        self.expanded = not self.expanded
        if not self.expanded:
            self.emit(self.painter.ansi(Text("  (tool output collapsed · ctrl+o to expand)", style="dim")))
            return
        cut, self.cut_results = self.cut_results, []
        rule = Text(f"── expanded tool output ({len(cut)}) · ctrl+o to collapse ──", style="dim")
        if not cut:
            rule = Text("── expanded view: tool output is shown whole · ctrl+o to collapse ──", style="dim")
        parts: list[Text] = [rule]
        for line, result in cut:
            parts.append(line)
            parts += result_lines(*result, full=True)[0]
        self.emit(self.painter.ansi(*parts))
