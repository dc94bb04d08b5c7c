"""The warm start's template: a process of the host's with a run's modules imported, which forks a copy of
itself for each `yoke -p` / `yoke --bg` handed over by cli/warm_client.py. docs/architecture.md, "Warm start".

`python -c 'from yoke.cli.warm_template import main; main()' SOCKET`, started by the host (host/warm.py).
One thread, one poll loop: the listening socket, a wake-up pipe for SIGCHLD and each client's connection.
- A connection is answered only when its peer is this user (SO_PEERCRED), before a byte is read or written.
- The request must match the template (Python, Yoke, flags, sys.path: `warm_wire.fingerprint`), and the
  template's modules must be unchanged on disk; otherwise `{"cold": why}` and the client starts cold (on a
  change the template stops listening and leaves, and the host starts a fresh one).
- The fork (`spawn.fork_warm_run`, the one fork in Yoke) takes the client's fds as 0-2, its standard streams'
  set-up, environment, working folder, umask, argv and sys.path[0], then runs the command's entry point:
  settings, trust and the rest are read as a cold start reads them, from the client's environment.
- The client's bytes are signal numbers to pass on (an allowlist); its connection closing (the client
  killed) kills the run's group; the run's exit (code or signal) is sent back and the connection closed.
"""

from __future__ import annotations

import gc
import io
import marshal
import os
import select
import signal
import socket
import sys
from typing import Any

from yoke import spawn, warm_wire
from yoke.cli import warm_client

PASSED_SIGNALS = frozenset(int(getattr(signal, name)) for name in warm_wire.FORWARDED)
# the command's own entry points; the session's parts come through yoke.session.preload
ENTRY_MODULES = (
    "asyncio",
    "yoke.cli.main",
    "yoke.cli.args_fast",
    "yoke.cli.args_compat",
    "yoke.cli.headless",
    "yoke.cli.headless_session",
    "yoke.cli.options",
    "yoke.cli.printers",
    "yoke.cli.stream_input",
    "yoke.host.commands",
    "yoke.wire.blocks",
    "yoke.wire.hook_lines",
    "yoke.wire.status",
    "yoke.wire.stream",
    "yoke.wire.table",
    "yoke.wire.tasks",
)


# what a run may be besides the `yoke` command (`python -m` of one of Yoke's own processes): an allowlist
RUNNABLE_MODULES = {"yoke.batch.worker": "yoke.batch.worker"}


class _Run:
    def __init__(self, conn: socket.socket, pid: int):
        self.conn = conn
        self.pid = pid


class Template:
    def __init__(self, path: str):
        self.path = path
        self.poll = select.poll()
        self.runs: dict[int, _Run] = {}  # by connection fd
        self.by_pid: dict[int, _Run] = {}
        self.fingerprint = warm_wire.fingerprint()
        self.files = _module_files()
        self.wake_read, self.wake_write = os.pipe()
        os.set_blocking(self.wake_write, False)
        signal.set_wakeup_fd(self.wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wake-up fd hears of it
        self.poll.register(self.wake_read, select.POLLIN)
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        self.listener: socket.socket | None = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # born 0600
        try:
            self.listener.bind(path)
        finally:
            os.umask(old)
        self.inode = os.stat(path).st_ino
        self.listener.listen(64)
        self.poll.register(self.listener.fileno(), select.POLLIN)

    def serve(self) -> None:
        while self.listener is not None or self.runs:
            for fd, _events in self.poll.poll():
                if self.listener is not None and fd == self.listener.fileno():
                    self._accept()
                elif fd == self.wake_read:
                    os.read(self.wake_read, 512)
                    self._reap()
                elif fd in self.runs:
                    self._from_client(self.runs[fd])
        self._unlink()

    # -- a client --------------------------------------------------------------------------------------------
    def _accept(self) -> None:
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        if warm_wire.peer_uid(conn) != os.geteuid():  # authenticated before anything is said or read
            conn.close()
            return
        fds: list[int] = []
        try:
            conn.settimeout(warm_wire.HANDOVER_TIMEOUT)
            request, fds = _receive(conn)
            why = self._refusal(request, fds)
            if why is not None:
                _send(conn, {"cold": why})
                conn.close()
                return
            pid = spawn.fork_warm_run()
            if pid == 0:
                self._become_run(conn, request, fds)  # never returns
            _send(conn, {"pid": pid})
        except (OSError, ValueError, EOFError, TypeError, KeyError):
            conn.close()
            return
        finally:
            for fd in fds:
                os.close(fd)
        conn.setblocking(False)
        run = _Run(conn, pid)
        self.runs[conn.fileno()] = run
        self.by_pid[pid] = run
        self.poll.register(conn.fileno(), select.POLLIN)

    def _refusal(self, request: Any, fds: list[int]) -> str | None:
        if not isinstance(request, dict) or len(fds) != 3:
            return "malformed request"
        if request.get("fingerprint") != self.fingerprint:
            return "another Python or Yoke"
        if _changed(self.files):  # Yoke's files changed: this template is stale; the host starts another
            self._stop_listening()
            return "Yoke changed on disk"
        if not os.path.isdir(str(request.get("cwd"))):
            return "no working folder"
        if request.get("module") is not None and request["module"] not in RUNNABLE_MODULES:
            return "not a module the template runs"
        if not _can_give(request.get("limits")):
            return "resource limits or priority the template cannot give"
        return None

    def _from_client(self, run: _Run) -> None:
        try:
            data = run.conn.recv(64)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the client is gone, however: the run goes with it, as a cold run would have
            spawn.signal_group(run.pid, signal.SIGKILL)
            self._forget(run)
            return
        for number in data:
            if number in PASSED_SIGNALS and run.pid in self.by_pid:
                try:
                    os.kill(run.pid, number)
                except ProcessLookupError:
                    pass

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            run = self.by_pid.pop(pid, None)
            if run is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            try:
                run.conn.setblocking(True)
                _send(run.conn, {"signal": -code} if code < 0 else {"exit": code})
            except OSError:
                pass
            self._forget(run)
            spawn.forget_group(pid)

    def _forget(self, run: _Run) -> None:
        fd = run.conn.fileno()
        if self.runs.pop(fd, None) is not None:
            self.poll.unregister(fd)
        run.conn.close()

    def _stop_listening(self) -> None:
        if self.listener is not None:
            self.poll.unregister(self.listener.fileno())
            self.listener.close()
            self.listener = None
            self._unlink()

    def _unlink(self) -> None:
        try:
            if os.stat(self.path).st_ino == self.inode:  # ours still, not a fresh template's
                os.unlink(self.path)
        except OSError:
            pass

    # -- the run ---------------------------------------------------------------------------------------------
    def _become_run(self, conn: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
        """In the fork: drop the template's sockets and handlers, take on the client's process state, run the
        command's entry point, exit. Never returns."""
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.close(self.wake_read)
            os.close(self.wake_write)
            if self.listener is not None:
                self.listener.close()
            for run in self.runs.values():
                run.conn.close()
            conn.close()
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            fds.clear()
            os.umask(int(request["umask"]))
            _take_limits(request["limits"])
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            _set_locale()
            sys.argv = list(request["argv"])
            sys.path[0] = request["path0"]
            _standard_streams(request["stdio"])
            warm_client.forked = True
            module = request.get("module")
            if module is not None:
                import runpy

                runpy.run_module(RUNNABLE_MODULES[module], run_name="__main__", alter_sys=True)
                _flush()
                os._exit(0)
            from yoke.cli.main import entry

            entry()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            _flush()
            os._exit(code)
        except BaseException:  # noqa: BLE001 - nothing may return into the template's loop
            import traceback

            traceback.print_exc()
            _flush()
            os._exit(1)
        os._exit(0)


def _can_give(limits: Any) -> bool:
    """Whether the run can have the client's resource limits and niceness: a hard limit can only be
    lowered, niceness only raised (without privilege)."""
    import resource

    if not isinstance(limits, dict) or not isinstance(limits.get("rlimits"), list):
        return False
    for number, _soft, hard in limits["rlimits"]:
        try:
            own = resource.getrlimit(number)[1]
        except (ValueError, OSError):
            return False
        if own != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or hard > own):
            return False
    nice = limits.get("nice")
    return isinstance(nice, int) and (nice >= os.getpriority(os.PRIO_PROCESS, 0) or os.geteuid() == 0)


def _take_limits(limits: dict[str, Any]) -> None:
    import resource

    for number, soft, hard in limits["rlimits"]:
        resource.setrlimit(number, (soft, hard))
    os.setpriority(os.PRIO_PROCESS, 0, limits["nice"])


def _receive(conn: socket.socket) -> tuple[Any, list[int]]:
    """The request and the fds that came with it."""
    fds: list[int] = []
    data, ancdata, flags, _ = conn.recvmsg(65536, socket.CMSG_SPACE(3 * 4))
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(payload) - len(payload) % 4
            fds += [
                int.from_bytes(payload[i : i + 4], sys.byteorder, signed=True) for i in range(0, usable, 4)
            ]
    try:
        if flags & socket.MSG_CTRUNC or len(data) < 4:
            raise ValueError("truncated request")
        size = int.from_bytes(data[:4], "big")
        if size > warm_wire.MAX_MESSAGE:
            raise ValueError("request too large")
        body = bytearray(data[4:])
        while len(body) < size:
            chunk = conn.recv(min(size - len(body), 1 << 20))
            if not chunk:
                raise EOFError
            body += chunk
        return marshal.loads(bytes(body[:size])), fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    body = marshal.dumps(message)
    conn.sendall(len(body).to_bytes(4, "big") + body)


def _standard_streams(setups: list[Any]) -> None:
    """sys.stdin/stdout/stderr over the client's fds, set up as the client's were (encoding, errors, line
    buffering: a terminal's stdout is line-buffered, a pipe's is not)."""
    names = ("stdin", "stdout", "stderr")
    for fd, (name, setup) in enumerate(zip(names, setups, strict=True)):
        if setup is None:
            continue
        encoding, errors, line_buffering, write_through, has_buffer = setup
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        raw.name = f"<{name}>"  # type: ignore[misc]
        buffered: Any = raw
        if has_buffer:
            buffered = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(
            buffered,
            encoding=encoding,
            errors=errors,
            newline="\n",
            line_buffering=line_buffering,
            write_through=write_through,
        )
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _set_locale() -> None:
    """As the interpreter does at start: LC_CTYPE from the (client's) environment."""
    import locale

    try:
        locale.setlocale(locale.LC_CTYPE, "")
    except locale.Error:
        pass


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass


def _module_files() -> dict[str, int]:
    """Yoke's loaded modules' files and their modification times: a change means a run would not run the
    code on disk."""
    files = {}
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if name and getattr(module, "__name__", "").startswith("yoke"):
            try:
                files[name] = os.stat(name).st_mtime_ns
            except OSError:
                pass
    return files


def _changed(files: dict[str, int]) -> bool:
    for name, mtime in files.items():
        try:
            if os.stat(name).st_mtime_ns != mtime:
                return True
        except OSError:
            return True
    return False


def preload() -> None:
    import importlib

    from yoke.session.preload import preload as preload_session

    for name in ENTRY_MODULES:
        importlib.import_module(name)
    preload_session()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: warm_template SOCKET", file=sys.stderr)
        return 2
    preload()
    spawn.ensure_guard()
    template = Template(argv[0])
    gc.collect()
    gc.freeze()  # what is imported stays shared with the forks: the collector never writes to it
    template.serve()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
