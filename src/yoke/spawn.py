"""The one door: every process Yoke starts is started here (`scripts/check_spawn.py`, run by `make lint`,
fails on any other `subprocess`, `asyncio.create_subprocess_*`, `os.exec*`/`spawn*`/`fork` in src/yoke
but for its commented allowlist).

Each start takes two decisions, both explicit at the call:
- `confine`: the argv rewriter the gate's decision built (`sandbox.confine.confine_command` for a fast
  path's confinement, the session's sandbox for the rest; see `tools/shell/confinement.py`), applied here
  to the argv before anything starts; `None` only for a process whose program and arguments are Yoke's or
  the user's own configuration (hooks, MCP servers, status lines, hardened git), never the model's.
- lifetime: by default the process dies with Yoke, SIGKILL of Yoke included. One mechanism does it for
  every child: it starts in a process group of its own, the group is handed to a small guard process
  watching a pipe only Yoke holds, and when that pipe closes (Yoke gone, however) the guard signals every
  group still listed (SIGTERM, then SIGKILL). The child first waits at a gate on its stdin until its group
  is listed, so a kill of Yoke between the start and the listing cannot leave it running unwatched.
  `daemon=True` is the one exception, for the processes Yoke means to leave behind (the session host, a
  detached memory extraction): each such call says why.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Sequence
from typing import IO, Any

Launcher = Callable[[list[str]], list[str]]  # rewrites an argv to run it confined (bwrap, sandbox-exec)

PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
STDOUT = subprocess.STDOUT

# The gate: a line on stdin says the group is listed; without it (Yoke died first, the pipe closed unread)
# the child exits 125 before running anything. `sh` reads a line one byte at a time from a pipe, so what
# follows the gate line is the program's stdin, untouched; a program asked to have no input gets /dev/null
# (as a pipe at its end it might read as input: ripgrep searches a piped stdin).
GATE_LINE = b"1\n"
_GATE_SCRIPT = 'IFS= read -r g && [ "$g" = 1 ] || exit 125; exec "$@"'
_SH = "/bin/sh"


def gated(argv: list[str], no_input: bool = False) -> list[str]:
    """`argv` behind the gate (what the door runs when the program does not read the gate line itself)."""
    script = _GATE_SCRIPT + (" </dev/null" if no_input else "")
    return [_SH, "-c", script, "yoke-gate", *argv]


def shell_argv(command: str) -> list[str]:
    """The argv of `sh -c command` (what `create_subprocess_shell` would run)."""
    return [_SH, "-c", command]


def _prepare(
    argv: Sequence[str], confine: Launcher | None, reads_gate: bool, daemon: bool, stdin: int | None
) -> list[str]:
    out = list(argv)
    if confine is not None:
        out = confine(out)
    return out if daemon or reads_gate else gated(out, no_input=stdin == DEVNULL)


async def start(
    argv: Sequence[str],
    *,
    confine: Launcher | None,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    stdin: int | None = DEVNULL,
    stdout: int | IO[Any] | None = None,
    stderr: int | IO[Any] | None = None,
    limit: int | None = None,
    daemon: bool = False,
    reads_gate: bool = False,
) -> asyncio.subprocess.Process:
    """Start `argv` (asyncio), confined by `confine`, in a group of its own that dies with Yoke.

    `stdin` is PIPE or DEVNULL (a gate pipe that reads as empty once open); `reads_gate`: the program reads
    the gate line itself (the Bash tool's script), so no `sh` is put in front."""
    full = _prepare(argv, confine, reads_gate, daemon, stdin)
    extra: dict[str, Any] = {"limit": limit} if limit is not None else {}
    with _Gate(stdin, daemon) as gate:
        proc = await asyncio.create_subprocess_exec(
            *full,
            stdin=gate.stdin,
            stdout=stdout,
            stderr=stderr,
            cwd=None if cwd is None else str(cwd),
            env=env,
            start_new_session=True,
            **extra,
        )
        gate.open(proc.pid, proc.stdin.write if proc.stdin is not None else None)
    return proc


def popen(
    argv: Sequence[str],
    *,
    confine: Launcher | None,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    stdin: int | None = DEVNULL,
    stdout: int | IO[Any] | None = None,
    stderr: int | IO[Any] | None = None,
    text: bool = False,
    daemon: bool = False,
) -> subprocess.Popen[Any]:
    """`start` for blocking code: a `subprocess.Popen`, its group listed and its gate open."""
    full = _prepare(argv, confine, False, daemon, stdin)
    with _Gate(stdin, daemon) as gate:
        proc = subprocess.Popen(
            full,
            stdin=gate.stdin,
            stdout=stdout,
            stderr=stderr,
            cwd=None if cwd is None else str(cwd),
            env=env,
            start_new_session=True,
            text=text,
            encoding="utf-8" if text else None,
            errors="replace" if text else None,
        )
        pipe = proc.stdin

        def write(line: bytes) -> None:
            assert pipe is not None
            pipe.write(line.decode() if text else line)
            pipe.flush()

        gate.open(proc.pid, write if pipe is not None else None)
    return proc


class _Gate:
    """The gate for one child: its stdin (the caller's pipe, or a pipe of the gate's own that reads as
    empty once the line is through), opened once the child's group is listed with the guard."""

    def __init__(self, stdin: int | None, daemon: bool) -> None:
        self.daemon = daemon
        self.stdin: Any = stdin
        self._read = self._write = -1
        if not daemon and stdin != PIPE:
            self._read, self._write = os.pipe()
            self.stdin = self._read

    def __enter__(self) -> _Gate:
        return self

    def open(self, pid: int, write: Callable[[bytes], Any] | None) -> None:
        """The child started: list its group, then let it through (on its stdin pipe when it has one)."""
        self._close_read()
        if self.daemon:
            return
        track_group(pid)
        if write is not None:
            write(GATE_LINE)
        else:
            os.write(self._write, GATE_LINE)

    def _close_read(self) -> None:
        if self._read >= 0:
            os.close(self._read)
            self._read = -1

    def __exit__(self, *exc: object) -> None:
        self._close_read()
        if self._write >= 0:
            os.close(self._write)
            self._write = -1


def run(
    argv: Sequence[str],
    *,
    confine: Launcher | None,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    input: bytes | str | None = None,
    timeout: float | None = None,
    text: bool = False,
) -> subprocess.CompletedProcess[Any]:
    """Run to completion and capture stdout and stderr (blocking); at `timeout` the whole group is killed
    and `subprocess.TimeoutExpired` raised. OSError when the program cannot start."""
    proc = popen(
        argv,
        confine=confine,
        cwd=cwd,
        env=env,
        stdin=PIPE if input is not None else DEVNULL,
        stdout=PIPE,
        stderr=PIPE,
        text=text,
    )
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except BaseException:
        signal_group(proc.pid, signal.SIGKILL)
        proc.kill()
        proc.communicate()
        raise
    finally:
        forget_group(proc.pid)
    return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)


# ---- lifetime: the guard ------------------------------------------------------------------------------

# Process groups still possibly alive, killed at interpreter exit should the session not shut down cleanly.
# The one piece of module state: a backstop must outlive any session object.
_live_groups: set[int] = set()
_atexit_registered = False
_lock = threading.Lock()  # git is started from worker threads too
GUARD_GRACE_S = "1"  # between the guard's SIGTERM and its SIGKILL


def track_group(pgid: int) -> None:
    """List a group with the guard (the door does this for every child it starts)."""
    global _atexit_registered
    with _lock:
        # pids get reused: drop the groups that are gone (the cheap check: a signal-0 per group, no /proc
        # scan on every start; a group of zombies goes once they are reaped)
        for old in [g for g in _live_groups if not signal_group(g, 0)]:
            _live_groups.discard(old)
            _tell_guard(f"-{old}")
        _live_groups.add(pgid)
        _tell_guard(f"+{pgid}")
        if not _atexit_registered:
            atexit.register(_kill_tracked_groups)
            _atexit_registered = True


# The guard: a small bash process, in a session of its own, reading the groups to watch from a pipe only
# Yoke writes to. When Yoke dies in any way, SIGKILL included, the pipe closes and the guard signals every
# group still listed: SIGTERM (a hosted session writes its last line), then SIGKILL.
_GUARD_SCRIPT = (
    'declare -A g; while IFS= read -r l; do case $l in +*) g[${l:1}]=1;; -*) unset "g[${l:1}]";; '
    'esac; done; [ ${#g[@]} = 0 ] && exit; for p in "${!g[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done; '
    '"$0" ' + GUARD_GRACE_S + '; for p in "${!g[@]}"; do kill -KILL -- "-$p" 2>/dev/null; done'
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
    bash = _bash()
    if bash is None:
        return -1
    read_end, write_end = os.pipe()  # not inherited by other children (PEP 446)
    try:
        # The guard itself: Yoke's own program, never listed (it is what outlives Yoke to end the rest).
        sleep = fixed_program("sleep", "/bin:/usr/bin:/usr/local/bin") or "true"  # $0: whatever PATH is
        subprocess.Popen(
            [bash, "--noprofile", "--norc", "-c", _GUARD_SCRIPT, sleep],
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


def _bash() -> str | None:
    return fixed_program("bash", "/bin:/usr/bin:/usr/local/bin")


def fixed_program(name: str, path: str) -> str | None:
    """The first executable `name` on `path` (`shutil.which`'s rule, without importing shutil and the
    compression modules it brings: some 5 ms of start-up, in a run that needs neither)."""
    for folder in path.split(os.pathsep):
        candidate = os.path.join(folder, name)
        if os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return candidate
    return None


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


def forget_group(pgid: int) -> None:
    """Stop listing a group once nothing in it can be running any more."""
    if not group_alive(pgid):
        with _lock:
            _live_groups.discard(pgid)
            _tell_guard(f"-{pgid}")


def _kill_tracked_groups() -> None:
    for pgid in list(_live_groups):
        signal_group(pgid, signal.SIGKILL)
    _live_groups.clear()


# ---- the one fork: the warm start ----------------------------------------------------------------------------


def ensure_guard() -> None:
    """Start the guard now rather than at the first listed child (the warm template: off a run's path)."""
    global _guard_fd
    if _guard_fd is None:
        _guard_fd = _start_guard()


def fork_warm_run() -> int:
    """The one `os.fork` in Yoke (scripts/check_spawn.py allows it here, in this function only): the warm
    template (cli/warm_template.py), its modules imported, copies itself into a run of the command for a
    client. Returns 0 in the run, the run's pid in the template.

    Lifetime, as the door's: the run is in a session and group of its own (no controlling terminal: the
    client's terminal is only its fds), listed with the template's guard, so it dies with the template; the
    template ends its group when the client goes. It waits at a gate until it is listed (a template killed in
    between leaves it nothing to run). In the run the template's guard is dropped: what the run starts is
    listed with a guard of its own, so it dies with the run."""
    global _guard_fd
    read_end, write_end = os.pipe()
    pid = os.fork()  # the allowlisted fork
    if pid == 0:
        os.close(write_end)
        if _guard_fd is not None and _guard_fd >= 0:
            os.close(_guard_fd)
        _guard_fd = None
        _live_groups.clear()
        os.setsid()
        listed = os.read(read_end, 1)
        os.close(read_end)
        if listed != GATE_LINE[:1]:
            os._exit(125)
        return 0
    os.close(read_end)
    try:
        track_group(pid)
        os.write(write_end, GATE_LINE[:1])
    finally:
        os.close(write_end)
    return pid
