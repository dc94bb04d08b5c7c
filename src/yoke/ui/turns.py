"""The interactive terminal's turns: the loop that takes each prompt from the inbox (typed or queued),
routes it (a slash command, `!shell`, `#memory`, or a query) and submits the query to the session's port;
and the watcher that renders every event the session says, as it streams: this client's turns, another
client's (`yoke attach` beside another), and the follow-up query a background task's notice starts. A part
of `TerminalUI` (`ui/app.py`), kept apart from its screen and keys."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.events import port
from yoke.ids import new_uuid

if TYPE_CHECKING:
    from yoke.ui.port import TerminalSession


class TurnLoop:
    """The turn-running part of `TerminalUI`; the attributes below are the UI's."""

    app: Any
    session: TerminalSession | None
    view: Any
    stats: Any
    inbox: Any
    painter: Any
    cwd: Any
    notifier: Any
    interrupted: bool
    first_prompt: Any
    hint: str
    say: Any
    emit: Any
    exit: Any
    open_session: Any
    _refresh_status: Any
    _load_session_commands: Any
    mine: dict[str, asyncio.Future[None]]  # this client's prompts whose result is awaited, by prompt id
    current: str  # the prompt id of the turn running ("" for a follow-up)

    async def _main(self) -> None:
        from yoke.session import SessionError

        try:
            from yoke.ui.trust import ask_trust

            if not await ask_trust(self):
                self.exit(1)
                return
            await self.open_session()
            if self.first_prompt:
                self.inbox.put_nowait(self.first_prompt)
            ticker = asyncio.get_running_loop().create_task(self._tick())
            try:
                while True:
                    text = await self.inbox.get()
                    if self.stats.queue and self.stats.queue[0] == text:
                        self.stats.queue.pop(0)
                    await self.handle(text)
            finally:
                ticker.cancel()
        except SessionError as exc:
            self.say(f"yoke: {exc}", "red")
            await asyncio.sleep(0.05)
            self.exit(2 if exc.usage else 1)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug: one line, and leave cleanly
            self.say(f"yoke: internal error: {type(exc).__name__}: {exc}", "red")
            await asyncio.sleep(0.05)
            self.exit(1)

    async def _tick(self) -> None:
        """Redraws: while busy or a hint shows, ten a second; idle, the footer (background tasks) each second.
        A failure is said once, never the end of the redraws."""
        ticks = 0
        while True:
            await asyncio.sleep(0.1)
            ticks += 1
            if self.stats.busy or self.hint or ticks % 10 == 0:
                try:
                    self.app.invalidate()
                except Exception as exc:  # pragma: no cover - a bug in a redraw
                    if ticks % 600 == 1:
                        self.say(f"yoke: redraw failed: {type(exc).__name__}: {exc}", "red")

    # ---- the session's events -------------------------------------------------------------------------------

    def watch(self, session: TerminalSession) -> asyncio.Task[None]:
        """Render what `session` says from now on (started when it is opened; ends when it closes)."""
        return asyncio.get_running_loop().create_task(self._watch(session, session.events()))

    async def _watch(self, session: TerminalSession, stream: AsyncIterator[port.PortEvent]) -> None:
        async for event in stream:
            if session is not self.session:
                return
            try:
                self.on_session_event(event)
            except Exception as exc:  # a bug in rendering one event: said, the watch goes on
                self.say(f"yoke: could not show {type(event).__name__}: {exc}", "red")
        for waiting in self.mine.values():  # the session closed (or its host went): no result will come
            if not waiting.done():
                waiting.set_result(None)

    def on_session_event(self, event: Any) -> None:
        mine = self.mine
        if isinstance(event, port.TurnBegan):
            self.current = event.prompt_id
            if event.prompt_id not in mine:  # another client's prompt, or a follow-up
                if event.origin == "prompt":
                    text = event.content if isinstance(event.content, str) else "(a prompt with attachments)"
                    self.emit(self.painter.ansi(_echo(text, self.painter.no_color, "another client")))
                self._begin()
            return
        if isinstance(event, port.Answered):
            if event.by == "another client":
                self.say(f"  ⎿  {event.behavior} · answered in another client", "dim")
            return
        if isinstance(event, port.PORT_EVENTS):
            return
        self.view.on_event(event)
        self.app.invalidate()
        if isinstance(event, ev.Result) and event.agent_id == "main":
            current, self.current = self.current, ""
            waiting = mine.pop(current, None)
            if waiting is None:
                self._end(False)
            elif not waiting.done():
                waiting.set_result(None)

    def _begin(self) -> None:
        self.stats.busy = True
        self.interrupted = False
        self.stats.started = time.monotonic()
        self.view.reset_turn()
        self.app.invalidate()

    def _end(self, own: bool) -> None:
        self.view.finish_text()
        self.stats.busy = False
        self._refresh_status()
        self.app.invalidate()
        loop = asyncio.get_running_loop()
        notifier = self.notifier
        long_turn = notifier is not None and time.monotonic() - self.stats.started >= notifier.long_turn_s
        if own and long_turn and not self.interrupted:
            loop.create_task(notifier.notify(self.session, "Yoke is waiting for your input", "idle_prompt"))
        loop.create_task(self._load_session_commands())  # MCP servers may have come or gone

    async def handle(self, text: str) -> None:
        from yoke.ui.commands import run_command
        from yoke.ui.local_actions import run_shell

        stripped = text.strip()
        if stripped.startswith("/") and not stripped.startswith("//"):
            handled = await run_command(self, stripped)
            if handled:
                return
        if stripped.startswith("!"):
            await run_shell(self, stripped[1:].strip())
            return
        if stripped.startswith("#") and not stripped.startswith("##") and "\n" not in stripped:
            from yoke.ui.local_actions import save_memory_note

            await save_memory_note(self, stripped[1:].strip())
            return
        await self.turn(text)

    async def turn(self, prompt: str, echo: bool = True, compact: str | None = None) -> None:
        """One query (or a compaction), submitted to the session's port and rendered by the watcher as it
        streams; returns when its result came. Esc interrupts it."""
        from yoke.ui.local_actions import pending_shell_context
        from yoke.ui.prompt_input import with_images

        if echo:
            self.emit(self.painter.ansi(_echo(prompt, self.painter.no_color)))
        message: Any = prompt
        if compact is not None:
            message = f"/compact {compact}".strip()  # routed by the session, as in Claude Code's -p
        else:
            message = with_images(pending_shell_context(self) + prompt, self.cwd)
        mine = self.mine
        ident = new_uuid()
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        mine[ident] = done
        self._begin()
        try:
            try:
                assert self.session is not None  # a turn runs on an open session
                await self.session.submit(port.Prompt(message, id=ident))
            except (RuntimeError, TimeoutError, ValueError) as exc:  # another client drives; the host is gone
                self.say(f"  ⎿  {exc}", "red")
                return
            await done
        finally:
            mine.pop(ident, None)
            self._end(True)


def _echo(prompt: str, plain: bool, whose: str = "") -> Any:
    from rich.text import Text

    text = Text("\n> ", style="bold")  # a blank line between exchanges
    text.append(prompt.rstrip(), style="" if plain else "bold")
    if whose:
        text.append(f"  ({whose})", style="dim")
    return text
