"""A command's output cap, enforced where the output is written: the command writes into a pipe, a thread
of Yoke's copies it to the output file and counts, and at the cap it stops copying and kills the command's
process group. Nothing is written past the cap however fast the command is (a poll of the file's size let
`yes` write hundreds of megabytes between two looks)."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import threading
import time
from pathlib import Path

MAX_OUTPUT_BYTES = 64 * 1024 * 1024  # per command, foreground or background
QUIET_S = 0.05  # the pipe empty this long after the command exited: everything it wrote is in the file


class OutputRelay:
    def __init__(self, read_fd: int, output_path: Path, limit: int):
        self.limit = limit
        self.written = 0
        self.capped = False
        self.pgid: int | None = None
        self._fd = read_fd
        self._path = output_path
        self._quiet = threading.Event()
        self._thread = threading.Thread(target=self._run, name="yoke-output", daemon=True)

    def discard(self) -> None:
        """The command never started."""
        os.close(self._fd)

    def start(self, pgid: int) -> None:
        self.pgid = pgid
        self._thread.start()

    def _run(self) -> None:
        try:
            with open(self._path, "ab", buffering=0) as out:
                while self._copy_some(out):
                    pass
        except OSError:
            pass  # the file cannot take more (a full disk): the pipe closes, the command's writes fail
        finally:
            os.close(self._fd)

    def _copy_some(self, out: object) -> bool:
        ready, _, _ = select.select([self._fd], [], [], QUIET_S)
        if not ready:
            self._quiet.set()
            return True
        self._quiet.clear()
        data = os.read(self._fd, 1 << 16)
        if not data:
            return False
        room = self.limit - self.written
        keep = data[:room] if len(data) > room else data
        view = memoryview(keep)
        while view:
            view = view[out.write(view) :]  # type: ignore[attr-defined]
        self.written += len(keep)
        if len(data) > room:
            self.capped = True
            self._stop_command()
            return False
        return True

    def _stop_command(self) -> None:
        if self.pgid is not None:
            try:
                os.killpg(self.pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    async def settle(self, limit_s: float = 1.0) -> None:
        """After the command exited: wait (briefly) until what it wrote has reached the file. A process it
        left behind may keep the pipe open; its later output still arrives, but is not waited for."""
        self._quiet.clear()
        deadline = time.monotonic() + limit_s
        while self._thread.is_alive() and not self._quiet.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)


def relay_pipe(output_path: Path, limit: int) -> tuple[OutputRelay, int]:
    """A relay and the write end of its pipe, for the command's stdout and stderr."""
    read_fd, write_fd = os.pipe()
    return OutputRelay(read_fd, output_path, limit), write_fd


def relay_of(proc: object) -> OutputRelay | None:
    """The relay `spawn_bash` attached to a command's process, if any."""
    return getattr(proc, "yoke_output_relay", None)
