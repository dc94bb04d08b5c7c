"""The headless front-end: a session from the core plus the printer its events go to."""

from __future__ import annotations

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
                from yoke.session.debug_log import write_debug

                write_debug(event, self.debug_file)
            self.printer.handle(event)
            self.printer.note_mode(self.session.permission_mode)  # a plan approved, a hook's setMode
        return self.printer.result
