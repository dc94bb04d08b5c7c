"""The bridge protocol with several clients: permission prompts, reconnecting, slow readers, bad input."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import anthropic_env
from tests.host.conftest import Raw, agents, runtime_of, socket_of, wait_for, yoke_cmd

from yoke.testing import ScriptedServer


def _start(env, project, *args) -> str:
    run = yoke_cmd(env, project, "--bg", *args)
    assert run.returncode == 0, run.stderr
    return run.stdout.split("· ")[1].split()[0]


def _is(kind: str, subtype: str | None = None):
    def check(message):
        inner = (message.get("payload") or {}).get("message") or {}
        return (
            message["type"] == "stream"
            and inner.get("type") == kind
            and (
                subtype is None
                or (inner.get("request") or inner.get("response") or inner).get("subtype") == subtype
            )
        )

    return check


def test_two_clients_one_answers_the_permission_prompt_and_the_other_sees_it_answered(host_env, project):
    target = project / "notes.txt"
    write = {
        "type": "tool_use",
        "id": "toolu_w",
        "name": "Write",
        "input": {"file_path": str(target), "content": "hi\n"},
    }
    turns = [{"content": [write]}, {"content": [{"type": "text", "text": "written"}]}]
    # the Notification hook runs when the session starts waiting, so a phone can be told
    hook_out = project.parent / "notified.json"
    settings = Path(host_env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    hook = {"type": "command", "command": f"cat > {hook_out}"}
    settings.write_text(json.dumps({"hooks": {"Notification": [{"matcher": "", "hooks": [hook]}]}}))
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "write notes")
        driver, watcher = Raw(socket_of(env)), Raw(socket_of(env))
        attached = driver.call("attach", {"session": ident, "since": 0})["payload"]
        assert attached["driver"] is True
        assert (
            watcher.call("attach", {"session": ident, "since": 0, "role": "watcher"})["payload"]["driver"]
            is False
        )
        asks = [c.until(_is("control_request", "can_use_tool")) for c in (driver, watcher)]
        assert asks[0]["payload"]["seq"] == asks[1]["payload"]["seq"]  # one message, the same number for all
        request_id = asks[0]["payload"]["message"]["request_id"]
        assert agents(env, project)[0]["state"] == "blocked"
        notified = json.loads(wait_for(lambda: hook_out.exists() and hook_out.read_text()))
        assert notified["notification_type"] == "permission_prompt" and "Write" in notified["message"]
        answer = {"behavior": "allow"}
        assert (
            watcher.call("answer", {"session": ident, "request_id": request_id, "response": answer})["type"]
            == "response"
        )
        late = driver.call(
            "answer", {"session": ident, "request_id": request_id, "response": {"behavior": "deny"}}
        )
        assert late["type"] == "error" and "not waiting" in late["payload"]["message"]
        for client in (driver, watcher):
            seen = client.until(_is("control_response"))
            assert seen["payload"]["message"]["response"]["request_id"] == request_id
            client.until(_is("result"), timeout=15)
        assert target.read_text() == "hi\n"
        # a watcher may not prompt; the driver may
        refused = watcher.call("prompt", {"session": ident, "text": "hello"})
        assert refused["type"] == "error" and refused["payload"]["code"] == "not_driver"


def test_interrupt_from_a_watcher_ends_the_turn(host_env, project):
    slow = {"content": [{"type": "text", "text": "word " * 400}], "delay": 0.05}
    with ScriptedServer([slow, {"content": [{"type": "text", "text": "next"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "talk slowly", "--include-partial-messages")
        watcher = Raw(socket_of(env))
        watcher.call("attach", {"session": ident, "since": 0, "role": "watcher"})
        watcher.until(_is("stream_event"))
        started = time.monotonic()
        assert watcher.call("interrupt", {"session": ident})["type"] == "response"
        result = watcher.until(_is("result"))["payload"]["message"]
        assert result["terminal_reason"] == "interrupted" and time.monotonic() - started < 10


def test_a_reconnecting_client_gets_exactly_the_messages_it_missed(host_env, project):
    turns = [{"content": [{"type": "text", "text": f"answer {n}"}]} for n in range(3)]
    with ScriptedServer(turns) as srv:
        # a replay buffer of 3 messages: most of what was missed comes from the stream log on disk
        env = dict(host_env, **anthropic_env(srv), YOKE_HOST_REPLAY_BUFFER="3")
        ident = _start(env, project, "first")
        first = Raw(socket_of(env))
        first.call("attach", {"session": ident, "since": 0, "role": "watcher"})
        first.until(_is("result"))
        last_seen = first.stream()[-1]["seq"]
        first.close()
        driver = Raw(socket_of(env))
        assert driver.call("attach", {"session": ident})["payload"]["driver"]  # from now on, no backlog
        for text in ("second", "third"):
            assert driver.call("prompt", {"session": ident, "text": text})["type"] == "response"
            driver.until(_is("result"))
        everything = driver.stream()
        again = Raw(socket_of(env))
        seq_now = again.call("attach", {"session": ident, "since": last_seen, "role": "watcher"})["payload"][
            "seq"
        ]
        missed = again.stream()
        assert [m["seq"] for m in missed] == list(range(last_seen + 1, seq_now + 1))
        assert [m["message"] for m in missed] == [m["message"] for m in everything if m["seq"] > last_seen]
        assert "answer 2" in json.dumps(missed)


def test_a_client_that_stops_reading_does_not_slow_the_session(host_env, project):
    big = "x" * 200_000
    turns = [{"content": [{"type": "text", "text": big}]} for _ in range(6)]
    with ScriptedServer(turns) as srv:
        # hosted sessions stream partial messages: a 200 kB answer is some 2.5 MB of lines; the reader is
        # never more than one answer behind (the next prompt waits for its result), so 6 MB holds it even
        # on a loaded machine (2 MB did not: it parses each line); the stuck client (6 answers, 15 MB) cannot
        env = dict(host_env, **anthropic_env(srv), YOKE_HOST_CLIENT_BUFFER="6000000")
        ident = _start(env, project, "one")
        stuck = Raw(socket_of(env))
        stuck.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stuck.call("attach", {"session": ident, "since": 0, "role": "watcher"})  # and never reads again
        reader = Raw(socket_of(env))
        reader.call("attach", {"session": ident, "since": 0, "role": "watcher"})
        reader.until(_is("result"))
        driver = Raw(socket_of(env))
        for n in range(5):
            assert driver.call("prompt", {"session": ident, "text": f"more {n}"})["type"] == "response"
            reader.until(_is("result"), timeout=30)
        # the host dropped the stuck client instead of waiting for it
        stuck.sock.settimeout(10)
        drained = b""
        try:
            while chunk := stuck.sock.recv(1 << 20):
                drained += chunk
        except (ConnectionResetError, TimeoutError):
            pass
        assert drained.count(b'"type":"result"') < 6  # it never got the whole session


def test_bad_input_gets_an_error_and_the_host_keeps_serving(host_env, project):
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        _start(env, project, "hello")
        path = socket_of(env)
        bystander = Raw(path)
        client = Raw(path)
        client.send_line(b"this is not json\n")
        assert client.until(lambda m: m["type"] != "notification")["payload"]["code"] == "parse_error"
        client.send_line(b"[" * 100_000 + b"\n")
        assert client.until(lambda m: m["type"] != "notification")["payload"]["code"] == "parse_error"
        assert client.call("no.such.method")["payload"]["code"] == "method_not_found"
        assert client.call("hello")["type"] == "response"  # the same connection still works
        huge = Raw(path)
        pad = b"a" * (11 << 20)
        huge.send_line(
            b'{"id":"x","type":"request","payload":{"method":"hello","params":{"pad":"' + pad + b'"}}}\n'
        )
        reply = huge.until(lambda m: m["type"] != "notification")  # news of the session may come any time
        assert reply["type"] == "error" and reply["payload"]["code"] == "message_too_large"
        assert (
            huge.call("hello")["type"] == "response"
        )  # the rest of that line was skipped, not read as a message
        assert bystander.call("list")["type"] == "response"


def test_tcp_needs_the_token(host_env, project, tmp_path):
    env = dict(host_env, YOKE_HOST_IDLE_STOP="30")
    proc = subprocess.Popen(
        [sys.executable, "-m", "yoke", "host", "--tcp", "127.0.0.1:0"], env=env, stdout=subprocess.DEVNULL
    )
    try:
        folder = runtime_of(env)
        port = int(wait_for(lambda: (folder / "host.port").exists() and (folder / "host.port").read_text()))
        assert (folder / "host.token").stat().st_mode & 0o777 == 0o600
        assert socket_of(env).stat().st_mode & 0o777 == 0o600
        stranger = Raw(("127.0.0.1", port))
        refused = stranger.call("list")
        assert refused["type"] == "error" and refused["payload"]["code"] == "unauthorized"
        assert stranger.read() is None  # and the connection is closed
        friend = Raw(("127.0.0.1", port))
        token = (folder / "host.token").read_text()
        assert friend.call("hello", {"token": token})["type"] == "response"
        assert friend.call("list")["type"] == "response"
    finally:
        proc.kill()
        proc.wait()


def test_websocket_clients_need_the_token_and_then_speak_the_same_protocol(host_env, project):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    proc = subprocess.Popen([sys.executable, "-m", "yoke", "host", "--ws", "127.0.0.1:0"], env=host_env)
    try:
        folder = runtime_of(host_env)
        port = int(
            wait_for(lambda: (folder / "host.ws-port").exists() and (folder / "host.ws-port").read_text())
        )
        url = f"ws://127.0.0.1:{port}"
        request = {"id": "a", "type": "request", "payload": {"method": "list", "params": {}}}
        with connect(url) as stranger:
            stranger.send(json.dumps(request))
            refused = json.loads(stranger.recv(timeout=20))
            assert refused["type"] == "error" and refused["payload"]["code"] == "unauthorized"
            try:
                stranger.recv(timeout=20)
                raise AssertionError("the connection stayed open")
            except ConnectionClosed:
                pass
        token = (folder / "host.token").read_text()
        with connect(url) as friend:
            hello = {"id": "h", "type": "request", "payload": {"method": "hello", "params": {"token": token}}}
            friend.send(json.dumps(hello))
            assert json.loads(friend.recv(timeout=20))["type"] == "response"
            friend.send(json.dumps(request))
            listed = json.loads(friend.recv(timeout=20))
            assert listed["id"] == "a" and listed["payload"] == {"sessions": []}
            friend.send("not json")
            assert json.loads(friend.recv(timeout=20))["payload"]["code"] == "parse_error"
    finally:
        proc.kill()
        proc.wait()
