"""The terminal's hold on its session: opening (and reopening) it, what is read from it once it is open
(settings, the notifier, the status line, the `/` commands it offers), and the permission-mode cycle."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from yoke.jsonsafe import dict_at

if TYPE_CHECKING:
    from yoke.ui.port import TerminalSession

# Shift+Tab's order (Claude Code's): bypassPermissions only when the session may use it, auto only when
# auto mode is enabled (--enable-auto-mode, or the session started in it) and settings do not disable it.
MODE_CYCLE = ("default", "acceptEdits", "plan", "bypassPermissions", "auto")
WARM_UP_AFTER_S = 0.4


class SessionLink:
    """Mixed into TerminalUI (which provides app, opener, say, stats, settings, ...)."""

    session: TerminalSession | None
    settings: dict[str, Any]
    statusline: Any
    notifier: Any
    session_commands: list[dict[str, str]]
    auto_mode_enabled: bool
    interrupted: bool
    app: Any
    stats: Any
    opener: Any
    env: dict[str, str]
    say: Any
    watcher: Any
    watch: Any
    registrar: Any

    async def open_session(self, **overrides: Any) -> None:
        """Open (or reopen: /clear, /resume, /rewind) the session this UI drives."""
        if self.session is not None:
            await self.session.close("clear" if not overrides.get("resume") else "resume")
            self.session = None
        self.session = await self.opener(**overrides)
        if self.watcher is not None:
            self.watcher.cancel()
        self.watcher = self.watch(self.session)
        for warning in self.session.warnings:
            self.say(f"  ⚠ {warning}", "yellow")
        from yoke.ui.notify import Notifier
        from yoke.ui.settings_file import merged_settings

        self.settings = merged_settings(self)
        self.notifier = Notifier(self.env, self.settings)
        if self.statusline is None:
            self.reload_statusline(reread=False)
        self._refresh_status()
        self.app.invalidate()
        asyncio.get_running_loop().create_task(self._load_session_commands())
        if self.registrar is not None:  # registered with a running session host, as the settings say
            asyncio.get_running_loop().create_task(self.registrar.session_opened())
        _warm_up()

    async def _load_session_commands(self) -> None:
        """Skills, custom commands and MCP prompts for `/` completion (MCP servers may take a moment)."""
        session = self.session
        if session is None:
            return
        with contextlib.suppress(Exception):
            commands = await session.slash_commands()
            if session is self.session:
                self.session_commands = commands

    def reload_statusline(self, reread: bool = True) -> None:
        """Read the `statusLine` setting again (after /statusline or /config changed it)."""
        from yoke.ui.settings_file import merged_settings
        from yoke.ui.statusline import StatusLine

        if reread:
            self.settings = merged_settings(self)

        if self.statusline is not None:
            self.statusline.stop()
        self.statusline = StatusLine.from_settings(self)
        self._refresh_status()

    def refresh_status(self) -> None:
        self._refresh_status()
        self.app.invalidate()

    def _refresh_status(self) -> None:
        if self.statusline is not None and self.session is not None:
            self.statusline.trigger()

    def mode_cycle(self) -> list[str]:
        """The modes Shift+Tab goes through, in order, for this session."""
        if self.session is None:
            return []
        available = set(self.session.permission_modes())
        perms = dict_at(self.settings, "permissions")
        auto_on = (self.auto_mode_enabled or self.session.started.permission_mode == "auto") and perms.get(
            "disableAutoMode"
        ) != "disable"
        return [mode for mode in MODE_CYCLE if mode in available and (mode != "auto" or auto_on)]

    def cycle_mode(self) -> None:
        if self.session is None:
            return
        current = self.session.permission_mode
        order = self.mode_cycle()
        start = order.index(current) if current in order else -1  # from a mode outside it: the first
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
            self.interrupted = True  # the user is here: no call-back when the turn ends
            self.session.interrupt()


def _warm_up() -> None:
    """Import what the first answer renders with (Markdown, code highlighting, tables) shortly after the
    prompt became usable, so the first streamed token does not wait for it. On the event loop, not in a
    thread: two threads importing the same modules can meet a partly initialised module."""

    def load() -> None:
        with contextlib.suppress(Exception):
            import rich.markdown  # noqa: F401
            import rich.syntax  # noqa: F401
            import rich.table  # noqa: F401

    asyncio.get_running_loop().call_later(WARM_UP_AFTER_S, load)
