"""One bash process per command, each in its own process group so a whole tree can be stopped at once."""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

from yoke.tools.base import ToolError

KILL_GRACE_S = 1.0  # time between SIGTERM and SIGKILL for a group that does not go quietly

# Process groups still possibly alive, killed at interpreter exit should the session not shut down cleanly.
# This is the one piece of module state: a backstop must outlive any session object.
_live_groups: set[int] = set()
_atexit_registered = False


def bash_path() -> str:
    found = shutil.which("bash") or ("/bin/bash" if os.path.exists("/bin/bash") else None)
    if found is None:
        raise ToolError("bash was not found on PATH; the Bash tool needs it.")
    return found


Launcher = Callable[[list[str]], list[str]]  # rewrites the argv, e.g. to run it inside the sandbox


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
    # The command waits at a gate until the guard knows its group: were Yoke killed between the spawn and
    # `track_group`, the gate's pipe closes unopened and the command exits instead of running unwatched.
    # The pipe is then the command's stdin, at end of file like /dev/null. (Same line: line numbers in bash
    # errors stay those of the script.)
    argv = [bash_path(), "--noprofile", "--norc", "-c", _GATE + script]
    if launcher is not None:
        argv = launcher(argv)
    relay = out_fd = None
    if max_output_bytes is not None:
        from yoke.tools.shell.relay import relay_pipe

        relay, out_fd = relay_pipe(output_path, max_output_bytes)
    gate_read, gate_write = os.pipe()
    try:
        with open(output_path, "ab") as out:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=gate_read,
                stdout=out if out_fd is None else out_fd,
                stderr=asyncio.subprocess.STDOUT,
                cwd=str(cwd),
                env=env,
                start_new_session=True,
            )
        os.close(gate_read)
        gate_read = -1
        track_group(proc.pid)
        if relay is not None:
            relay.start(proc.pid)
            proc.yoke_output_relay = relay  # type: ignore[attr-defined]
        os.write(gate_write, b"1")
    except BaseException:
        if relay is not None and relay.pgid is None:
            relay.discard()
        raise
    finally:
        if gate_read >= 0:
            os.close(gate_read)
        os.close(gate_write)
        if out_fd is not None:
            os.close(out_fd)
    return proc


_GATE = 'IFS= read -r -n 1 __yoke_gate && [ "$__yoke_gate" = 1 ] || exit 125; unset __yoke_gate; '


def track_group(pgid: int) -> None:
    global _atexit_registered
    for old in [g for g in _live_groups if not group_alive(g)]:  # pids get reused: keep only live groups
        _live_groups.discard(old)
        _tell_guard(f"-{old}")
    _live_groups.add(pgid)
    _tell_guard(f"+{pgid}")
    if not _atexit_registered:
        atexit.register(_kill_tracked_groups)
        _atexit_registered = True


# The guard: a small bash process, in a session of its own, reading the groups to watch from a pipe only
# Yoke writes to. When Yoke dies in any way, SIGKILL included, the pipe closes and the guard kills every
# group still listed, so no command outlives the session that started it.
_GUARD_SCRIPT = (
    'declare -A g; while IFS= read -r l; do case $l in +*) g[${l:1}]=1;; -*) unset "g[${l:1}]";; '
    'esac; done; for p in "${!g[@]}"; do kill -KILL -- "-$p" 2>/dev/null; done'
)
_guard_fd: int | None = None


def _tell_guard(line: str) -> None:
    global _guard_fd
    if _guard_fd is None:
        _guard_fd = _start_guard()
    if _guard_fd < 0:
        return
    try:
        os.write(_guard_fd, (line + "\n").encode())
    except OSError:
        _guard_fd = -1  # the guard is gone; the atexit backstop remains


def _start_guard() -> int:
    import subprocess

    bash = shutil.which("bash")
    if bash is None:
        return -1
    read_end, write_end = os.pipe()  # not inherited by other children (PEP 446)
    try:
        subprocess.Popen(
            [bash, "--noprofile", "--norc", "-c", _GUARD_SCRIPT],
            stdin=read_end,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        os.close(write_end)
        return -1
    finally:
        os.close(read_end)
    return write_end


def group_alive(pgid: int) -> bool:
    """Whether any process of the group is still running. Zombies do not count: an orphan's zombie may
    linger until init gets round to reaping it, and it can no longer do anything."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _has_live_member(pgid)


def _has_live_member(pgid: int) -> bool:
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True  # no /proc (macOS): trust the signal check
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != b"Z":
            return True
    return False


def signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to the group; False if no member is left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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


def forget_group(pgid: int) -> None:
    """Stop tracking a group once nothing in it can be running any more."""
    if not group_alive(pgid):
        _live_groups.discard(pgid)
        _tell_guard(f"-{pgid}")


def _kill_tracked_groups() -> None:
    for pgid in list(_live_groups):
        signal_group(pgid, signal.SIGKILL)
    _live_groups.clear()
