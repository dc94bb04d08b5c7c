"""A private runtime folder per test (a short path: a Unix socket's path is at most 107 bytes), and the
host stopped afterwards, whatever the test did."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from tests.conftest import kill_processes_with


@pytest.fixture
def host_env(base_env, project):
    runtime = tempfile.mkdtemp(prefix="yk")
    env = dict(base_env, XDG_RUNTIME_DIR=runtime, YOKE_HOST_IDLE_STOP="30")
    from yoke.config.trust import trust_folder

    trust_folder(
        project, Path(base_env["YOKE_HOME"])
    )  # `yoke --bg` runs only in a trusted folder, as 2.1.332
    yield env
    _stop_host(runtime_of(env))
    kill_processes_with("XDG_RUNTIME_DIR", runtime)  # a host that did not answer, and its sessions
    shutil.rmtree(runtime, ignore_errors=True)


def _stop_host(folder: Path) -> None:
    for line in (folder / "host.log").read_text().splitlines() if (folder / "host.log").exists() else []:
        print("host.log:", line)
    try:
        client = Raw(folder / "host.sock")
        pid = client.call("hello")["payload"]["host"]
        os.kill(pid, signal.SIGKILL)
    except (OSError, KeyError, TypeError):
        pass


class Raw:
    """A bare client: lines out, lines in, nothing hidden."""

    def __init__(self, path: Path | str | tuple[str, int]):
        family = socket.AF_INET if isinstance(path, tuple) else socket.AF_UNIX
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(path if isinstance(path, tuple) else str(path))
        self.reader = self.sock.makefile("rb")
        self.count = 0
        self.seen: list[dict] = []
        self.used: set[int] = set()  # indexes into seen that an `until` returned

    def send_line(self, data: bytes) -> None:
        self.sock.sendall(data)

    def request(self, method: str, params: dict | None = None) -> str:
        self.count += 1
        ident = f"r{self.count}"
        message = {"id": ident, "type": "request", "payload": {"method": method, "params": params or {}}}
        self.sock.sendall((json.dumps(message) + "\n").encode())
        return ident

    def read(self) -> dict | None:
        line = self.reader.readline()
        if not line:
            return None
        message = json.loads(line)
        self.seen.append(message)
        return message

    def call(self, method: str, params: dict | None = None) -> dict:
        ident = self.request(method, params)
        return self.until(lambda m: m.get("id") == ident and m["type"] in ("response", "error"))

    def until(self, predicate, timeout: float = 60) -> dict:
        """The first message not returned before that matches, whether already read or still to come."""
        for index, message in enumerate(self.seen):
            if index not in self.used and predicate(message):
                self.used.add(index)
                return message
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self.read()
            assert message is not None, f"connection closed; seen {self.seen[-5:]}"
            if predicate(message):
                self.used.add(len(self.seen) - 1)
                return message
        raise AssertionError(f"not seen within {timeout} s; last {self.seen[-5:]}")

    def stream(self) -> list[dict]:
        return [m["payload"] for m in self.seen if m["type"] == "stream"]

    def close(self) -> None:
        self.sock.close()


def yoke_cmd(env, cwd, *args, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "yoke", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def wait_for(check, timeout: float = 60, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s")
        time.sleep(interval)


def agents(env, cwd, *flags) -> list[dict]:
    run = yoke_cmd(env, cwd, "agents", "--json", *flags)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def runtime_of(env) -> Path:
    """The host's folder for this environment's configuration home (`yoke.host.paths.runtime_dir`)."""
    from yoke.host.paths import runtime_dir

    return runtime_dir(env)


def socket_of(env) -> Path:
    return runtime_of(env) / "host.sock"
