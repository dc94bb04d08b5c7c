"""Running one foreground command: until it exits, the user interrupts, or its timeout comes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from yoke.tools.shell.process import Launcher, forget_group, kill_process_group, spawn_bash
from yoke.tools.shell.relay import MAX_OUTPUT_BYTES, relay_of


@dataclass(slots=True)
class ForegroundOutcome:
    exit_code: int | None  # None when the command did not finish here
    interrupted: bool = False
    timed_out: bool = False  # reached its timeout and was killed
    process: asyncio.subprocess.Process | None = None  # still running: reached its timeout, handed over
    started_at: float = 0.0


async def run_foreground(
    script: str,
    *,
    cwd: Path,
    env: dict[str, str],
    output_path: Path,
    timeout_s: float,
    cancel: asyncio.Event,
    keep_on_timeout: Callable[[], bool],
    launcher: Launcher | None = None,
) -> ForegroundOutcome:
    """Run `script`; on interrupt (the `cancel` event or task cancellation) kill its whole process group.

    At the timeout, `keep_on_timeout()` decides: True leaves the process running for the caller to move to
    the background (returned in `process`), False kills it.
    """
    started_at = time.time()
    proc = await spawn_bash(
        script,
        cwd=cwd,
        env=env,
        output_path=output_path,
        launcher=launcher,
        max_output_bytes=MAX_OUTPUT_BYTES,
    )
    exited = asyncio.ensure_future(proc.wait())
    interrupted = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({exited, interrupted}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        await kill_process_group(proc)
        raise
    finally:
        interrupted.cancel()
    if exited.done():
        relay = relay_of(proc)
        if relay is not None:
            await relay.settle()  # what it wrote reaches the file before the file is read
        forget_group(proc.pid)
        return ForegroundOutcome(proc.returncode, started_at=started_at)
    exited.cancel()
    if cancel.is_set():
        await kill_process_group(proc)
        return ForegroundOutcome(proc.returncode, interrupted=True, started_at=started_at)
    if keep_on_timeout():
        return ForegroundOutcome(None, process=proc, started_at=started_at)
    await kill_process_group(proc)
    return ForegroundOutcome(proc.returncode, timed_out=True, started_at=started_at)
