"""Issue 40 items 8 and 11: every listener has per-connection deadlines and limits, and the host's memory and
logs are bounded. Real hosts, real sockets, the scripted server."""

from __future__ import annotations

import json
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import anthropic_env
from tests.host.conftest import Raw, runtime_of, socket_of, wait_for, yoke_cmd

from yoke.testing import ScriptedServer


def _start(env, project, *args) -> str:
    run = yoke_cmd(env, project, "--bg", *args)
    assert run.returncode == 0, run.stderr
    return run.stdout.split("· ")[1].split()[0]


def _result(message) -> bool:
    inner = (message.get("payload") or {}).get("message") or {}
    return message["type"] == "stream" and inner.get("type") == "result"


def _few_fds() -> None:  # pragma: no cover - runs in the host's process before exec
    resource.setrlimit(resource.RLIMIT_NOFILE, (160, 160))  # soft and hard: the host cannot raise it


def _dropped(sock: socket.socket) -> bytes:
    """Read until the host closes the connection (a reset counts): b"unauthorized" when it said so first."""
    sock.settimeout(30)
    said = b""
    try:
        while chunk := sock.recv(65536):
            said += chunk
    except ConnectionResetError:
        pass
    return b"unauthorized" if b"unauthorized" in said else said


def test_idle_unauthenticated_connections_are_dropped_and_cannot_use_up_the_host(host_env, project):
    """300 TCP connections that never say hello, against a host allowed 160 descriptors: the host still
    answers its Unix socket and a client with the token; each idle one is dropped after the hello deadline."""
    env = dict(host_env, YOKE_HOST_HELLO_TIMEOUT="2")
    proc = subprocess.Popen(
        [sys.executable, "-m", "yoke", "host", "--tcp", "127.0.0.1:0"],
        env=env,
        stdout=subprocess.DEVNULL,
        preexec_fn=_few_fds,
    )
    idle: list[socket.socket] = []
    try:
        folder = runtime_of(env)
        port = int(wait_for(lambda: (folder / "host.port").exists() and (folder / "host.port").read_text()))
        for _ in range(300):
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=30))
        assert Raw(socket_of(env)).call("list")["type"] == "response"  # what `yoke --bg` needs
        started = time.monotonic()
        for sock in idle:  # past the deadline, or over the cap at once
            assert _dropped(sock) in (b"", b"unauthorized")
        assert time.monotonic() - started < 25  # the deadline (2 s), not the test's 30 s timeout
        friend = Raw(("127.0.0.1", port))
        assert friend.call("hello", {"token": (folder / "host.token").read_text()})["type"] == "response"
        time.sleep(3)
        assert friend.call("list")["type"] == "response"  # an authenticated client has no deadline
    finally:
        for sock in idle:
            sock.close()
        proc.kill()
        proc.wait()


def test_a_line_over_the_limit_does_not_cost_the_next_request(host_env, project):
    """A line just over 10 MB, with the next request right behind it in the same write: an error for the
    long one, an answer for the next."""
    with ScriptedServer([{"content": "ok"}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        _start(env, project, "hello")
        client = Raw(socket_of(env))
        pad = b"a" * ((10 << 20) + 100)
        long_line = (
            b'{"id":"x","type":"request","payload":{"method":"hello","params":{"pad":"' + pad + b'"}}}\n'
        )
        client.send_line(long_line + b'{"id":"next","type":"request","payload":{"method":"hello"}}\n')
        reply = client.until(lambda m: m["type"] == "error")
        assert reply["payload"]["code"] == "message_too_large"
        assert client.until(lambda m: m.get("id") == "next", timeout=30)["type"] == "response"


def test_a_malformed_start_is_an_error_reply_not_a_dropped_connection(host_env, project):
    _start(host_env, project, "hello")  # the host starts (the session, without a key, fails: no matter)
    client = Raw(socket_of(host_env))
    for params in (
        {"args": 5, "cwd": str(project)},
        {"cwd": ["not", "a", "path"]},
        {"cwd": {"a": 1}},
    ):
        reply = client.call("start", params)
        assert reply["type"] == "error" and reply["payload"]["code"] in ("invalid_params", "failed"), reply
    assert client.call("hello")["type"] == "response"
    log = (socket_of(host_env).parent / "host.log").read_text()
    assert "Traceback" not in log


def _turns(env, ident: str, more: int) -> Raw:
    """Attached as the driver: the first turn's result, then `more` prompts, each to its result."""
    driver = Raw(socket_of(env))
    driver.call("attach", {"session": ident, "since": 0})
    driver.until(_result)
    for n in range(more):
        driver.call("prompt", {"session": ident, "text": f"more {n}"})
        driver.until(_result, timeout=60)
    return driver


def test_a_client_dropped_for_reading_slowly_catches_up_on_reconnect(host_env, project):
    """A backlog larger than a client's buffer is sent at the pace the client reads: it gets every message
    after its last seq, in order, with no gap."""
    big = "y" * 150_000
    turns = [{"content": [{"type": "text", "text": big}]} for _ in range(5)]
    with ScriptedServer(turns) as srv:
        env = dict(
            host_env, **anthropic_env(srv), YOKE_HOST_CLIENT_BUFFER="2000000"
        )  # hosted turns stream ~2 MB of deltas each; the backlog is ~9 MB
        ident = _start(env, project, "one")
        last = _turns(env, ident, 4).stream()[-1]["seq"]
        slow = Raw(socket_of(env))
        slow.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.request("attach", {"session": ident, "since": 0, "role": "watcher"})
        time.sleep(1.0)  # reads nothing for a while: the backlog waits for it instead of dropping it
        seqs = []
        while not seqs or seqs[-1] < last:
            message = slow.read()
            assert message is not None, f"dropped after seq {seqs[-1] if seqs else 0}"
            if message["type"] == "stream":
                seqs.append(message["payload"]["seq"])
        assert seqs == list(range(1, last + 1))


def test_stream_logs_rotate_and_the_replay_buffer_is_bounded_in_bytes(host_env, project):
    big = "z" * 100_000
    turns = [{"content": [{"type": "text", "text": big}]} for _ in range(6)]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv), YOKE_HOST_STREAM_LOG_BYTES="250000")
        ident = _start(env, project, "one")
        _turns(env, ident, 5)
        hosted = Path(env["HOME"]) / ".yoke" / "hosted"
        logs = sorted(hosted.glob(f"{ident}.stream*.jsonl"))
        assert [p.name for p in logs] == [f"{ident}.stream.1.jsonl", f"{ident}.stream.jsonl"]
        assert all(p.stat().st_size <= 250_000 + 2 * len(big) for p in logs)
        assert "z" * 1000 in yoke_cmd(env, project, "logs", ident).stdout  # the recent part reads on


def test_the_replay_buffer_drops_its_oldest_past_its_bytes():
    from yoke.host.limits import ReplayBuffer, queued_previews

    buffer = ReplayBuffer(100, limit=1000)
    for seq in range(50):
        buffer.add({"seq": seq}, 300)
    assert buffer.bytes <= 1000 and [e["seq"] for e in buffer] == [47, 48, 49]
    assert len(queued_previews(["p" * 9_000_000])[0]) == 1001


def test_a_large_prompt_reaches_every_attached_client_and_none_is_dropped(host_env, project):
    """An 8.6 MB prompt in another script: the state notifications carry a preview, the prompt goes out
    once per client as UTF-8 (not tripled by escapes), and the attached clients stay connected."""
    prompt = "é" * 4_300_000  # 8.6 MB as UTF-8; 25.8 MB as \\u escapes
    with ScriptedServer([{"content": "hi"}, {"content": "got it"}]) as srv:
        env = dict(host_env, **anthropic_env(srv), YOKE_MAX_CONTEXT_TOKENS="20000000")
        ident = _start(env, project, "hello")
        driver = _turns(env, ident, 0)
        watchers = [Raw(socket_of(env)) for _ in range(2)]
        for watcher in watchers:
            watcher.call("attach", {"session": ident, "role": "watcher"})
        request = {
            "id": "big",
            "type": "request",
            "payload": {"method": "prompt", "params": {"session": ident, "text": prompt}},
        }
        driver.send_line((json.dumps(request, ensure_ascii=False) + "\n").encode())  # as UTF-8, under 10 MB
        assert driver.until(lambda m: m.get("id") == "big")["type"] == "response"
        for client in (driver, *watchers):
            client.until(_result, timeout=120)
            states = [m for m in client.seen if m["type"] == "notification"]
            assert all(len(json.dumps(m)) < 10_000 for m in states)
        assert "got it" in json.dumps(driver.stream()[-1])


def test_a_websocket_client_catches_up_on_a_backlog_larger_than_its_buffer(host_env, project):
    from websockets.sync.client import connect

    big = "w" * 150_000
    turns = [{"content": [{"type": "text", "text": big}]} for _ in range(4)]
    with ScriptedServer(turns) as srv:
        env = dict(
            host_env, **anthropic_env(srv), YOKE_HOST_CLIENT_BUFFER="2000000"
        )  # hosted turns stream ~2 MB of deltas each; the backlog is ~9 MB
        proc = subprocess.Popen([sys.executable, "-m", "yoke", "host", "--ws", "127.0.0.1:0"], env=env)
        try:
            folder = runtime_of(env)
            port = int(
                wait_for(lambda: (folder / "host.ws-port").exists() and (folder / "host.ws-port").read_text())
            )
            ident = _start(env, project, "one")
            last = _turns(env, ident, 3).stream()[-1]["seq"]
            token = (folder / "host.token").read_text()
            with connect(f"ws://127.0.0.1:{port}", max_size=None) as ws:
                for ident_, method, params in (
                    ("h", "hello", {"token": token}),
                    ("a", "attach", {"session": ident, "since": 0, "role": "watcher"}),
                ):
                    ws.send(
                        json.dumps(
                            {"id": ident_, "type": "request", "payload": {"method": method, "params": params}}
                        )
                    )
                seqs: list[int] = []
                while not seqs or seqs[-1] < last:
                    message = json.loads(ws.recv(timeout=60))
                    if message["type"] == "stream":
                        seqs.append(message["payload"]["seq"])
                        if len(seqs) % 1000 == 0:
                            time.sleep(0.5)  # a slow reader (the turns stream thousands of deltas)
            assert seqs == list(range(1, last + 1))
        finally:
            proc.kill()
            proc.wait()
