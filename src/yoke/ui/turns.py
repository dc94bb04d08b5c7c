"""The interactive terminal's turns: the loop that takes each prompt from the inbox (typed, queued, or a
background task's notice while idle), routes it (a slash command, `!shell`, `#memory`, or a query) and runs
the query, rendering its events as they stream. A part of `TerminalUI` (`ui/app.py`), kept apart from its
screen and keys."""

from __future__ import annotations

import asyncio
import time
from typing import Any


class TurnLoop:
    """The turn-running part of `TerminalUI`; the attributes below are the UI's."""

    app: Any
    session: Any
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
                    if text is FOLLOW_UP:  # a background task ended while idle: the model answers its notice
                        await self.turn("", echo=False, follow_up=True)
                        continue
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
        ticks = 0
        while True:
            await asyncio.sleep(0.1)
            ticks += 1
            if (
                self.stats.busy or self.hint or ticks % 10 == 0
            ):  # idle: the footer (background tasks) each second
                self.app.invalidate()
            if not self.stats.busy and self.inbox.empty() and self.session is not None:
                await self._background_while_idle()

    async def _background_while_idle(self) -> None:
        """Background work's steps as they come while no turn runs; when a task's completion notice waits,
        the next turn answers it (as 2.1.330 does)."""
        async for event in self.session.background_events(0):
            self.view.on_event(event)
            self.app.invalidate()
        if self.session.follow_up_due() and not self.stats.busy and self.inbox.empty():
            self.inbox.put_nowait(FOLLOW_UP)

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

    async def turn(
        self, prompt: str, echo: bool = True, compact: str | None = None, follow_up: bool = False
    ) -> None:
        """One query (or a compaction), rendered as it streams; Esc interrupts it."""
        from yoke.ui.local_actions import pending_shell_context
        from yoke.ui.prompt_input import with_images

        if echo:
            self.emit(self.painter.ansi(_echo(prompt, self.painter.no_color)))
        message: Any = prompt
        if compact is None and not follow_up:
            message = with_images(pending_shell_context(self) + prompt, self.cwd)
        self.stats.busy = True
        self.interrupted = False
        self.stats.started = time.monotonic()
        self.view.reset_turn()
        self.app.invalidate()
        try:
            if follow_up:
                events = self.session.follow_up()
            elif compact is not None:
                events = self.session.compact(compact or None)
            else:
                events = self.session.query(message)
            async for event in events:
                self.view.on_event(event)
                self.app.invalidate()
        finally:
            self.view.finish_text()
            self.stats.busy = False
            self._refresh_status()
            self.app.invalidate()
            loop = asyncio.get_running_loop()
            notifier = self.notifier
            long_turn = notifier is not None and time.monotonic() - self.stats.started >= notifier.long_turn_s
            if long_turn and not self.interrupted:
                loop.create_task(
                    notifier.notify(self.session, "Yoke is waiting for your input", "idle_prompt")
                )
            loop.create_task(self._load_session_commands())  # MCP servers may have come or gone


FOLLOW_UP: Any = object()  # in the inbox: run the follow-up turn on a background task's notice


def _echo(prompt: str, plain: bool) -> Any:
    from rich.text import Text

    text = Text("\n> ", style="bold")  # a blank line between exchanges
    text.append(prompt.rstrip(), style="" if plain else "bold")
    return text
