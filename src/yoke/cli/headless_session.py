"""The headless front-end: a session from the core plus the printer its events go to."""

from __future__ import annotations

import time

from yoke import events as ev
from yoke.cli.printers import Printer
from yoke.session import Session


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
        # `-p PROMPT`: a result written while background sub-agents run is held until the next one (as
        # 2.1.330 writes it; json output keeps only the last); stream-json input writes each at once
        self.hold_results = False
        self._held: list[ev.Result] = []

    async def run(self, prompt: str | list) -> ev.Result | None:
        """Run one query, printing every event; returns its result."""
        return await self._run(self.session.query(prompt))

    async def follow_up(self) -> ev.Result | None:
        """The query a background task's completion notice starts, with its own init and result lines."""
        return await self._run(self.session.follow_up())

    async def settle(self, result: ev.Result | None) -> ev.Result | None:
        """After the last query: wait for background sub-agents, writing their lines, and run the follow-up
        each completion notice starts; bounded by CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS (600 s, as 2.1.330),
        ended at once by a signal. Returns the last result."""
        deadline = time.monotonic() + background_wait_s(self.session.env)
        while not self.stopped:
            async for event in self.session.background_events(deadline - time.monotonic()):
                self.show(event)
            if self.stopped or not self.session.follow_up_due() or time.monotonic() >= deadline:
                break
            result = await self.follow_up() or result
        self.flush_held(last=True)
        return result

    def show(self, event: ev.Event) -> None:
        """One event to the printer (a result perhaps held: `hold_results`)."""
        if isinstance(event, ev.Result):
            from yoke.cli.printers import JsonPrinter

            one = isinstance(self.printer, JsonPrinter)  # json output is the run's one last result
            if self.hold_results and (one or self.session.background_busy(commands=False)):  # agents only
                self._held.append(event)
                self.printer.result = event
                return
            self.flush_held()
        self.printer.handle(event)

    def flush_held(self, last: bool = False) -> None:
        """Write the held results (before a newer one, or `last` of all); json output, being one result,
        writes only the run's last."""
        from yoke.cli.printers import JsonPrinter

        held, self._held = self._held, []
        if isinstance(self.printer, JsonPrinter):
            held = held[-1:] if last else []
        for result in held:
            self.printer.handle(result)

    async def _run(self, events) -> ev.Result | None:
        started = self.session.started
        started.permission_mode = self.session.permission_mode  # each query's init says the mode now
        self.printer.handle(started)
        if self.replay is not None:  # after the query's init line, as 2.1.330 writes it
            self.printer.emit(self.replay)
            self.replay = None
        self.printer.result = None
        async for event in events:
            if self.debug:
                from yoke.session.debug_log import write_debug

                write_debug(event, self.debug_file)
            self.show(event)
            self.printer.note_mode(self.session.permission_mode)  # a plan approved, a hook's setMode
        return self.printer.result


def background_wait_s(env: dict[str, str]) -> float:
    """How long `-p` waits for background work: CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS, 600 s by default as in
    2.1.330. Its `0` (no limit) is the default here too: every wait is bounded."""
    try:
        ms = int(env.get("CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS", "") or 600_000)
    except ValueError:
        ms = 600_000
    return (ms if ms > 0 else 600_000) / 1000
