"""The headless front-end: a session from the core plus the printer its events go to."""

from __future__ import annotations

import sys

from yoke import events as ev
from yoke.cli.printers import Printer
from yoke.session.engine import Session


class HeadlessRun:
    def __init__(
        self,
        session: Session,
        printer: Printer,
        input_format: str = "text",
        permission_prompt_tool: str | None = None,
        debug: bool = False,
    ) -> None:
        self.session = session
        self.printer = printer
        self.input_format = input_format
        self.permission_prompt_tool = permission_prompt_tool
        self.debug = debug
        self.replay_user_messages = False
        self.debug_file: str | None = None  # --debug-file: debug lines go there instead of stderr
        self.stopped = False  # a signal arrived: no further query starts
        self.replay: dict | None = None  # --replay-user-messages: the line echoing this query's message

    async def run(self, prompt: str | list) -> ev.Result | None:
        """Run one query, printing every event; returns its result."""
        started = self.session.started
        started.permission_mode = self.session.permission_mode  # each query's init says the mode now
        self.printer.handle(started)
        if self.replay is not None:  # after the query's init line, as 2.1.330 writes it
            self.printer.emit(self.replay)
            self.replay = None
        self.printer.result = None
        async for event in self.session.query(prompt):
            if self.debug:
                _debug_line(event, self.debug_file)
            self.printer.handle(event)
            self.printer.note_mode(self.session.permission_mode)  # a plan approved, a hook's setMode
        return self.printer.result


def _debug_line(event: ev.Event, path: str | None = None) -> None:
    """--debug: one stderr line per step that explains what the loop is doing."""
    line = None
    if isinstance(event, ev.TurnStarted):
        line = f"turn {event.turn}: requesting"
    elif isinstance(event, ev.UsageEvent):
        u = event.usage
        line = (
            f"usage {event.model}: in {u.input_tokens} out {u.output_tokens} cache read "
            f"{u.cache_read_input_tokens} write {u.cache_creation_input_tokens} · ${event.cost_usd:.5f}"
        )
    elif isinstance(event, ev.PermissionDecided):
        line = f"permission {event.tool_name} {event.tool_use_id}: {event.behavior} ({event.source})"
    elif isinstance(event, ev.ToolResultEvent):
        line = f"tool {event.name} {event.tool_use_id}: {'error' if event.is_error else 'ok'}"
    elif isinstance(event, ev.Notice):
        line = f"{event.kind}: {event.message}"
    elif isinstance(event, ev.Result):
        line = f"result {event.reason} after {event.num_turns} turns, {event.duration_ms} ms"
    if line and path:
        try:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"[debug] {line}\n")
            return
        except OSError:
            pass  # an unwritable debug file must not break the run: fall back to stderr
    if line:
        print(f"[debug] {line}", file=sys.stderr, flush=True)
