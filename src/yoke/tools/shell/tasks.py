"""Background shell tasks of one session: bounded in number and output, all stopped when the session ends.

Each task writes its merged stdout/stderr to a file; readers keep a byte offset so every read returns only
what is new. A watcher per task records how it ended and enforces its lifetime and output size.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from yoke.tools.base import ToolError
from yoke.tools.shell.output import OutputChunk, read_capped
from yoke.tools.shell.process import (
    Launcher,
    forget_group,
    group_alive,
    kill_process_group,
    signal_group,
    spawn_bash,
)
from yoke.tools.shell.relay import MAX_OUTPUT_BYTES, relay_of

TaskStatus = Literal["running", "completed", "failed", "killed"]

MAX_RUNNING_TASKS = 16
MAX_TASK_OUTPUT_BYTES = MAX_OUTPUT_BYTES
WATCH_INTERVAL_S = 0.5


@dataclass
class ShellTask:
    id: str
    command: str
    description: str
    output_path: Path
    process: asyncio.subprocess.Process
    started_at: float = field(default_factory=time.time)
    status: TaskStatus = "running"
    exit_code: int | None = None
    read_offset: int = 0  # bytes of output already handed to the model
    note: str = ""  # why Yoke stopped it, when it did
    done: asyncio.Event = field(default_factory=asyncio.Event)
    watcher: asyncio.Task[None] | None = None
    on_end: Callable[[ShellTask], None] | None = None  # told once when it ends (tools/shell/announce.py)

    @property
    def running(self) -> bool:
        return self.status == "running"


class ShellTaskManager:
    """The session's background tasks, by id (`bash_1`, `bash_2`, ...)."""

    def __init__(
        self,
        output_dir: Path,
        max_running: int = MAX_RUNNING_TASKS,
        max_output_bytes: int = MAX_TASK_OUTPUT_BYTES,
    ):
        self.output_dir = output_dir
        self.max_running = max_running
        self.max_output_bytes = max_output_bytes
        self._tasks: dict[str, ShellTask] = {}
        self._next_id = 1

    # --- starting -------------------------------------------------------------------------------------

    def running_count(self) -> int:
        return sum(1 for t in self._tasks.values() if t.running)

    def has_room(self) -> bool:
        return self.running_count() < self.max_running

    def _check_room(self) -> None:
        if not self.has_room():
            raise ToolError(
                f"Too many background tasks are running ({self.max_running}). "
                "Stop one with TaskStop or wait for one to finish before starting another."
            )

    def _new_id(self) -> str:
        task_id = f"bash_{self._next_id}"
        self._next_id += 1
        return task_id

    async def start(
        self,
        script: str,
        *,
        command: str,
        description: str,
        cwd: Path,
        env: dict[str, str],
        lifetime_s: float | None,
        launcher: Launcher | None = None,
    ) -> ShellTask:
        """Spawn `script` as a new background task."""
        self._check_room()
        task_id = self._new_id()
        output_path = self.output_dir / f"{task_id}.output"
        process = await spawn_bash(
            script,
            cwd=cwd,
            env=env,
            output_path=output_path,
            launcher=launcher,
            max_output_bytes=self.max_output_bytes,
        )
        return self._add(ShellTask(task_id, command, description, output_path, process), lifetime_s)

    def adopt(
        self,
        process: asyncio.subprocess.Process,
        *,
        command: str,
        description: str,
        output_path: Path,
        read_offset: int,
        started_at: float,
        lifetime_s: float | None,
    ) -> ShellTask:
        """Take over a running foreground command (one that reached its timeout) as a background task."""
        self._check_room()
        task = ShellTask(self._new_id(), command, description, output_path, process, started_at=started_at)
        task.read_offset = read_offset
        return self._add(task, lifetime_s)

    def _add(self, task: ShellTask, lifetime_s: float | None) -> ShellTask:
        self._tasks[task.id] = task
        task.watcher = asyncio.ensure_future(self._watch(task, lifetime_s))
        return task

    async def _watch(self, task: ShellTask, lifetime_s: float | None) -> None:
        """The cap on output is enforced as it is written (`relay.py`); this notes it, and the lifetime."""
        deadline = None if lifetime_s is None else task.started_at + lifetime_s
        relay = relay_of(task.process)
        capped = f"its output passed {_size_text(self.max_output_bytes)}"
        try:
            while task.process.returncode is None:
                try:
                    async with asyncio.timeout(WATCH_INTERVAL_S):
                        await task.process.wait()
                except TimeoutError:
                    pass
                else:
                    break
                if relay is None and _size(task.output_path) > self.max_output_bytes:
                    await self._kill(task, capped)  # a command started without a relay
                elif deadline is not None and time.time() > deadline:
                    await self._kill(task, f"it ran past its time limit of {lifetime_s:g} s")
            if relay is not None:
                await relay.settle()
                if relay.capped and task.status == "running":
                    task.status, task.note = "killed", capped
        finally:
            code = task.process.returncode
            if task.status == "running":
                task.status = "completed" if code == 0 else "failed"
            task.exit_code = code
            task.done.set()
            if task.on_end is not None:
                task.on_end(task)

    # --- reading and stopping ---------------------------------------------------------------------------

    def get(self, task_id: str) -> ShellTask:
        task = self._tasks.get(task_id)
        if task is None:
            known = ", ".join(self._tasks) or "none"
            raise ToolError(f"No background task with id {task_id!r} (known tasks: {known}).")
        return task

    def tasks(self) -> list[ShellTask]:
        return list(self._tasks.values())

    async def wait(self, task: ShellTask, timeout_s: float, cancel: asyncio.Event | None = None) -> bool:
        """Wait up to `timeout_s` for the task to end (or `cancel` to be set); True if it has ended."""
        waiters = [asyncio.ensure_future(task.done.wait())]
        if cancel is not None:
            waiters.append(asyncio.ensure_future(cancel.wait()))
        try:
            await asyncio.wait(waiters, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
        return task.done.is_set()

    def read_new(self, task: ShellTask, limit: int) -> OutputChunk:
        """Output written since the last read (capped), advancing the task's read position."""
        chunk = read_capped(task.output_path, task.read_offset, limit)
        task.read_offset = chunk.end
        return chunk

    async def stop(self, task: ShellTask, note: str = "") -> None:
        if not task.running:
            raise ToolError(f"Task {task.id} is not running (status: {task.status}).")
        await self._kill(task, note)
        if task.watcher is not None:
            await asyncio.wait([task.watcher], timeout=1.0)

    async def _kill(self, task: ShellTask, note: str) -> None:
        task.status = "killed"
        task.note = note
        await kill_process_group(task.process)

    async def shutdown(self) -> None:
        """Stop every task (and whatever their process groups left behind). Called when the session ends."""
        running = [t for t in self._tasks.values() if t.running]
        await asyncio.gather(*(self._kill(t, "the session ended") for t in running), return_exceptions=True)
        for task in self._tasks.values():
            if group_alive(task.process.pid):  # children a finished task left in its group
                signal_group(task.process.pid, signal.SIGKILL)
            forget_group(task.process.pid)
            if task.watcher is not None and not task.watcher.done():
                task.watcher.cancel()


def _size_text(size: int) -> str:
    return f"{size // (1024 * 1024)} MB" if size >= 1024 * 1024 else f"{size:,} bytes"


def _size(path: Path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
