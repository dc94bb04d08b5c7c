"""The terminal UI's keys: questions (arrows, numbers, Enter, Esc), the prompt (Enter, new lines, Esc,
Shift+Tab, Ctrl+C/D/O, pastes)."""

from __future__ import annotations

import time
from typing import Any

from prompt_toolkit.filters import is_searching
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys

EXIT_WINDOW_S = 2.0  # Ctrl+C twice within this exits
DOUBLE_ESCAPE_S = 0.8  # Esc twice within this on an empty prompt opens /rewind


def build_bindings(ui: Any, has_choice: Any) -> KeyBindings:
    """The terminal UI's keys: a choice's (while one is shown), the prompt's, then the session's (in this
    order, as they are registered)."""
    kb = KeyBindings()
    _choice_keys(kb, ui, has_choice)
    _prompt_keys(kb, ui, ~has_choice)
    _session_keys(kb, ui, ~has_choice)
    return kb


def _choice_keys(kb: KeyBindings, ui: Any, has_choice: Any) -> None:
    """A choice on screen (a permission prompt, a question): move, pick by Enter or number, dismiss."""

    @kb.add("up", filter=has_choice)
    def _up(event: Any) -> None:
        assert ui.choice is not None
        ui.choice.index = (ui.choice.index - 1) % len(ui.choice.options)

    @kb.add("down", filter=has_choice)
    @kb.add("tab", filter=has_choice)
    def _down(event: Any) -> None:
        assert ui.choice is not None
        ui.choice.index = (ui.choice.index + 1) % len(ui.choice.options)

    @kb.add("enter", filter=has_choice)
    def _pick(event: Any) -> None:
        assert ui.choice is not None
        ui.answer_choice(ui.choice.index)

    for digit in "123456789":

        @kb.add(digit, filter=has_choice)
        def _number(event: Any, digit: str = digit) -> None:
            assert ui.choice is not None
            if int(digit) <= len(ui.choice.options):
                ui.answer_choice(int(digit) - 1)

    @kb.add("escape", filter=has_choice, eager=True)
    def _dismiss(event: Any) -> None:
        ui.answer_choice(None)


def _prompt_keys(kb: KeyBindings, ui: Any, no_choice: Any) -> None:
    """The prompt: Enter submits (a completion first, a trailing backslash a newline), Ctrl+J a newline,
    Escape closes what is open, interrupts a turn, or (twice on an empty prompt) rewinds."""

    @kb.add("enter", filter=no_choice & ~is_searching)
    def _enter(event: Any) -> None:
        buffer = ui.input
        state = buffer.complete_state
        if state is not None and state.current_completion is not None:
            buffer.apply_completion(state.current_completion)
            if not buffer.text.startswith("/"):
                return
        if buffer.document.text_before_cursor.endswith("\\"):
            buffer.delete_before_cursor(1)
            buffer.insert_text("\n")
            return
        ui.submit()

    @kb.add("c-j", filter=no_choice)
    def _newline(event: Any) -> None:
        ui.input.insert_text("\n")

    @kb.add("escape", filter=no_choice, eager=True)
    def _escape(event: Any) -> None:
        if ui.feedback is not None:
            if not ui.feedback.done():
                ui.feedback.set_result(None)
            return
        if ui.input.complete_state is not None:
            ui.input.cancel_completion()
            return
        if ui.stats.busy:
            ui.interrupt()
            return
        now = time.monotonic()
        if not ui.input.text and now - ui.last_escape < DOUBLE_ESCAPE_S:
            ui.last_escape = 0.0
            ui.inbox.put_nowait("/rewind")
            return
        ui.last_escape = now


def _session_keys(kb: KeyBindings, ui: Any, no_choice: Any) -> None:
    """The session's: the mode cycle, Ctrl+C (clear, interrupt, twice to exit), Ctrl+D, paste, Ctrl+O."""

    @kb.add("s-tab")
    def _cycle(event: Any) -> None:
        ui.cycle_mode()

    @kb.add("c-c")
    def _ctrl_c(event: Any) -> None:
        if ui.choice is not None:
            ui.answer_choice(None)
            return
        if ui.feedback is not None:
            if not ui.feedback.done():
                ui.feedback.set_result(None)
            return
        if ui.input.text:
            ui.input.reset()
            return
        if ui.stats.busy:  # interrupting the turn is all this press does: it does not arm exit
            ui.interrupt()
            ui.last_ctrl_c = 0.0
            return
        now = time.monotonic()
        if now - ui.last_ctrl_c < EXIT_WINDOW_S:
            ui.exit()
            return
        ui.last_ctrl_c = now
        ui.flash("Press Ctrl+C again to exit")

    @kb.add("c-d", filter=no_choice)
    def _ctrl_d(event: Any) -> None:
        if not ui.input.text:
            ui.exit()
        else:
            ui.input.delete()

    @kb.add(Keys.BracketedPaste)
    def _paste(event: Any) -> None:
        ui.input.insert_text(ui.pastes.collapse(event.data))

    @kb.add("c-o")
    def _expand(event: Any) -> None:
        ui.view.toggle_expanded()
        ui.app.invalidate()
