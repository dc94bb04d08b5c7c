"""The warm start's wire, shared by its client (cli/warm_client.py), its template (cli/warm_template.py) and
the host forking sessions from the template (host/warm.py); docs/warm.md.

One request, length-prefixed marshal (both ends are the same user's Yoke: SO_PEERCRED is checked on both
sides before a byte is sent), with the run's fds 0-2 attached (SCM_RIGHTS); then `{"pid": n}` or
`{"cold": why}`; then the client's bytes are signal numbers to pass on, and the template's last message is
the run's `{"exit": code}` or `{"signal": n}`. Only `os` and `sys` at module level: the client runs this
before anything else of Yoke's."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing itself costs some 9 ms to import, more than the whole client
if TYPE_CHECKING:
    from typing import Any

SOCKET_NAME = "warm.sock"
PROTOCOL = 1
# signals passed on to the run: what a terminal, a shell's job control or a supervisor sends a command
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGWINCH", "SIGUSR1", "SIGUSR2", "SIGTSTP", "SIGCONT")
HANDOVER_TIMEOUT = 10.0  # seconds the template has to fork the run before the command starts cold instead
MAX_MESSAGE = 16 * 1024 * 1024


def fingerprint() -> tuple[Any, ...]:
    """What must be the same in the template and the command for a fork to run what a cold start would."""
    import yoke

    return (
        PROTOCOL,
        sys.version,
        sys.executable,
        os.path.dirname(yoke.__file__),
        getattr(yoke, "__version__", ""),
        tuple(sys.flags),
        tuple(sys.path[1:]),  # [0] is the script's or the working folder: the run takes the command's
        tuple(sorted(sys._xoptions)),
        tuple(sys.warnoptions),
    )


def connect(folder: str) -> Any:
    """A connection to the template in `folder`, or None: a folder not this user's alone (host/owned.py's
    rule) or a listener of another user (SO_PEERCRED) gets nothing sent to it. OSError: no one listening."""
    st = os.lstat(folder)  # this user's alone (host/owned.py's rule), or not used
    if (st.st_mode & 0o170000) != 0o040000 or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        return None
    import _socket

    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(HANDOVER_TIMEOUT)
        conn.connect(os.path.join(folder, SOCKET_NAME))
        if peer_uid(conn) != os.geteuid():  # the listener is not this user's: say nothing to it
            conn.close()
            return None
    except BaseException:
        conn.close()
        raise
    return conn


def peer_uid(conn: Any) -> int | None:
    """The user id of the process at the other end of a Unix socket (SO_PEERCRED); None where the kernel
    does not say (not Linux)."""
    import _socket

    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return None
    creds = conn.getsockopt(_socket.SOL_SOCKET, option, 12)  # struct ucred: pid, uid, gid
    return int.from_bytes(creds[4:8], sys.byteorder)


def process_limits() -> dict[str, Any]:
    """This process's resource limits and niceness: a run forked for it takes them (a cold start would
    have inherited them), or it starts cold where the template cannot give them."""
    import resource

    limits = []
    for name in dir(resource):
        if name.startswith("RLIMIT_"):
            number = getattr(resource, name)
            try:
                limits.append((number, *resource.getrlimit(number)))
            except (ValueError, OSError):
                pass
    return {"rlimits": limits, "nice": os.getpriority(os.PRIO_PROCESS, 0)}


def send_request(conn: Any, request: dict[str, Any], fds: tuple[int, int, int]) -> Any:
    """Send the request with `fds` as the run's 0-2; the template's answer."""
    import _socket
    import marshal

    body = marshal.dumps(request)
    data = len(body).to_bytes(4, "big") + body
    rights = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in fds)
    sent = conn.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, rights)])
    if sent < len(data):
        conn.sendall(data[sent:])
    return read_message(conn)


def stdio_setup(stream: Any) -> tuple[str, str, bool, bool, bool] | None:
    """How a standard stream was set up: its encoding and errors (this command's locale and flags), line
    buffering (a terminal's stdout), write-through, and whether it has a buffer at all (not under -u)."""
    try:
        buffered = hasattr(stream.buffer, "raw")
        return (stream.encoding, stream.errors, stream.line_buffering, stream.write_through, buffered)
    except AttributeError:
        return None


def read_message(conn: Any) -> Any:
    """One length-prefixed marshal message; None at the end of the connection."""
    import marshal

    header = _read_exactly(conn, 4)
    if header is None:
        return None
    size = int.from_bytes(header, "big")
    if size > MAX_MESSAGE:
        raise ValueError("message too large")
    body = _read_exactly(conn, size)
    return None if body is None else marshal.loads(body)


def _read_exactly(conn: Any, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = conn.recv(left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def fork_over_pipes(
    folder: str,
    args: list[str],
    cwd: str,
    env: dict[str, str],
    fds: tuple[int, int, int],
    module: str | None = None,
) -> tuple[Any, int]:
    """A run for one of Yoke's own processes whose standard streams are pipes (a hosted session, a batch
    worker), forked by the template in `folder`: `python -m yoke ARGS`, or `python -m MODULE` (one the
    template allows). (the connection, the run's pid), or (None, 0) when there is no template or it
    declines (the caller starts the process cold)."""
    try:
        conn = connect(folder)
    except OSError:
        return None, 0
    if conn is None:
        return None, 0
    import yoke

    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    encoding, errors = sys.stdout.encoding, sys.stdout.errors  # a pipe's, under this process's locale
    main = os.path.join(os.path.dirname(yoke.__file__), "__main__.py")
    umask = os.umask(0o022)
    os.umask(umask)
    request = {
        "fingerprint": fingerprint(),
        "argv": [main, *args],  # as `-m` sets it
        "module": module,
        "path0": cwd,
        "cwd": cwd,
        "env": env,
        "umask": umask,
        "limits": process_limits(),
        "stdio": [
            (encoding, errors, False, False, True),
            (encoding, errors, False, unbuffered, not unbuffered),
            (encoding, "backslashreplace", False, True, not unbuffered),
        ],
    }
    try:
        reply = send_request(conn, request, fds)
    except (OSError, ValueError, EOFError):
        reply = None
    pid = reply.get("pid") if isinstance(reply, dict) else None
    if not isinstance(pid, int):
        conn.close()
        return None, 0
    return conn, pid


class ForkedProcess:
    """A forked run with the face of `subprocess.Popen` (text pipes) that blocking code uses: a batch
    worker. Signals go over the template's connection; the exit comes back on it; closing it (this process
    gone) makes the template kill the run."""

    def __init__(self, conn: Any, pid: int, stdin: Any, stdout: Any):
        self.conn, self.pid, self.stdin, self.stdout = conn, pid, stdin, stdout
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode if self.returncode is not None else self._end(0.0)

    def wait(self, timeout: float | None = None) -> int:
        code = self.returncode if self.returncode is not None else self._end(timeout)
        if code is None:
            import subprocess

            raise subprocess.TimeoutExpired(f"forked run {self.pid}", timeout or 0.0)
        return code

    def _end(self, timeout: float | None) -> int | None:
        self.conn.settimeout(timeout)
        try:
            message = read_message(self.conn)
        except TimeoutError:
            return None
        except (OSError, ValueError, EOFError):
            message = None
        if isinstance(message, dict) and "signal" in message:
            self.returncode = -int(message["signal"])
        elif isinstance(message, dict):
            self.returncode = int(message.get("exit", 1))
        else:
            self.returncode = -9  # the template went, and its guard took the run with it
        self.conn.close()
        return self.returncode

    def send_signal(self, number: int) -> None:
        if self.returncode is None:
            self.conn.send(bytes([number]))


def fork_with_pipes(
    folder: str, args: list[str], cwd: str, env: dict[str, str], stderr_fd: int, module: str | None = None
) -> tuple[Any, int, int, int] | None:
    """`fork_over_pipes` with fresh pipes as the run's stdin and stdout: (the connection, the run's pid,
    the stdin pipe's write end, the stdout pipe's read end), or None (start it cold)."""
    if env.get("YOKE_NO_WARM", "") not in ("", "0"):
        return None
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    try:
        conn, pid = fork_over_pipes(folder, args, cwd, env, (stdin_r, stdout_w, stderr_fd), module)
    finally:
        os.close(stdin_r)
        os.close(stdout_w)
    if conn is None:
        os.close(stdin_w)
        os.close(stdout_r)
        return None
    return conn, pid, stdin_w, stdout_r


def fork_process(folder: str, module: str, stderr: Any) -> ForkedProcess | None:
    """`python -m MODULE` forked by the template in `folder` with text pipes for stdin and stdout, in this
    process's folder and environment; None: start it cold."""
    forked = fork_with_pipes(folder, [], os.getcwd(), dict(os.environ), stderr.fileno(), module)
    if forked is None:
        return None
    conn, pid, stdin_w, stdout_r = forked
    stdin = os.fdopen(stdin_w, "w", encoding="utf-8")
    stdout = os.fdopen(stdout_r, "r", encoding="utf-8")
    return ForkedProcess(conn, pid, stdin, stdout)
