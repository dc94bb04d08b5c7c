"""Starting a language server's process: the one place this package starts a program.

Shaped as the spawn door's `start(argv, confine=..., stdin=PIPE, stdout=PIPE, ...)` (branch w4-38a,
`yoke/spawn.py`) so that, once the door is merged, this body becomes one call to it. Until then it uses the
Bash tool's lifetime mechanism (`tools/shell/process.py`): the server runs in a process group of its own,
registered with the guard that kills every listed group when Yoke dies in any way, SIGKILL included; it
first waits at a gate (a line on its stdin) until its group is listed, so a kill of Yoke in between cannot
leave it running unwatched.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import IO

from yoke.tools.shell.process import kill_process_group, track_group

Launcher = Callable[[list[str]], list[str]]  # rewrites an argv to run it confined

# A server's standard output carries whole JSON-RPC frames: this only bounds a header line; `rpc.read_frame`
# bounds a message (MAX_BODY).
STREAM_LIMIT = 1024 * 1024
GATE_LINE = b"1\n"
_GATE_SCRIPT = 'IFS= read -r g && [ "$g" = 1 ] || exit 125; exec "$@"'


async def start_server_process(
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    stderr: IO[bytes] | int,
    confine: Launcher | None = None,
) -> asyncio.subprocess.Process:
    """Start `argv` (confined by `confine`, if given) with pipes on stdin and stdout, in its own process
    group, watched by the guard."""
    full = list(argv) if confine is None else confine(list(argv))
    proc = await asyncio.create_subprocess_exec(
        "/bin/sh",
        "-c",
        _GATE_SCRIPT,
        "yoke-gate",
        *full,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
        cwd=str(cwd),
        env=env,
        start_new_session=True,
        limit=STREAM_LIMIT,
    )
    track_group(proc.pid)
    assert proc.stdin is not None
    proc.stdin.write(GATE_LINE)
    return proc


async def stop_server_process(proc: asyncio.subprocess.Process, grace: float) -> None:
    """End the server's whole group: SIGTERM, SIGKILL after `grace` seconds; then its pipes are closed now
    rather than when the process object is collected (by then the event loop may be gone)."""
    await kill_process_group(proc, grace=grace)
    transport = getattr(proc, "_transport", None)  # asyncio keeps it private; closing it is what wait() skips
    if transport is not None:
        transport.close()
