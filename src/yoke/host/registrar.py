"""The terminal UI's hold on its registration with the session host (docs/remote.md, "Any session"), handed
to the UI by the CLI (`ui/` never imports `host/`): after each session opens it registers when a host runs
for this configuration home, unless the settings say `remoteControlAtStartup: false`; `/remote-control` (or
`remoteControlAtStartup: true` in the user's settings) starts a host if needed, registers and has it serve
the page; `disableRemoteControl: true` refuses both. The link itself is `host/terminal_link.py`."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from pathlib import Path
from typing import Any

from yoke.host.terminal_link import LinkError, TerminalLink

# scopes whose `remoteControlAtStartup: true` is honoured; a project's cannot switch it on (as Claude Code)
ENABLING_SCOPES = ("user", "managed", "policy", "flag")


def remote_policy(cwd: str, env: dict[str, str], settings_flag: str | None) -> str:
    """What the settings say of remote control: "disabled" (`disableRemoteControl: true` anywhere: never),
    "off" (`remoteControlAtStartup: false` anywhere: not registered by itself, `/remote-control` still
    works), "on" (`remoteControlAtStartup: true` in the user's, managed or `--settings` settings: switched
    on at start) or "auto" (registered when a host runs)."""
    from yoke.config.settings import load_settings

    try:
        home = Path(env.get("HOME") or Path.home())
        sources = load_settings(Path(cwd), home=home, flag_settings=settings_flag).sources
    except (OSError, ValueError):
        return "auto"
    if any(s.data.get("disableRemoteControl") is True for s in sources):
        return "disabled"
    values = [(s.scope, s.data.get("remoteControlAtStartup")) for s in sources]
    if any(value is False for _, value in values):
        return "off"
    if any(value is True and scope in ENABLING_SCOPES for scope, value in values):
        return "on"
    return "auto"


class Registrar:
    """The terminal UI's registration: follows the UI's session (a new one after /clear or /resume), and
    switches on for `/remote-control`."""

    def __init__(self, ui: Any):
        self.ui = ui
        self.link: TerminalLink | None = None
        self.page: asyncio.Task[None] | None = None  # the connection the host serves the page for
        self.url = ""  # the session's page
        self.switched_on = False  # `/remote-control` (or the setting): registered whatever else runs
        self.lock = asyncio.Lock()

    def policy(self) -> str:
        ui = self.ui
        return remote_policy(ui.cwd, ui.env, getattr(ui, "settings_flag", None))

    async def session_opened(self) -> None:
        """Register the session the UI has just opened, as the settings say."""
        async with self.lock:
            await self._unlink()
            policy = self.policy()
            if policy == "disabled" or (policy == "off" and not self.switched_on):
                return
            if policy == "on" and not self.switched_on:
                await self._switch_on()
                return
            try:
                await self._link()
            except LinkError:
                return  # no host runs: a plain terminal session, as before
            if not self.switched_on:
                self.ui.say(
                    f"  ⎿  in the session host as {self.link.ident if self.link else '?'} "
                    "(yoke attach; /remote-control for the page)",
                    "dim",
                )

    async def switch_on(self) -> None:
        """`/remote-control`: start a host if none runs, register, and have the host serve the page."""
        async with self.lock:
            if self.policy() == "disabled":
                self.ui.say("  /remote-control is disabled by the settings (disableRemoteControl)", "yellow")
                return
            await self._switch_on()

    async def _switch_on(self) -> None:
        from yoke.host.client import HostClient, HostError

        self.switched_on = True
        try:
            if self.link is None:
                client = await asyncio.to_thread(HostClient.connect, True)  # starts the host if none runs
                client.close()
                await self._link()
            if self.page is None:
                await self._serve_page()
            else:  # on already: the page's address again
                self.ui.say(f"  Remote control is on: {self.url} (pair with the last code shown)", "dim")
        except (HostError, LinkError, RuntimeError, OSError) as exc:
            self.ui.say(f"  /remote-control: {exc}", "red")

    async def _link(self) -> None:
        session = self.ui.session
        if session is None:
            raise LinkError("no session is open")
        self.link = await TerminalLink.open(session, self.ui.cwd)
        self.link.on_end = self._link_ended

    def _link_ended(self, link: TerminalLink) -> None:
        from yoke.host import records

        if not link.dropped and link.ident:  # the host went without ending the entry: no stale record
            with contextlib.suppress(OSError, ValueError):
                records.remove(link.ident)
        if link is self.link:
            self.link = None
            if link.dropped:
                self.ui.say("  ⎿  the session host let go of this session (/remote-control again)", "dim")
            elif self.ui.session is link.session:
                self.ui.say("  ⎿  the session host went away (/remote-control to start it again)", "dim")

    async def _serve_page(self) -> None:
        from yoke.host.remote_command import _describe, open_page, pairing_url, qr_text

        assert self.link is not None
        ident = self.link.ident
        url = ""
        ui = self.ui

        def announce(code: str) -> None:
            ui.emit(f"Paired. Next pairing code: {code}\n{qr_text(pairing_url(url, code))}")

        page, self.page = await open_page("127.0.0.1", 0, None, announce, drive=ident)
        url = f"{page['url']}s/{urllib.parse.quote(ident)}"
        self.url = url
        ui.emit(_describe(page, url).replace("Ctrl-C stops", "while this terminal runs"))

    async def _unlink(self) -> None:
        link, self.link = self.link, None
        if link is not None:
            link.on_end = None
            await link.close()

    async def close(self) -> None:
        """The terminal quits: the host's entry and the page go with their connections."""
        await self._unlink()
        if self.page is not None:
            self.page.cancel()
            self.page = None
