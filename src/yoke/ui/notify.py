"""Calling the user back: when a long turn ends, or a question has waited unanswered, the terminal gets a
notification and the session's Notification hooks run (`Session.notify`).

The terminal channel follows Claude Code's `preferredNotifChannel` (settings, or `~/.claude.json`):
`auto` (the default) picks by terminal (iTerm2: OSC 9, kitty: OSC 99, Ghostty: OSC 777, others: the bell),
`terminal_bell`, `iterm2`, `iterm2_with_bell`, `kitty`, `ghostty`, or `notifications_disabled` (no terminal
notification; the hooks still run). Inside tmux or screen an OSC sequence is wrapped so it reaches the
outer terminal; the bell stays raw so the multiplexer's own bell handling sees it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.fsutil import read_regular_text
from yoke.jsonsafe import loads as safe_json

if TYPE_CHECKING:
    from yoke.ui.port import TerminalSession

LONG_TURN_S = 20.0  # a turn at least this long notifies when it ends
QUESTION_WAIT_S = 6.0  # a question unanswered this long notifies


class Notifier:
    def __init__(
        self, env: dict[str, str], settings: dict[str, Any], write: Callable[[str], None] | None = None
    ):
        self.env = env
        self.channel = _channel(env, settings)
        self.write = write or _write
        override = _float(env.get("YOKE_NOTIFY_AFTER_S"))
        self.long_turn_s = LONG_TURN_S if override is None else override
        self.question_wait_s = QUESTION_WAIT_S if override is None else override

    def terminal(self, message: str, title: str = "Yoke") -> None:
        sequence = self.sequence(message, title)
        if sequence:
            with contextlib.suppress(Exception):
                self.write(sequence)

    def sequence(self, message: str, title: str = "Yoke") -> str:
        channel = self.channel
        if channel == "auto":
            channel = _detect(self.env)
        message = " ".join(message.replace("\x07", "").replace("\x1b", "").split())
        if channel == "notifications_disabled":
            return ""
        if channel == "iterm2":
            return self._wrap(f"\x1b]9;{message}\x07")
        if channel == "iterm2_with_bell":
            return self._wrap(f"\x1b]9;{message}\x07") + "\x07"
        if channel == "kitty":
            return self._wrap(f"\x1b]99;i=1:d=0;{title}\x1b\\") + self._wrap(
                f"\x1b]99;i=1:d=1:p=body;{message}\x1b\\"
            )
        if channel == "ghostty":
            return self._wrap(f"\x1b]777;notify;{title};{message}\x07")
        return "\x07"

    def _wrap(self, sequence: str) -> str:
        """tmux and screen swallow OSC sequences unless passed through to the outer terminal."""
        if self.env.get("TMUX"):
            return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"
        if self.env.get("STY"):
            return "\x1bP" + sequence + "\x1b\\"
        return sequence

    async def notify(self, session: TerminalSession | None, message: str, notification_type: str) -> None:
        """The terminal notification, then the session's Notification hooks."""
        self.terminal(message)
        if session is not None:
            await session.notify(message, notification_type, title="Yoke")

    def later(self, delay: float, session: TerminalSession | None, message: str, kind: str) -> asyncio.Task:
        """Notify after `delay` seconds unless the returned task is cancelled first (the user answered)."""

        async def wait_then_notify() -> None:
            await asyncio.sleep(delay)
            await self.notify(session, message, kind)

        return asyncio.get_running_loop().create_task(wait_then_notify())


def _channel(env: dict[str, str], settings: dict[str, Any]) -> str:
    value = settings.get("preferredNotifChannel")
    if not isinstance(value, str) or not value:
        value = _global_config(env).get("preferredNotifChannel")
    return value if isinstance(value, str) and value else "auto"


def _global_config(env: dict[str, str]) -> dict[str, Any]:
    """Claude Code's `~/.claude.json`, where `claude config set -g preferredNotifChannel` writes."""
    home = Path(env.get("HOME") or Path.home())
    config_dir = env.get("CLAUDE_CONFIG_DIR")
    path = Path(config_dir) / ".claude.json" if config_dir else home / ".claude.json"
    try:
        data = safe_json(read_regular_text(path))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _detect(env: dict[str, str]) -> str:
    program = (env.get("TERM_PROGRAM") or env.get("LC_TERMINAL") or "").lower()
    if "iterm" in program:
        return "iterm2"
    if "kitty" in (env.get("TERM") or "") or env.get("KITTY_WINDOW_ID"):
        return "kitty"
    if "ghostty" in program or "ghostty" in (env.get("TERM") or ""):
        return "ghostty"
    return "terminal_bell"


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
