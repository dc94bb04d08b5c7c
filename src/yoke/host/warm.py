"""The host's side of the warm start: it keeps one template process (cli/warm_template.py, started through
the door: it dies with the host) listening on `warm.sock` in its runtime folder, starts a fresh one when the
last left (Yoke's files changed), counts the runs forked from it as the host being busy (benchmarks/bench_warm.py
prints the memory it holds). Off with `YOKE_NO_WARM=1` in the host's environment or `"warmStart": false` in
the user's settings. The client is cli/warm_client.py."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import IO, Any

from yoke import spawn, warm_wire
from yoke.host.paths import runtime_dir

SOCKET_NAME = warm_wire.SOCKET_NAME
RESTART_S = 5.0
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
        self.started = 0.0

    async def start(self) -> None:
        self.started = time.monotonic()
        # cwd: the host's private folder, so the template's sys.path[0] is nothing a project could plant in
        self.proc = await spawn.start(
            [sys.executable, "-c", _TEMPLATE_CODE, str(self.path)],
            confine=None,
            cwd=runtime_dir(),
            stdout=spawn.DEVNULL,
            stderr=spawn.DEVNULL,
        )

    async def keep(self) -> None:
        """A template that left (stale after an upgrade, or killed) is replaced; one that cannot start (an
        install broken mid-upgrade) is tried again at most every RESTART_S seconds."""
        gone = self.proc is not None and self.proc.returncode is not None
        if gone and time.monotonic() - self.started >= RESTART_S:
            await self.start()

    def busy(self) -> bool:
        """Runs forked from the template are under way (they keep the host from stopping idle)."""
        if self.proc is None or self.proc.returncode is not None:
            return False
        pid = self.proc.pid
        try:
            program = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            return False
        # a fork runs the template's own program; its other child is the guard (bash)
        return any(_program(child) == program for child in _children(pid))

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            spawn.signal_group(self.proc.pid, 15)
            try:
                await asyncio.wait_for(self.proc.wait(), 2)
            except TimeoutError:
                spawn.signal_group(self.proc.pid, 9)
        self.path.unlink(missing_ok=True)


def _children(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return handle.read().split()
    except OSError:  # a kernel without the children list: the processes whose parent it is
        found = []
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    if entry.isdigit() and int(handle.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        found.append(entry)
            except (OSError, IndexError, ValueError):
                pass
        return found


def _program(pid: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


_current: Template | None = None  # this host's template (one host per process)


async def start_template() -> Template | None:
    global _current
    if not enabled():
        return None
    template = Template()
    await template.start()
    _current = template
    return template


async def fork_session(
    args: list[str], cwd: str, env: dict[str, str], stderr: IO[Any], limit: int
) -> ForkedRun | None:
    """A hosted session's `yoke` (`args` after `python -m yoke`) forked from the template, its stdin and
    stdout pipes the host's; None when there is no template or it declines (the caller starts it cold)."""
    template = _current
    if template is None or template.proc is None or template.proc.returncode is not None:
        return None
    forked = await asyncio.to_thread(
        warm_wire.fork_with_pipes, str(runtime_dir()), args, cwd, env, stderr.fileno()
    )
    if forked is None:
        return None
    conn, pid, stdin_w, stdout_r = forked
    conn = socket.socket(fileno=conn.detach())
    loop = asyncio.get_running_loop()
    stdout = asyncio.StreamReader(limit=limit)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdout), os.fdopen(stdout_r, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(stdin_w, "wb", 0)
    )
    stdin = asyncio.StreamWriter(transport, protocol, None, loop)
    ends, signals = await asyncio.open_unix_connection(sock=conn)
    return ForkedRun(pid, stdin, stdout, ends, signals)


class ForkedRun:
    """A hosted session forked by the template, with the face of asyncio's Process that hosted.py uses.
    Signals go to the template over the connection (it signals only a run not yet reaped); closing the
    connection makes the template kill the run."""

    def __init__(
        self, pid: int, stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader, ends: Any, signals: Any
    ):
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.returncode: int | None = None
        self._ends = ends
        self._signals = signals
        self._ended = asyncio.get_running_loop().create_task(self._wait_end())

    async def _wait_end(self) -> int:
        message = None
        try:
            header = await self._ends.readexactly(4)
            body = await self._ends.readexactly(int.from_bytes(header, "big"))
            import marshal

            message = marshal.loads(body)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError, EOFError):
            pass
        if isinstance(message, dict) and "signal" in message:
            self.returncode = -int(message["signal"])
        elif isinstance(message, dict):
            self.returncode = int(message.get("exit", 1))
        else:
            self.returncode = -signal.SIGKILL  # the template went, and its guard took the run with it
        self._signals.close()
        return self.returncode

    async def wait(self) -> int:
        return await asyncio.shield(self._ended)

    def send_signal(self, number: int) -> None:
        if self.returncode is not None:
            raise ProcessLookupError(self.pid)
        self._signals.write(bytes([number]))

    def kill(self) -> None:
        """The connection closed: the template kills the run's group."""
        if self.returncode is None:
            self._signals.transport.abort()
