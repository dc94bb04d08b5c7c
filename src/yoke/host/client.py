"""A blocking client of the host, for the commands: connect (starting the host on demand), requests with a
timeout, and the stream of an attached session."""

from __future__ import annotations

import json
import os
import queue
import socket
import sys
import threading
import time
import uuid
from typing import Any

from yoke.host.owned import open_private
from yoke.host.paths import runtime_dir, socket_path
from yoke.host.protocol import MAX_MESSAGE, REQUEST_TIMEOUT
from yoke.jsonsafe import loads

START_WAIT = 15.0  # seconds for a host started on demand to listen


class HostError(Exception):
    pass


class HostClient:
    """One connection. A thread reads it (a blocking read, never a socket timeout: a timed-out file object
    cannot be read again), so `read(timeout)` waits on a queue and a slow reply is simply waited for."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.reader = sock.makefile("rb")
        self.inbox: list[dict[str, Any]] = []  # streams and notifications read while waiting for a response
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read_all, name="yoke-host-client", daemon=True).start()

    def _read_all(self) -> None:
        try:
            while line := self.reader.readline(MAX_MESSAGE + 1):
                try:
                    message = loads(line)
                except ValueError:
                    continue  # not the host's: the wire is JSON lines by contract
                if isinstance(message, dict):
                    self.lines.put(message)
        except (OSError, ValueError):  # closed under the reader
            pass
        self.lines.put(None)

    @classmethod
    def connect(cls, start: bool = True) -> HostClient:
        path = str(socket_path())
        try:
            return cls(_unix(path))
        except OSError:
            if not start:
                raise HostError("no host is running") from None
        _spawn_host()
        deadline = time.monotonic() + START_WAIT
        while True:
            try:
                return cls(_unix(path))
            except OSError:
                if time.monotonic() > deadline:
                    log = runtime_dir() / "host.log"
                    raise HostError(f"the host did not start within {START_WAIT:.0f} s (see {log})") from None
                time.sleep(0.02)

    def send(self, method: str, params: dict[str, Any] | None = None) -> str:
        ident = uuid.uuid4().hex[:12]
        message = {"id": ident, "type": "request", "payload": {"method": method, "params": params or {}}}
        self.sock.sendall((json.dumps(message) + "\n").encode())
        return ident

    def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = REQUEST_TIMEOUT
    ) -> Any:
        ident = self.send(method, params)
        deadline = time.monotonic() + timeout
        while True:
            message = self._read_socket(max(0.01, deadline - time.monotonic()))
            if message is None:
                raise HostError(f"the host did not answer {method} within {timeout:.0f} s")
            if message.get("id") == ident and message.get("type") in ("response", "error"):
                if message["type"] == "error":
                    raise HostError(str((message.get("payload") or {}).get("message")))
                return message.get("payload")
            self.inbox.append(message)

    def read(self, timeout: float | None) -> dict[str, Any] | None:
        """The next message (None on timeout); HostError when the host closed the connection."""
        if self.inbox:
            return self.inbox.pop(0)
        return self._read_socket(timeout)

    def _read_socket(self, timeout: float | None) -> dict[str, Any] | None:
        try:
            message = self.lines.get(timeout=timeout)
        except queue.Empty:
            return None
        if message is None:
            self.lines.put(None)  # closed: every later read says so too
            raise HostError("the host closed the connection")
        return message

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def _unix(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        raise
    return sock


def _spawn_host() -> None:
    """Start `yoke host` detached from this terminal; it outlives this command."""
    log = open_private(runtime_dir() / "host.log", "ab")  # handed to the child
    with log:
        from yoke import spawn

        # A daemon on purpose: the session host outlives the command that started it.
        spawn.popen(
            [sys.executable, "-m", "yoke", "host"],
            confine=None,
            stdout=log,
            stderr=log,
            cwd=os.path.expanduser("~") if os.path.isdir(os.path.expanduser("~")) else "/",
            daemon=True,
        )
