"""The interactive terminal: an inline prompt_toolkit application (the conversation scrolls in the terminal's
own history) with a small live area at the bottom: the block being streamed, the spinner, a question when
the session asks one, the prompt, and a footer with the permission mode.

The UI drives a `Session` only through its public methods and renders the events it yields; permission
prompts, questions and plan approvals come back through `UIAsker`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES
from prompt_toolkit.key_binding import merge_key_bindings
from prompt_toolkit.key_binding.defaults import load_key_bindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.widgets import SearchToolbar

from yoke.ui.keys import EXIT_WINDOW_S, build_bindings
from yoke.ui.paint import Painter
from yoke.ui.reflow import ReflowingApplication
from yoke.ui.screen import ScreenParts, columns_of
from yoke.ui.session_link import SessionLink
from yoke.ui.turns import TurnLoop

if TYPE_CHECKING:
    from yoke.ui.port import TerminalSession

# Alt+Enter and the Shift+Enter sequences of terminals that report modifiers insert a newline (Ctrl+J).
for _sequence in ("\x1b\r", "\x1b[13;2u", "\x1b[27;2;13~"):
    ANSI_SEQUENCES[_sequence] = Keys.ControlJ


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


class TerminalUI(ScreenParts, SessionLink, TurnLoop):
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
        self.session: TerminalSession | None = None
        columns = columns_of()
        self.painter = Painter(columns, env)
        self._view: Any = None  # the ConversationView, made at first use (rich stays unloaded until then)
        self.stats = Stats()
        self.choice: Choice | None = None
        self.feedback: asyncio.Future | None = None  # waiting for "tell Yoke what to do differently"
        self.inbox: asyncio.Queue[str] = asyncio.Queue()
        self.status_text = ""  # the statusLine command's output
        self.hint = ""  # a transient footer message ("Press Ctrl+C again to exit")
        self._hint_until = 0.0
        self.last_ctrl_c = 0.0
        self.last_escape = 0.0
        self._out: list[str] = []
        self._flushing = False
        self._turn_task: asyncio.Task | None = None
        self.exit_code = 0
        self.statusline: Any = None
        self.settings: dict[str, Any] = {}  # the merged settings, read when a session opens
        self.notifier: Any = None
        self.auto_mode_enabled = False  # --enable-auto-mode
        self.settings_flag: str | None = None  # --settings: a file or JSON text
        self.session_commands: list[dict[str, str]] = []  # skills, custom commands, MCP prompts
        self.shell_context: list[str] = []  # `! cmd` runs since the last prompt, sent along with the next one
        self.interrupted = False
        self.mine: dict[str, asyncio.Future[None]] = {}
        self.current = ""
        self.watcher: asyncio.Task[None] | None = None  # renders the session's events (TurnLoop.watch)
        self.registrar: Any = None  # lends the session to the session host (host/terminal_link.py), or None
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
        app: Application = ReflowingApplication(
            layout=Layout(body, focused_element=self.input),
            key_bindings=merge_key_bindings([load_key_bindings(), build_bindings(self, has_choice)]),
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

    @property
    def view(self) -> Any:
        if self._view is None:
            from yoke.ui.view import ConversationView

            self._view = ConversationView(self.painter, self.emit, self.cwd)
        return self._view

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
                await run_in_terminal(functools.partial(_write, chunk))
        finally:
            self._flushing = False

    def say(self, text: Any, style: str = "") -> None:
        """A line (str, with a rich style) or a rich Text into the scrollback."""
        self.emit(self.painter.line(text, style) if isinstance(text, str) else self.painter.ansi(text))

    def flash(self, message: str, seconds: float = EXIT_WINDOW_S) -> None:
        self.hint = message
        self._hint_until = time.monotonic() + seconds
        self.app.invalidate()
        loop = asyncio.get_running_loop()
        loop.call_later(seconds + 0.05, self.app.invalidate)

    # ---- questions ----------------------------------------------------------------------------------------

    async def choose(
        self, header: str, options: list[str], default: int = 0, notify: tuple[str, str] | None = None
    ) -> int | None:
        """Show a question and wait: the chosen option's index, or None for Esc. `notify` (message,
        notification type) calls the user back when the question stays unanswered a while."""
        while self.choice is not None:  # one question at a time (parallel tool calls)
            await self.choice.future
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.choice = Choice(header, options, future, default)
        reminder = None
        if notify is not None and self.notifier is not None:
            reminder = self.notifier.later(self.notifier.question_wait_s, self.session, *notify)
        self.app.invalidate()
        try:
            return await future
        finally:
            if reminder is not None:
                reminder.cancel()
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

    def answer_choice(self, index: int | None) -> None:
        choice = self.choice
        if choice is not None and not choice.future.done():
            choice.future.set_result(index)

    # ---- keys ---------------------------------------------------------------------------------------------

    def submit(self) -> None:
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

    def exit(self, code: int = 0) -> None:
        self.exit_code = code
        future = self.app.future
        if self.app.is_running and future is not None and not future.done():
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
            if self._out:  # what was still on its way to the scrollback (a set-up error, say)
                _write("".join(self._out))
                self._out.clear()
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
            if self.registrar is not None:  # the host's entry goes before the session closes
                with contextlib.suppress(Exception):
                    await self.registrar.close()
            if self.session is not None:
                with contextlib.suppress(Exception):
                    await self.session.close("prompt_input_exit")
            if self.statusline is not None:
                self.statusline.stop()
        return self.exit_code


def _write(chunk: str) -> None:
    sys.stdout.write(chunk)
    sys.stdout.flush()


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
