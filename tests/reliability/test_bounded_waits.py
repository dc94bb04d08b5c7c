"""Issue 29, items 6-8: every wait is bounded. A provider that accepts and never answers, an MCP server
that answers a tool call with a malformed result, a hook that leaves a process holding its stdout."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time

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
            self._answer(conn)

    def _answer(self, conn: socket.socket) -> None:
        pass  # silence

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


class PingOnlyServer(SilentServer):
    """Answers every request with 200 and an event stream, then sends only keep-alive pings (a ping event
    and a comment) every 0.1 s, for ever: bytes keep coming, progress never does."""

    def _answer(self, conn: socket.socket) -> None:
        threading.Thread(target=self._ping, args=(conn,), daemon=True).start()

    @staticmethod
    def _ping(conn: socket.socket) -> None:
        try:
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
            )
            ping = b'event: ping\ndata: {"type": "ping"}\n\n: keep-alive\n\n'
            chunk = b"%x\r\n%s\r\n" % (len(ping), ping)
            while True:
                conn.sendall(chunk)
                time.sleep(0.1)
        except OSError:
            return


@pytest.mark.parametrize("client", ["http1", "httpx"])
def test_provider_sending_only_pings_reaches_the_deadline(yoke, client):
    """Issue 40 item 6: the idle limit counts progress, not bytes. A streamed answer of pings is given up
    after YOKE_STREAM_IDLE_TIMEOUT, and the unstreamed retry (pings again) after API_TIMEOUT_MS."""
    server = PingOnlyServer()
    env = {
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "sk-test",
        "YOKE_STREAM_IDLE_TIMEOUT": "1",
        "API_TIMEOUT_MS": "2000",
        "YOKE_MAX_RETRIES": "1",
        "YOKE_RETRY_BASE_DELAY": "0.1",
        "YOKE_HTTP_CLIENT": client,
    }
    try:
        run = yoke("-p", "hello", env=env, timeout=120)
    finally:
        server.close()
    out = run.stdout + run.stderr
    assert run.code == 1, out
    assert "Traceback" not in run.stderr
    assert "no data from the API for 1 s" in out or "retrying without streaming" in out, out
    assert server.accepted >= 2  # the stream, then the unstreamed retry


MALFORMED_SERVER = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method = msg.get("method")
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "bad", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "boom", "description": "d", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        result = 5  # not an object: a malformed reply
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""


def _tool_results(run) -> list[dict]:
    out = []
    for line in run.lines():
        if line.get("type") == "user" and isinstance(line["message"]["content"], list):
            out += [b for b in line["message"]["content"] if b.get("type") == "tool_result"]
    return out


def test_mcp_malformed_tool_result_is_an_error_at_once(yoke, tmp_path):
    script = tmp_path / "bad_server.py"
    script.write_text(MALFORMED_SERVER)
    cfg = tmp_path / "servers.json"
    cfg.write_text(json.dumps({"mcpServers": {"bad": {"command": sys.executable, "args": [str(script)]}}}))
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_1", "name": "mcp__bad__boom", "input": {}}]},
        {"content": "done"},
    ]
    started = time.monotonic()
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "go", "--output-format", "stream-json", "--verbose",
            "--mcp-config", str(cfg), "--allowedTools", "mcp__bad",
            env=anthropic_env(srv), timeout=60,
        )  # fmt: skip
    assert run.code == 0, run.stderr
    assert time.monotonic() - started < 30
    (result,) = _tool_results(run)
    assert result["is_error"] is True
    assert "malformed reply" in json.dumps(result["content"])


def test_mcp_tool_timeout_default_and_override(tmp_path):
    from yoke.mcp.manager import DEFAULT_TOOL_TIMEOUT_S, McpManager

    assert McpManager({}, tmp_path, env={}).tool_timeout == DEFAULT_TOOL_TIMEOUT_S
    assert McpManager({}, tmp_path, env={"MCP_TOOL_TIMEOUT": "1500"}).tool_timeout == 1.5


def test_mcp_call_unanswered_ends_at_mcp_tool_timeout(yoke, tmp_path):
    script = tmp_path / "mute_server.py"
    script.write_text(MALFORMED_SERVER.replace("result = 5  # not an object: a malformed reply", "continue"))
    cfg = tmp_path / "servers.json"
    cfg.write_text(json.dumps({"mcpServers": {"bad": {"command": sys.executable, "args": [str(script)]}}}))
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_1", "name": "mcp__bad__boom", "input": {}}]},
        {"content": "done"},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "go", "--output-format", "stream-json", "--verbose",
            "--mcp-config", str(cfg), "--allowedTools", "mcp__bad",
            env={**anthropic_env(srv), "MCP_TOOL_TIMEOUT": "2000"}, timeout=60,
        )  # fmt: skip
    assert run.code == 0, run.stderr
    (result,) = _tool_results(run)
    assert result["is_error"] is True and "did not answer within 2 s" in json.dumps(result["content"])


def test_hook_leaving_a_process_on_stdout_is_not_waited_for(yoke, project, home):
    from yoke.config.trust import trust_folder

    hook = project / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {project}/ran\n(sleep 60; echo late) &\necho '{{}}'\nexit 0\n")
    hook.chmod(0o755)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "UserPromptSubmit": [
                        {"hooks": [{"type": "command", "command": str(hook), "timeout": 50}]}
                    ]
                }
            }
        )
    )
    trust_folder(project, home / ".yoke")
    started = time.monotonic()
    with ScriptedServer([{"content": "hi"}]) as srv:
        run = yoke("-p", "hello", env=anthropic_env(srv), timeout=120)
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "hi"
    assert (project / "ran").exists()
    assert time.monotonic() - started < 20  # not the hook's 50 s timeout
