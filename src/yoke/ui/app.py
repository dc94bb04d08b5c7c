"""The interactive terminal: an inline prompt_toolkit application (the conversation scrolls in the terminal's
own history) with a small live area at the bottom: the block being streamed, the spinner, a question when
the session asks one, the prompt, and a footer with the permission mode.

The UI drives a `Session` only through its public methods and renders the events it yields; permission
prompts, questions and plan approvals come back through `UIAsker`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, is_searching
from prompt_toolkit.formatted_text import ANSI, FormattedText
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES
from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings
from prompt_toolkit.key_binding.defaults import load_key_bindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.widgets import SearchToolbar
from rich.text import Text

from yoke.ui.paint import Painter
from yoke.ui.view import ConversationView

# Alt+Enter and the Shift+Enter sequences of terminals that report modifiers insert a newline (Ctrl+J).
for _sequence in ("\x1b\r", "\x1b[13;2u", "\x1b[27;2;13~"):
    ANSI_SEQUENCES[_sequence] = Keys.ControlJ

SPINNER = "·✢✳✶✻✽✻✶✳✢"
MODE_CYCLE = ("default", "acceptEdits", "plan", "bypassPermissions")
MODE_LABELS = {
    "acceptEdits": "⏵⏵ accept edits on",
    "plan": "⏸ plan mode on",
    "bypassPermissions": "⏵⏵ bypass permissions on",
    "dontAsk": "⏵⏵ don't ask mode on",
}
EXIT_WINDOW_S = 2.0


@dataclass
class Choice:
    """A question on screen: a header, numbered options, the highlighted one, and who waits for the answer."""

    header: str  # ANSI
    options: list[str]
    future: asyncio.Future
    index: int = 0


@dataclass
class Stats:
    started: float = 0.0
    busy: bool = False
    queue: list[str] = field(default_factory=list)


class TerminalUI:
    def __init__(
        self,
        opener: Callable[..., Any],
        cwd: str,
        first_prompt: str | None,
        env: dict[str, str],
        *,
        terminal: tuple[Any, Any] | None = None,  # (input, output) instead of the real terminal
    ):
        self._terminal = terminal
        self.opener = opener  # async (**overrides) -> Session: opens a session with the UI's asker
        self.cwd = cwd
        self.env = env
        self.first_prompt = first_prompt
        self.session: Any = None
        columns = _columns()
        self.painter = Painter(columns, env)
        self.view = ConversationView(self.painter, self.emit, cwd)
        self.stats = Stats()
        self.choice: Choice | None = None
        self.feedback: asyncio.Future | None = None  # waiting for "tell Yoke what to do differently"
        self.inbox: asyncio.Queue[str] = asyncio.Queue()
        self.status_text = ""  # the statusLine command's output
        self.hint = ""  # a transient footer message ("Press Ctrl+C again to exit")
        self._hint_until = 0.0
        self._last_ctrl_c = 0.0
        self._last_escape = 0.0
        self._out: list[str] = []
        self._flushing = False
        self._turn_task: asyncio.Task | None = None
        self.exit_code = 0
        self.statusline: Any = None
        self.input = Buffer(
            multiline=True,
            completer=_completer(self),
            complete_while_typing=True,
            history=_history(env),
        )
        from yoke.ui.prompt_input import Pastes

        self.pastes = Pastes()
        self.app: Application = self._application()

    # ---- layout -----------------------------------------------------------------------------------------

    def _application(self) -> Application:
        has_choice = Condition(lambda: self.choice is not None)
        live = Window(
            FormattedTextControl(self._live_text), dont_extend_height=True, wrap_lines=False, height=None
        )
        spinner = Window(FormattedTextControl(self._spinner_text), height=1)
        search = SearchToolbar()
        question = Window(FormattedTextControl(self._choice_text), dont_extend_height=True, wrap_lines=True)
        prompt = VSplit(
            [
                Window(FormattedTextControl(self._prompt_mark), width=2, dont_extend_width=True),
                Window(
                    BufferControl(self.input, search_buffer_control=search.control),
                    wrap_lines=True,
                    dont_extend_height=True,
                ),
            ]
        )
        rule = Window(char="─", height=1, style="class:rule")
        body = HSplit(
            [
                live,
                ConditionalContainer(spinner, Condition(lambda: self.stats.busy and self.choice is None)),
                ConditionalContainer(
                    Window(FormattedTextControl(self._queue_text), dont_extend_height=True),
                    Condition(lambda: bool(self.stats.queue)),
                ),
                ConditionalContainer(question, has_choice),
                ConditionalContainer(HSplit([rule, prompt, search, rule]), ~has_choice),
                CompletionsMenu(max_height=8, scroll_offset=1),
                Window(FormattedTextControl(self._footer_text), height=1),
            ]
        )
        app: Application = Application(
            layout=Layout(body, focused_element=self.input),
            key_bindings=merge_key_bindings([load_key_bindings(), self._bindings(has_choice)]),
            full_screen=False,
            mouse_support=False,
            min_redraw_interval=0.04,
            erase_when_done=False,
            color_depth=None,
            input=self._terminal[0] if self._terminal else None,
            output=self._terminal[1] if self._terminal else None,
        )
        app.ttimeoutlen = 0.05
        app.timeoutlen = 0.4
        return app

    def _live_text(self) -> Any:
        columns = _columns(self.app)
        if columns != self.painter.width:
            self.painter.resize(columns)
        rows = _rows(self.app)
        return ANSI(self.view.live_ansi(columns, max(3, rows - 8)))

    def _spinner_text(self) -> Any:
        elapsed = time.monotonic() - self.stats.started
        frame = SPINNER[int(elapsed * 8) % len(SPINNER)]
        tokens = self.view.tokens
        detail = f"{int(elapsed)}s · ↓ {tokens:,} tokens · esc to interrupt"
        return FormattedText([("ansiyellow", f"{frame} Working… "), ("ansigray", f"({detail})")])

    def _queue_text(self) -> Any:
        return FormattedText(
            [("ansigray", f"  ⏵ queued: {' '.join(q.split())[:70]}\n") for q in self.stats.queue]
        )

    def _choice_text(self) -> Any:
        choice = self.choice
        if choice is None:
            return ""
        lines = [choice.header.rstrip("\n") + "\n"]
        for i, option in enumerate(choice.options):
            mark = "❯" if i == choice.index else " "
            style = "\x1b[36m" if i == choice.index and not self.painter.no_color else ""
            reset = "\x1b[0m" if style else ""
            lines.append(f"{style}{mark} {i + 1}. {option}{reset}\n")
        return ANSI("".join(lines))

    def _prompt_mark(self) -> Any:
        if self.feedback is not None:
            return FormattedText([("ansired", "✎ ")])
        text = self.input.text
        if text.startswith("!"):
            return FormattedText([("ansimagenta", "! ")])
        if text.startswith("#"):
            return FormattedText([("ansiblue", "# ")])
        return "> "

    def _footer_text(self) -> Any:
        if self.hint and time.monotonic() < self._hint_until:
            return FormattedText([("ansigray", f"  {self.hint}")])
        if self.session is None:
            return FormattedText([("ansigray", "  starting…")])
        if self.feedback is not None:
            return FormattedText(
                [("ansigray", "  tell Yoke what to do instead · enter to send · esc to cancel")]
            )
        mode = self.session.permission_mode if self.session is not None else "default"
        parts: list[tuple[str, str]] = []
        label = MODE_LABELS.get(mode)
        if label:
            parts.append(("ansimagenta" if mode != "plan" else "ansicyan", f"  {label} (shift+tab to cycle)"))
        else:
            parts.append(("ansigray", "  ? /help for commands · shift+tab to cycle modes"))
        if self.status_text:
            parts.append(("", "  "))
            return FormattedText(parts) + ANSI(self.status_text.split("\n")[0]).__pt_formatted_text__()
        return FormattedText(parts)

    # ---- scrollback ---------------------------------------------------------------------------------------

    def emit(self, ansi: str) -> None:
        """Print finished text above the live area, once (batched: one redraw for many lines)."""
        if not ansi:
            return
        if not self.app.is_running:
            sys.stdout.write(ansi)
            sys.stdout.flush()
            return
        self._out.append(ansi)
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        try:
            await asyncio.sleep(0.01)  # gather what arrives in the same moment
            while self._out:
                chunk = "".join(self._out)
                self._out.clear()
                await run_in_terminal(lambda chunk=chunk: _write(chunk))
        finally:
            self._flushing = False

    def say(self, text: str | Text, style: str = "") -> None:
        self.emit(self.painter.line(text, style) if isinstance(text, str) else self.painter.ansi(text))

    def flash(self, message: str, seconds: float = EXIT_WINDOW_S) -> None:
        self.hint = message
        self._hint_until = time.monotonic() + seconds
        self.app.invalidate()
        loop = asyncio.get_running_loop()
        loop.call_later(seconds + 0.05, self.app.invalidate)

    # ---- questions ----------------------------------------------------------------------------------------

    async def choose(self, header: str, options: list[str], default: int = 0) -> int | None:
        """Show a question and wait: the chosen option's index, or None for Esc."""
        while self.choice is not None:  # one question at a time (parallel tool calls)
            await self.choice.future
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.choice = Choice(header, options, future, default)
        self.app.invalidate()
        try:
            return await future
        finally:
            self.choice = None
            self.app.invalidate()

    async def ask_text(self) -> str | None:
        """Use the prompt for a free-text answer (deny feedback); None for Esc."""
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.feedback = future
        self.app.invalidate()
        try:
            return await future
        finally:
            self.feedback = None
            self.app.invalidate()

    def prefill(self, text: str) -> None:
        """Put text in the prompt, cursor at its end (a rewound message, to edit and send again)."""
        from prompt_toolkit.document import Document

        self.input.document = Document(text, len(text))

    def _answer_choice(self, index: int | None) -> None:
        choice = self.choice
        if choice is not None and not choice.future.done():
            choice.future.set_result(index)

    # ---- keys ---------------------------------------------------------------------------------------------

    def _bindings(self, has_choice: Any) -> KeyBindings:
        kb = KeyBindings()
        no_choice = ~has_choice

        @kb.add("up", filter=has_choice)
        def _up(event: Any) -> None:
            assert self.choice is not None
            self.choice.index = (self.choice.index - 1) % len(self.choice.options)

        @kb.add("down", filter=has_choice)
        @kb.add("tab", filter=has_choice)
        def _down(event: Any) -> None:
            assert self.choice is not None
            self.choice.index = (self.choice.index + 1) % len(self.choice.options)

        @kb.add("enter", filter=has_choice)
        def _pick(event: Any) -> None:
            assert self.choice is not None
            self._answer_choice(self.choice.index)

        for digit in "123456789":

            @kb.add(digit, filter=has_choice)
            def _number(event: Any, digit: str = digit) -> None:
                assert self.choice is not None
                if int(digit) <= len(self.choice.options):
                    self._answer_choice(int(digit) - 1)

        @kb.add("escape", filter=has_choice, eager=True)
        def _dismiss(event: Any) -> None:
            self._answer_choice(None)

        @kb.add("enter", filter=no_choice & ~is_searching)
        def _enter(event: Any) -> None:
            buffer = self.input
            state = buffer.complete_state
            if state is not None and state.current_completion is not None:
                buffer.apply_completion(state.current_completion)
                if not buffer.text.startswith("/"):
                    return
            if buffer.document.text_before_cursor.endswith("\\"):
                buffer.delete_before_cursor(1)
                buffer.insert_text("\n")
                return
            self._submit()

        @kb.add("c-j", filter=no_choice)
        def _newline(event: Any) -> None:
            self.input.insert_text("\n")

        @kb.add("escape", filter=no_choice, eager=True)
        def _escape(event: Any) -> None:
            if self.feedback is not None:
                if not self.feedback.done():
                    self.feedback.set_result(None)
                return
            if self.input.complete_state is not None:
                self.input.cancel_completion()
                return
            if self.stats.busy:
                self.interrupt()
                return
            now = time.monotonic()
            if not self.input.text and now - self._last_escape < 0.8:
                self._last_escape = 0.0
                self.inbox.put_nowait("/rewind")
                return
            self._last_escape = now

        @kb.add("s-tab")
        def _cycle(event: Any) -> None:
            self.cycle_mode()

        @kb.add("c-c")
        def _ctrl_c(event: Any) -> None:
            if self.choice is not None:
                self._answer_choice(None)
                return
            if self.feedback is not None:
                if not self.feedback.done():
                    self.feedback.set_result(None)
                return
            if self.input.text:
                self.input.reset()
                return
            if self.stats.busy:
                self.interrupt()
            now = time.monotonic()
            if now - self._last_ctrl_c < EXIT_WINDOW_S:
                self.exit()
                return
            self._last_ctrl_c = now
            self.flash("Press Ctrl+C again to exit")

        @kb.add("c-d", filter=no_choice)
        def _ctrl_d(event: Any) -> None:
            if not self.input.text:
                self.exit()
            else:
                self.input.delete()

        @kb.add(Keys.BracketedPaste)
        def _paste(event: Any) -> None:
            self.input.insert_text(self.pastes.collapse(event.data))

        @kb.add("c-o")
        def _expand(event: Any) -> None:
            self.view.show_hidden_output()

        return kb

    def _submit(self) -> None:
        text = self.input.text
        if self.feedback is not None:
            self.input.reset()
            if not self.feedback.done():
                self.feedback.set_result(text.strip())
            return
        if not text.strip():
            return
        self.input.append_to_history()
        self.input.reset()
        text = self.pastes.expand(text)
        if self.stats.busy or not self.inbox.empty():
            self.stats.queue.append(text)
        self.inbox.put_nowait(text)

    def cycle_mode(self) -> None:
        if self.session is None:
            return
        current = self.session.permission_mode
        order = list(MODE_CYCLE)
        start = order.index(current) if current in order else 0
        for step in range(1, len(order) + 1):
            candidate = order[(start + step) % len(order)]
            try:
                self.session.set_permission_mode(candidate)
            except (ValueError, PermissionError):
                continue
            break
        self._refresh_status()
        self.app.invalidate()

    def interrupt(self) -> None:
        if self.session is not None and self.stats.busy:
            self.session.interrupt()

    def exit(self, code: int = 0) -> None:
        self.exit_code = code
        if self.app.is_running and not self.app.future.done():
            self.app.exit()

    # ---- running ------------------------------------------------------------------------------------------

    async def run(self) -> int:
        task: asyncio.Task | None = None

        def start() -> None:
            nonlocal task
            task = asyncio.get_running_loop().create_task(self._main())
            self.input.load_history_if_not_yet_loaded()

        try:
            await self.app.run_async(pre_run=start)
        finally:
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
            if self.session is not None:
                with contextlib.suppress(Exception):
                    await self.session.close("prompt_input_exit")
            if self.statusline is not None:
                self.statusline.stop()
        return self.exit_code

    async def _main(self) -> None:
        from yoke.session.engine import SessionError

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

    async def open_session(self, **overrides: Any) -> None:
        """Open (or reopen: /clear, /resume, /rewind) the session this UI drives."""
        if self.session is not None:
            await self.session.close("clear" if not overrides.get("resume") else "resume")
            self.session = None
        self.session = await self.opener(**overrides)
        for warning in self.session.warnings:
            self.say(f"  ⚠ {warning}", "yellow")
        from yoke.ui.statusline import StatusLine

        if self.statusline is None:
            self.statusline = StatusLine.from_settings(self)
        self._refresh_status()
        self.app.invalidate()

    def _refresh_status(self) -> None:
        if self.statusline is not None and self.session is not None:
            self.statusline.trigger()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0.1)
            if self.stats.busy or self.hint:
                self.app.invalidate()

    async def handle(self, text: str) -> None:
        from yoke.ui.commands import run_command, run_shell

        stripped = text.strip()
        if stripped.startswith("/") and not stripped.startswith("//"):
            handled = await run_command(self, stripped)
            if handled:
                return
        if stripped.startswith("!"):
            await run_shell(self, stripped[1:].strip())
            return
        if stripped.startswith("#") and not stripped.startswith("##") and "\n" not in stripped:
            from yoke.ui.commands import save_memory_note

            await save_memory_note(self, stripped[1:].strip())
            return
        await self.turn(text)

    async def turn(self, prompt: str, echo: bool = True, compact: str | None = None) -> None:
        """One query (or a compaction), rendered as it streams; Esc interrupts it."""
        from yoke.ui.commands import pending_shell_context
        from yoke.ui.prompt_input import with_images

        if echo:
            self.emit(self.painter.ansi(_echo(prompt, self.painter.no_color)))
        message: Any = prompt
        if compact is None:
            message = with_images(pending_shell_context(self) + prompt, self.cwd)
        self.stats.busy = True
        self.stats.started = time.monotonic()
        self.view.reset_turn()
        self.app.invalidate()
        try:
            events = (
                self.session.compact(compact or None) if compact is not None else self.session.query(message)
            )
            async for event in events:
                self.view.on_event(event)
                self.app.invalidate()
        finally:
            self.view.finish_text()
            self.stats.busy = False
            self._refresh_status()
            self.app.invalidate()
            if time.monotonic() - self.stats.started > 20:
                _write_bell()


def _echo(prompt: str, plain: bool) -> Text:
    text = Text("> ", style="bold")
    text.append(prompt.rstrip(), style="" if plain else "bold")
    return text


def _write(chunk: str) -> None:
    sys.stdout.write(chunk)
    sys.stdout.flush()


def _write_bell() -> None:
    with contextlib.suppress(Exception):
        sys.stdout.write("\a")
        sys.stdout.flush()


def _columns(app: Application | None = None) -> int:
    if app is not None:
        with contextlib.suppress(Exception):
            return max(20, app.output.get_size().columns)
    try:
        return max(20, os.get_terminal_size().columns)
    except OSError:
        return 80


def _rows(app: Application) -> int:
    try:
        return app.output.get_size().rows
    except Exception:
        return 24


def _history(env: dict[str, str]) -> Any:
    from yoke.config.settings import yoke_home_dir

    try:
        home = yoke_home_dir(env=env)
        home.mkdir(parents=True, exist_ok=True)
        return FileHistory(str(home / "prompt_history"))
    except OSError:
        return InMemoryHistory()


def _completer(ui: TerminalUI) -> Any:
    from yoke.ui.complete import PromptCompleter

    return PromptCompleter(ui)
