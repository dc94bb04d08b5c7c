"""Issue 29, items 6-8: every wait is bounded. A provider that accepts and never answers, an MCP server
that answers a tool call with a malformed result, a hook that leaves a process holding its stdout."""

from __future__ import annotations

import json
import socket
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer


class SilentServer:
    """Accepts connections on 127.0.0.1, reads what is sent, never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.accepted = 0
        self.held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def silent():
    server = SilentServer()
    yield server
    server.close()


def test_provider_that_never_sends_headers_is_given_up(yoke, silent):
    env = {
        "ANTHROPIC_BASE_URL": silent.url,
        "ANTHROPIC_API_KEY": "sk-test",
        "YOKE_STREAM_IDLE_TIMEOUT": "1",
        "YOKE_MAX_RETRIES": "2",
    }
    started = time.monotonic()
    run = yoke("-p", "hello", env=env, timeout=60)
    elapsed = time.monotonic() - started
    assert run.code == 1
    assert "no response headers within 1 s" in run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert silent.accepted == 3  # the first try and two retries, each given up after the idle limit
    assert elapsed < 30


def test_retries_stop_at_the_total_deadline(yoke, silent):
    env = {
        "ANTHROPIC_BASE_URL": silent.url,
        "ANTHROPIC_API_KEY": "sk-test",
        "YOKE_STREAM_IDLE_TIMEOUT": "1",
        "YOKE_MAX_RETRIES": "50",
        "YOKE_RETRY_DEADLINE": "4",
    }
    started = time.monotonic()
    run = yoke("-p", "hello", env=env, timeout=60)
    elapsed = time.monotonic() - started
    assert run.code == 1
    assert "YOKE_RETRY_DEADLINE" in run.stdout + run.stderr
    assert 3 <= silent.accepted < 10
    assert elapsed < 30
