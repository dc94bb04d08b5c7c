"""The headless front-end: a session from the core, driven through its port (`yoke.events.port`), and the
printer its events go to. The session runs the queued prompts, the background work and the follow-up query a
notice starts; this prints what it says, one `system/init` per query, and decides when the run is over.

The run reads the session only through its port (`SessionPort`: ops, events, snapshots). `core` is the same
session as built, for the SDK control requests the port has no op for (hooks, context usage, MCP status:
`cli/control_answers.py`)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from yoke import events as ev
from yoke.cli.printers import Printer, StreamJsonPrinter
from yoke.events import port
from yoke.events.port import SessionPort
from yoke.ids import new_uuid
from yoke.session import Session

# events that are a piece of a model message: the permission mode cannot change between them
_DELTAS = (ev.StreamEvent, ev.TextDelta, ev.ThinkingDelta, ev.ToolCallInputPreview)


class HeadlessRun:
    def __init__(
        self,
        session: Session,
        printer: Printer,
        input_format: str = "text",
        permission_prompt_tool: str | None = None,
        debug: bool = False,
    ) -> None:
        self.session: SessionPort = session
        self.core = session  # for control requests without an op (module doc)
        self.background_wait_s = background_wait_s(session.env)
        self.printer = printer
        self.input_format = input_format
        self.permission_prompt_tool = permission_prompt_tool
        self.debug = debug
        self.replay_user_messages = False
        self.debug_file: str | None = None  # --debug-file: debug lines go there instead of stderr
        self.stopped = False  # a signal arrived: no further query starts
        # `-p PROMPT`: a result written while background sub-agents run is held until the next one (as
        # 2.1.330 writes it; json output keeps only the last); stream-json input writes each at once
        self.hold_results = False
        self._held: list[ev.Result] = []
        self.stream = session.events()  # subscribed now: nothing submitted later is missed
        self.replays: dict[str, dict[str, Any]] = {}  # --replay-user-messages: a prompt's echo, by its id
        self.waiting = 0  # prompts submitted whose result is not printed yet
        self.in_turn = False  # a query runs (its result is still to come)
        self.idle = False  # the session said it is idle, and no prompt was submitted since
        self.last: ev.Result | None = None  # the last result printed (or held)
        self._changed: asyncio.Future[None] | None = None  # done at the next result, idle or stop
        self.printing: asyncio.Task[None] | None = None

    async def submit(
        self, content: str | list, replay: dict[str, Any] | None = None, priority: str = "later"
    ) -> None:
        """A prompt to the session (queued behind the running query); its lines come from `pump`. The
        stream-json user message's `priority`, as 2.1.332's SDK names it: `next` joins the running query
        (read at its next model request; echoed at once), `now` interrupts it and runs next, `later` waits."""
        ident = new_uuid()
        if replay is not None:
            self.replays[ident] = replay
        self.waiting += 1
        self.idle = False
        if priority == "now" and self.in_turn:
            await self.session.submit(port.Interrupt())  # the prompt queued next runs once it has ended
        answer = await self.session.submit(port.Prompt(content, id=ident, join=priority == "next"))
        if answer.get("joined"):  # no turn of its own: no result to wait for
            self.waiting -= 1
            echo = self.replays.pop(ident, None)
            if echo is not None:
                self.printer.emit(echo)

    def start(self) -> None:
        if self.printing is None:
            self.printing = asyncio.get_running_loop().create_task(self.pump())

    async def pump(self) -> None:
        """Every event of the session to the printer, as it comes."""
        async for event in self.stream:
            if isinstance(event, port.TurnBegan):
                self._began(event)
            elif isinstance(event, port.Idle):
                self.idle = self.waiting == 0
                self._notify()
            elif not isinstance(event, port.PORT_EVENTS):
                self._print(event)

    def _began(self, began: port.TurnBegan) -> None:
        self.in_turn = True
        started = self.session.snapshot().started  # each query's init says the mode now
        if started is not None:
            self.printer.handle(started)
        replay = self.replays.pop(began.prompt_id, None)
        if replay is not None:  # after the query's init line, as 2.1.330 writes it
            self.printer.emit(replay)
        if began.unattended and isinstance(self.printer, StreamJsonPrinter):
            # a turn no person started (a schedule, a goal's next turn): a host with nobody attached
            # denies its asks (host/hosted.py); Yoke's own line, only on such turns
            self.printer.emit(unattended_line(began.prompt_id, self.session.snapshot().id))
        self.printer.result = None

    def _print(self, event: Any) -> None:
        if self.debug:
            from yoke.session.debug_log import write_debug

            write_debug(event, self.debug_file)
        self.show(event)
        if not isinstance(event, _DELTAS):  # a plan approved, a hook's setMode
            self.printer.note_mode(self.session.snapshot().permission_mode)
        if isinstance(event, ev.Result) and event.agent_id == "main":
            self.last = event
            self.in_turn = False
            self.waiting = max(0, self.waiting - 1)
            self._notify()

    async def until(self, done: Any, deadline: float | None = None) -> None:
        """Wait (printing) until `done()` holds, a signal stopped the run and no query runs, or `deadline`
        (monotonic) passes; every wait is bounded by half a second, then the conditions are read again."""
        self.start()
        assert self.printing is not None
        while not done() and not (self.stopped and not self.in_turn):
            if (
                self.printing.done()
            ):  # the printer failed (stdout closed: BrokenPipeError) or the session closed
                self.printing.result()
                return
            if deadline is not None and time.monotonic() >= deadline:
                return
            if self._changed is None or self._changed.done():
                self._changed = asyncio.get_running_loop().create_future()
            await asyncio.wait([self._changed, self.printing], timeout=0.5, return_when="FIRST_COMPLETED")

    def _notify(self) -> None:
        if self._changed is not None and not self._changed.done():
            self._changed.set_result(None)

    async def run(self, prompt: str | list) -> ev.Result | None:
        """`-p PROMPT`: the prompt's query, printed; returns its result."""
        await self.submit(prompt)
        await self.until(lambda: self.waiting == 0)
        return self.last

    async def settle(self) -> ev.Result | None:
        """After the last prompt: its queries, then background sub-agents' lines and the follow-up each
        completion notice starts, until the session is idle; bounded by CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS
        (600 s, as 2.1.330), ended at once by a signal. Returns the last result."""
        await self.until(lambda: self.waiting == 0)
        deadline = time.monotonic() + self.background_wait_s

        def over() -> bool:  # a pending wake-up, or its prompt still queued, is work to wait for
            snap = self.session.snapshot()
            return self.idle and not self.in_turn and snap.queued == 0 and not snap.pending_wake_up

        await self.until(over, deadline)
        self.flush_held(last=True)
        return self.last

    def stop(self) -> None:
        """A signal: the running query is interrupted (its result line is written), the prompts still queued
        do not run (they stay enqueued in the transcript), and the run ends."""
        self.stopped = True
        self._notify()
        asyncio.get_running_loop().create_task(self.session.submit(port.Interrupt(drop_queue=True)))

    def show(self, event: ev.Event) -> None:
        """One event to the printer (a result perhaps held: `hold_results`)."""
        if isinstance(event, ev.Result):
            from yoke.cli.printers import JsonPrinter

            one = isinstance(self.printer, JsonPrinter)  # json output is the run's one last result
            if self.hold_results and (one or self.session.snapshot().background_agents):
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

    async def close(self) -> None:
        if self.printing is not None:
            self.printing.cancel()


def background_wait_s(env: dict[str, str]) -> float:
    """How long `-p` waits for background work: CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS, 600 s by default as in
    2.1.330. Its `0` (no limit) is the default here too: every wait is bounded."""
    try:
        ms = int(env.get("CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS", "") or 600_000)
    except ValueError:
        ms = 600_000
    return (ms if ms > 0 else 600_000) / 1000


def unattended_line(prompt_id: str, session_id: str) -> dict[str, Any]:
    """The stream-json line that says the query now starting is unattended (docs/scheduling.md)."""
    return {
        "type": "system", "subtype": "unattended_turn", "prompt_id": prompt_id,
        "session_id": session_id, "uuid": new_uuid(),
    }  # fmt: skip
