"""The warm start's client: `yoke -p` / `yoke --bg` handed to the host's template (cli/warm_template.py).

When the host's folder holds a template's socket, the command sends what makes a run what it is (its argv,
working folder, environment, umask, how its standard streams are set up, and fds 0-2 themselves, by
SCM_RIGHTS), the template forks a pre-imported copy of itself that runs exactly what a cold start would,
and this process stays as the run's stand-in: the signals it gets are passed on, and the run's exit (a code,
or the signal that ended it) becomes its own. Anything short of a run forked (no host, a socket that is not
this user's, another Python or Yoke, a template about to be refreshed) returns None: the command starts cold,
silently. `YOKE_NO_WARM=1` starts cold always.

Only `os` and `sys` are imported at module level and the C socket module on use: this runs before anything
of Yoke's, and every millisecond here is one the warm start is meant to save.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing itself costs some 9 ms to import, more than the rest of this client
if TYPE_CHECKING:
    from typing import Any

SOCKET_NAME = "warm.sock"
PROTOCOL = 1
# signals passed on to the run: what a terminal, a shell's job control or a supervisor sends a command
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGWINCH", "SIGUSR1", "SIGUSR2", "SIGTSTP", "SIGCONT")
HANDOVER_TIMEOUT = 10.0  # seconds the template has to fork the run before the command starts cold instead
MAX_MESSAGE = 16 * 1024 * 1024
forked = False  # set in a run the template forked: it runs the command itself, never hands it over again


def wanted(argv: list[str]) -> bool:
    """A one-shot or background run, and warm starts not switched off."""
    if os.environ.get("YOKE_NO_WARM", "") not in ("", "0"):
        return False
    return any(a in ("-p", "--print", "--bg", "--background") for a in argv)


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


def run(argv: list[str]) -> int | None:
    """Run `argv` warm: its exit code, or None to start cold. With `YOKE_WARM_REQUIRE=1` a cold start is
    refused instead, in one line that says why (tests and benchmarks make sure they measure a warm run)."""
    code, why = _run(argv)
    if code is None and os.environ.get("YOKE_WARM_REQUIRE") == "1":
        print(f"yoke: no warm start ({why}) and YOKE_WARM_REQUIRE=1", file=sys.stderr)
        return 1
    return code


def _run(argv: list[str]) -> tuple[int | None, str]:
    try:
        conn = _connect()
    except OSError as exc:
        return None, f"no host: {exc.strerror or exc}"
    if conn is None:
        return None, "no host of this user's"
    try:
        try:
            reply = _hand_over(conn, argv)
        except (OSError, ValueError, EOFError, TypeError) as exc:
            return None, f"hand-over failed: {exc}"
        if not isinstance(reply, dict) or not isinstance(reply.get("pid"), int):
            return None, str(reply.get("cold") if isinstance(reply, dict) else "no answer")
        return _stand_in(conn), ""
    finally:
        conn.close()


def _connect() -> Any:
    import _socket

    from yoke.runtime_key import runtime_dir_path

    folder = runtime_dir_path(os.environ)
    st = os.lstat(folder)  # this user's alone (host/owned.py's rule), or not used
    if (st.st_mode & 0o170000) != 0o040000 or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        return None
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


def _hand_over(conn: Any, argv: list[str]) -> Any:
    import _socket
    import marshal

    for fd in (0, 1, 2):
        os.fstat(fd)  # a closed standard fd cannot be handed over: start cold
    umask = os.umask(0o022)
    os.umask(umask)
    request = {
        "fingerprint": fingerprint(),
        "argv": [sys.argv[0] if sys.argv else "yoke", *argv],
        "path0": sys.path[0] if sys.path else "",
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "umask": umask,
        "stdio": [_stdio(stream) for stream in (sys.stdin, sys.stdout, sys.stderr)],
    }
    body = marshal.dumps(request)
    data = len(body).to_bytes(4, "big") + body
    fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (0, 1, 2))
    sent = conn.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    if sent < len(data):
        conn.sendall(data[sent:])
    return read_message(conn)


def _stdio(stream: Any) -> tuple[str, str, bool, bool, bool] | None:
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


def _stand_in(conn: Any) -> int:
    """Pass signals on until the run ends; its exit becomes this process's."""
    import signal

    def forward(signum: int, _frame: Any) -> None:
        try:
            conn.send(bytes([signum]))
        except OSError:
            pass
        if signum == signal.SIGTSTP:  # stopped with the run, as a cold command would be
            os.kill(os.getpid(), signal.SIGSTOP)

    for name in FORWARDED:
        signal.signal(getattr(signal, name), forward)
    conn.settimeout(None)
    try:
        end = read_message(conn)
    except (OSError, ValueError, EOFError):
        end = None
    if not isinstance(end, dict):
        print("yoke: the warm start's host went away during the run", file=sys.stderr)
        return 1
    if "signal" in end:
        number = int(end["signal"])
        signal.signal(number, signal.SIG_DFL)
        sys.stdout.flush()
        os.kill(os.getpid(), number)
        return 128 + number
    return int(end.get("exit", 1))
