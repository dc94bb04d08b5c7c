"""The host's side of the warm start: it keeps one template process (cli/warm_template.py, started through
the door: it dies with the host) listening on `warm.sock` in its runtime folder, starts a fresh one when the
last left (Yoke's files changed), counts the runs forked from it as the host being busy, and says how much
memory the template holds. Off with `YOKE_NO_WARM=1` in the host's environment or `"warmStart": false` in
the user's settings. The client is cli/warm_client.py."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from yoke import spawn
from yoke.host.paths import runtime_dir

SOCKET_NAME = "warm.sock"  # cli/warm_client.py names it too
_TEMPLATE_CODE = "from yoke.cli.warm_template import main; main()"


def enabled() -> bool:
    if os.environ.get("YOKE_NO_WARM", "") not in ("", "0"):
        return False
    try:
        from yoke.config.settings import load_settings

        loaded = load_settings(Path.home(), setting_sources=["user"])
    except (OSError, ValueError):
        return True
    return loaded.merged.get("warmStart") is not False


class Template:
    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None
        self.path = runtime_dir() / SOCKET_NAME

    async def start(self) -> None:
        # cwd: the host's private folder, so the template's sys.path[0] is nothing a project could plant in
        self.proc = await spawn.start(
            [sys.executable, "-c", _TEMPLATE_CODE, str(self.path)],
            confine=None,
            cwd=runtime_dir(),
            stdout=spawn.DEVNULL,
            stderr=spawn.DEVNULL,
        )

    async def keep(self) -> None:
        """A template that left (stale after an upgrade, or killed) is replaced."""
        if self.proc is not None and self.proc.returncode is not None:
            await self.start()

    def busy(self) -> bool:
        """Runs forked from the template are under way (they keep the host from stopping idle)."""
        if self.proc is None or self.proc.returncode is not None:
            return False
        pid = self.proc.pid
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as handle:
                children = handle.read().split()
            program = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            return False
        # a fork runs the template's own program; its other child is the guard (bash)
        return any(_program(child) == program for child in children)

    def rss_kb(self) -> int | None:
        """The template's resident memory (what the warm start costs the host)."""
        if self.proc is None:
            return None
        try:
            with open(f"/proc/{self.proc.pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            spawn.signal_group(self.proc.pid, 15)
            try:
                await asyncio.wait_for(self.proc.wait(), 2)
            except TimeoutError:
                spawn.signal_group(self.proc.pid, 9)
        self.path.unlink(missing_ok=True)


def _program(pid: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


async def start_template() -> Template | None:
    if not enabled():
        return None
    template = Template()
    await template.start()
    return template
