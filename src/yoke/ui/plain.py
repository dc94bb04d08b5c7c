"""The terminal UI for a dumb terminal (`TERM=dumb`: no cursor movement): line by line, plain text.

The same session, view, commands and asker as the full UI; only the screen handling differs: finished
Markdown blocks are printed as they complete, questions are numbered lists answered by typing a number,
Ctrl+C interrupts a turn (twice at the prompt exits), and a line ending in `\\` continues the message.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from typing import Any

from yoke.ui.app import TerminalUI
from yoke.ui.keys import EXIT_WINDOW_S


class _NoApp:
    is_running = False

    def invalidate(self) -> None:
        pass


class PlainUI(TerminalUI):
    def _application(self) -> Any:
        return _NoApp()

    def emit(self, ansi: str) -> None:
        if ansi:
            sys.stdout.write(ansi)
            sys.stdout.flush()

    def flash(self, message: str, seconds: float = EXIT_WINDOW_S) -> None:
        self.say(message, "dim")

    def prefill(self, text: str) -> None:
        self.say(f"  (your message was: {text})", "dim")

    async def choose(
        self, header: str, options: list[str], default: int = 0, notify: tuple[str, str] | None = None
    ) -> int | None:
        reminder = None
        if notify is not None and self.notifier is not None:
            reminder = self.notifier.later(self.notifier.question_wait_s, self.session, *notify)
        try:
            return await self._choose(header, options, default)
        finally:
            if reminder is not None:
                reminder.cancel()

    async def _choose(self, header: str, options: list[str], default: int) -> int | None:
        lines = [header.rstrip("\n")] + [f"  {i + 1}. {option}" for i, option in enumerate(options)]
        self.emit("\n".join(lines) + "\n")
        while True:
            answer = await self._read(f"choose 1-{len(options)} (enter: {default + 1}, n: none): ")
            if answer is None or answer.strip().lower() in ("n", "no", "esc", "q"):
                return None
            if not answer.strip():
                return default
            if answer.strip().isdigit() and 1 <= int(answer) <= len(options):
                return int(answer) - 1

    async def ask_text(self) -> str | None:
        answer = await self._read("tell Yoke what to do instead: ")
        return answer.strip() if answer is not None else None

    async def _read(self, prompt: str) -> str | None:
        try:
            return await asyncio.to_thread(input, prompt)
        except (EOFError, KeyboardInterrupt):
            return None

    async def run(self) -> int:
        from yoke.session import SessionError
        from yoke.ui.trust import ask_trust

        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, self._sigint)
        try:
            if not await ask_trust(self):
                return 1
            await self.open_session()
            if self.first_prompt:
                await self.handle(self.first_prompt)
            while not self._done:
                text = await self._message()
                if text is None:
                    break
                if text.strip():
                    await self.handle(text)
        except SessionError as exc:
            self.say(f"yoke: {exc}")
            return 2 if exc.usage else 1
        finally:
            if self.session is not None:
                with contextlib.suppress(Exception):
                    await self.session.close("prompt_input_exit")
        return self.exit_code

    async def _message(self) -> str | None:
        lines: list[str] = []
        while True:
            line = await self._read("> " if not lines else "  ")
            if line is None:
                return None if not lines else "\n".join(lines)
            if line.endswith("\\"):
                lines.append(line[:-1])
                continue
            lines.append(line)
            return "\n".join(lines)

    @property
    def _done(self) -> bool:
        return bool(getattr(self, "_exit_requested", False))

    def exit(self, code: int = 0) -> None:
        self.exit_code = code
        self._exit_requested = True

    def _sigint(self) -> None:
        if self.stats.busy:
            self.interrupt()
            return
        now = time.monotonic()
        if now - self.last_ctrl_c < EXIT_WINDOW_S:
            import os

            os._exit(self.exit_code)  # the input thread cannot be woken; nothing is left to save
        self.last_ctrl_c = now
        self.say("\n(press Ctrl+C again to exit)")
