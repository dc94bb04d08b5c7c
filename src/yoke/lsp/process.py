"""Starting a language server's process, through the one door (`yoke/spawn.py`): a process group of its own,
listed with the guard that kills every listed group when Yoke dies in any way, SIGKILL included, behind the
gate so a kill of Yoke between start and listing cannot leave it running unwatched.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import IO

from yoke import spawn
from yoke.tools.shell.process import kill_process_group

Launcher = Callable[[list[str]], list[str]]  # rewrites an argv to run it confined

# A server's standard output carries whole JSON-RPC frames: this only bounds a header line; `rpc.read_frame`
# bounds a message (MAX_BODY).
STREAM_LIMIT = 1024 * 1024


async def start_server_process(
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    stderr: IO[bytes] | int,
    confine: Launcher | None = None,
) -> asyncio.subprocess.Process:
    """Start `argv` (confined by `confine`, if given) with pipes on stdin and stdout, through the door."""
    return await spawn.start(
        list(argv),
        confine=confine,
        cwd=cwd,
        env=env,
        stdin=spawn.PIPE,
        stdout=spawn.PIPE,
        stderr=stderr,
        limit=STREAM_LIMIT,
    )


async def stop_server_process(proc: asyncio.subprocess.Process, grace: float) -> None:
    """End the server's whole group: SIGTERM, SIGKILL after `grace` seconds; then its pipes are closed now
    rather than when the process object is collected (by then the event loop may be gone)."""
    await kill_process_group(proc, grace=grace)
    transport = getattr(proc, "_transport", None)  # asyncio keeps it private; closing it is what wait() skips
    if transport is not None:
        transport.close()
