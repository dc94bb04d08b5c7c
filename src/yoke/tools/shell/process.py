"""One bash process per command, each in its own process group so a whole tree can be stopped at once;
started through the door (`yoke.spawn`), whose lifetime functions the shell's modules take from here."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
from pathlib import Path

from yoke import spawn
from yoke.spawn import Launcher, forget_group, group_alive, signal_group
from yoke.tools.base import ToolError

__all__ = [
    "Launcher",
    "bash_path",
    "forget_group",
    "group_alive",
    "kill_process_group",
    "signal_group",
    "spawn_bash",
]

KILL_GRACE_S = 1.0  # time between SIGTERM and SIGKILL for a group that does not go quietly


def bash_path() -> str:
    found = shutil.which("bash") or ("/bin/bash" if os.path.exists("/bin/bash") else None)
    if found is None:
        raise ToolError("bash was not found on PATH; the Bash tool needs it.")
    return found


async def spawn_bash(
    script: str,
    *,
    cwd: Path,
    env: dict[str, str],
    output_path: Path,
    launcher: Launcher | None = None,
    max_output_bytes: int | None = None,
) -> asyncio.subprocess.Process:
    """Start `bash -c script` in a new session, stdout and stderr appended to `output_path` in order; with
    `max_output_bytes`, through a relay that stops the command at that size (`relay.py`)."""
    output_path.parent.mkdir(parents=True, exist_ok=True)
    # The script itself waits at the door's gate line (`spawn.GATE_LINE`) until the guard knows its group,
    # so no `sh` is put in front of it; after the gate, stdin is at end of file like /dev/null. (Same line:
    # line numbers in bash errors stay those of the script.)
    argv = [bash_path(), "--noprofile", "--norc", "-c", _GATE + script]
    relay = out_fd = None
    if max_output_bytes is not None:
        from yoke.tools.shell.relay import relay_pipe

        relay, out_fd = relay_pipe(output_path, max_output_bytes)
    try:
        with open(output_path, "ab") as out:
            proc = await spawn.start(
                argv,
                confine=launcher,
                stdout=out if out_fd is None else out_fd,
                stderr=spawn.STDOUT,
                cwd=cwd,
                env=env,
                reads_gate=True,
            )
        if relay is not None:
            relay.start(proc.pid)
            proc.yoke_output_relay = relay  # type: ignore[attr-defined]
    except BaseException:
        if relay is not None and relay.pgid is None:
            relay.discard()
        raise
    finally:
        if out_fd is not None:
            os.close(out_fd)
    return proc


_GATE = 'IFS= read -r __yoke_gate && [ "$__yoke_gate" = 1 ] || exit 125; unset __yoke_gate; '


async def kill_process_group(proc: asyncio.subprocess.Process, grace: float = KILL_GRACE_S) -> None:
    """SIGTERM the command's whole group, then SIGKILL whatever is left after `grace` seconds.

    The SIGKILL step sits in `finally` so that a second cancellation while waiting still ends the tree.
    """
    pgid = proc.pid
    signal_group(pgid, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    try:
        while loop.time() < deadline:
            if proc.returncode is not None and not group_alive(pgid):
                break
            await asyncio.sleep(0.02)
    finally:
        if group_alive(pgid):
            signal_group(pgid, signal.SIGKILL)
    try:
        await asyncio.wait_for(proc.wait(), timeout=grace)
    except TimeoutError:
        pass
    forget_group(pgid)
