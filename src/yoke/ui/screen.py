"""What the live area shows, redrawn in place: the streamed block, spinner, queue, question, prompt mark
and footer. A mixin of `TerminalUI`; each part is a prompt_toolkit formatted-text callback."""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any

from prompt_toolkit.formatted_text import ANSI, FormattedText

if TYPE_CHECKING:
    from yoke.ui.port import TerminalSession

SPINNER = "·✢✳✶✻✽✻✶✳✢"
MODE_LABELS = {
    "acceptEdits": "⏵⏵ accept edits on",
    "plan": "⏸ plan mode on",
    "bypassPermissions": "⏵⏵ bypass permissions on",
    "dontAsk": "⏵⏵ don't ask mode on",
    "auto": "⏵⏵ auto mode on",
}


class ScreenParts:
    app: Any
    painter: Any
    view: Any
    stats: Any
    choice: Any
    feedback: Any
    input: Any
    session: TerminalSession | None
    hint: str
    status_text: str
    _hint_until: float

    def _live_text(self) -> Any:
        if getattr(self, "_view", True) is None:  # nothing streamed yet: rich need not be loaded
            return ""
        columns = columns_of(self.app)
        if columns != self.painter.width:
            self.painter.resize(columns)
        rows = rows_of(self.app)
        return ANSI(self.view.live_ansi(columns, max(3, rows - 8)))

    def _spinner_text(self) -> Any:
        elapsed = time.monotonic() - self.stats.started
        frame = SPINNER[int(elapsed * 8) % len(SPINNER)]
        tokens = self.view.tokens
        detail = f"{int(elapsed)}s · ↓ {tokens:,} tokens · esc to interrupt"
        return FormattedText([("ansiyellow", f"{frame} Working… "), ("ansigray", f"({detail})")])

    def _queue_text(self) -> Any:
        lines = [f"  ⏵ queued: {' '.join(q.split())[:70]}" for q in self.stats.queue]
        return FormattedText([("ansigray", "\n".join(lines))])

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
        profile = getattr(self.session, "profile", None)
        if profile:
            model = getattr(self.session, "model", "")
            parts.append(("ansigray", f"  · profile {profile}" + (f" ({model})" if model else "")))
        if self.view.expanded:
            parts.append(("ansicyan", "  · output expanded (ctrl+o)"))
        tasks = self.session.background_tasks()
        if tasks:
            parts.append(("ansicyan", f"  · {len(tasks)} background task{'s' if len(tasks) != 1 else ''}"))
        if self.status_text:
            parts.append(("", "  "))
            return FormattedText(parts) + ANSI(self.status_text.split("\n")[0]).__pt_formatted_text__()
        return FormattedText(parts)


def columns_of(app: Any = None) -> int:
    import os

    if app is not None:
        with contextlib.suppress(Exception):
            return max(20, app.output.get_size().columns)
    try:
        return max(20, os.get_terminal_size().columns)
    except OSError:
        return 80


def rows_of(app: Any) -> int:
    try:
        return app.output.get_size().rows
    except Exception:
        return 24
