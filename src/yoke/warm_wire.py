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
