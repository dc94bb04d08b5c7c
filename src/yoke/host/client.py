"""A blocking client of the host, for the commands: connect (starting the host on demand), requests with a
timeout, and the stream of an attached session."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import uuid
from typing import Any

from yoke.host.paths import runtime_dir, socket_path
from yoke.host.protocol import MAX_MESSAGE, REQUEST_TIMEOUT
from yoke.jsonsafe import loads

START_WAIT = 15.0  # seconds for a host started on demand to listen


class HostError(Exception):
    pass


class HostClient:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.reader = sock.makefile("rb")
        self.inbox: list[dict[str, Any]] = []  # streams and notifications read while waiting for a response

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
        self.sock.settimeout(timeout)
        try:
            line = self.reader.readline(MAX_MESSAGE + 1)
        except TimeoutError:
            return None
        finally:
            self.sock.settimeout(None)
        if not line:
            raise HostError("the host closed the connection")
        return loads(line)

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
    log = open(runtime_dir() / "host.log", "ab")  # noqa: SIM115 - handed to the child
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
