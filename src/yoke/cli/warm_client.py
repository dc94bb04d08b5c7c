"""The warm start's client: `yoke -p` / `yoke --bg` handed to the host's template (cli/warm_template.py).

When the host's folder holds a template's socket, the command sends what makes a run what it is (its argv,
working folder, environment, umask, how its standard streams are set up, and fds 0-2 themselves, by
SCM_RIGHTS), the template forks a pre-imported copy of itself that runs exactly what a cold start would,
and this process stays as the run's stand-in: the signals it gets are passed on, and the run's exit (a code,
or the signal that ended it) becomes its own. Anything short of a run forked (no host, a socket that is not
this user's, another Python or Yoke, a template about to be refreshed) returns None: the command starts cold,
silently. `YOKE_NO_WARM=1` starts cold always.

Only `os` and `sys` are imported at module level (and `yoke.warm_wire`, the same): this runs before anything
of Yoke's, and every millisecond here is one the warm start is meant to save.
"""

from __future__ import annotations

import os
import sys

from yoke import warm_wire

TYPE_CHECKING = False  # typing itself costs some 9 ms to import, more than the rest of this client
if TYPE_CHECKING:
    from typing import Any

forked = False  # set in a run the template forked: it runs the command itself, never hands it over again


def wanted(argv: list[str]) -> bool:
    """A one-shot, program-driven (stream-json, as the Agent SDK starts it) or background run, and warm
    starts not switched off. Only a guess from the words: the fork parses the flags as a cold start would."""
    if os.environ.get("YOKE_NO_WARM", "") not in ("", "0"):
        return False
    for i, word in enumerate(argv):
        if word in ("-p", "--print", "--bg", "--background"):
            return True
        name, equals, value = word.partition("=")
        if name in ("--output-format", "--input-format"):
            value = value if equals else (argv[i + 1] if i + 1 < len(argv) else "text")
            if value != "text":
                return True
    return False


def run(argv: list[str]) -> int | None:
    """Run `argv` warm: its exit code, or None to start cold. With `YOKE_WARM_REQUIRE=1` a cold start is
    refused instead, in one line that says why (tests and benchmarks make sure they measure a warm run)."""
    code, why = _run(argv)
    if code is None and os.environ.get("YOKE_WARM_REQUIRE") == "1":
        print(f"yoke: no warm start ({why}) and YOKE_WARM_REQUIRE=1", file=sys.stderr)
        return 1
    return code


def _run(argv: list[str]) -> tuple[int | None, str]:
    from yoke.runtime_key import runtime_dir_path

    try:
        conn = warm_wire.connect(runtime_dir_path(os.environ))
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


def _hand_over(conn: Any, argv: list[str]) -> Any:
    for fd in (0, 1, 2):
        os.fstat(fd)  # a closed standard fd cannot be handed over: start cold
    umask = os.umask(0o022)
    os.umask(umask)
    request = {
        "fingerprint": warm_wire.fingerprint(),
        "argv": [sys.argv[0] if sys.argv else "yoke", *argv],
        "path0": sys.path[0] if sys.path else "",
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "umask": umask,
        "limits": warm_wire.process_limits(),
        "stdio": [warm_wire.stdio_setup(stream) for stream in (sys.stdin, sys.stdout, sys.stderr)],
    }
    return warm_wire.send_request(conn, request, (0, 1, 2))


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

    for name in warm_wire.FORWARDED:
        signal.signal(getattr(signal, name), forward)
    conn.settimeout(None)
    try:
        end = warm_wire.read_message(conn)
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
