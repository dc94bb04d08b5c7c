"""Issue 46: sessions on the host reach each other. Real processes against the scripted server: session A
lists the host's sessions (ListAgents) and sends session B a message (SendMessage) while B is mid-turn
(blocked on a permission prompt); B reads it at its next turn boundary, once; a session of another
configuration home is refused. 2.1.332's SendMessage has no priority field, so there is one delivery: held
while the target's turn runs, then a turn of its own (host/messages.py)."""

from __future__ import annotations

import json

from tests.agents.test_subagents import call, text
from tests.conftest import anthropic_env
from tests.host.conftest import Raw, agents, socket_of, wait_for, yoke_cmd

from yoke.testing import ScriptedServer


def _bg(env, project, name, prompt) -> str:
    run = yoke_cmd(env, project, "--bg", "--name", name, prompt)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()[0].split("· ")[1]


def _state(env, project, ident):
    return next((r["state"] for r in agents(env, project) if r["id"] == ident), None)


def test_a_session_lists_the_hosts_sessions_and_messages_one_mid_turn(host_env, project, tmp_path):
    write = call("w1", "Write", file_path=str(project / "b.txt"), content="x")
    send = call("s1", "SendMessage", to="bee", message="the build is green", summary="status")
    elsewhere = call("s2", "SendMessage", to="sea", message="hello from another home")
    turns = [
        {"content": [write]},  # B: its turn waits on a permission prompt
        {"content": [call("l1", "ListAgents")]},  # A
        {"content": [send, elsewhere]},
        text("sent"),
        text("B stopped writing"),  # B, once its prompt is answered
        text("B read it"),  # B's next turn: the message
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv), ENABLE_TOOL_SEARCH="false")
        bee = _bg(env, project, "bee", "write b")
        wait_for(lambda: _state(env, project, bee) == "blocked")
        client = Raw(socket_of(env))
        other = dict(env, YOKE_HOME=str(tmp_path / "other-home"))
        started = client.call("start", {"cwd": str(project), "name": "sea", "env": other})
        assert started["type"] == "response", started
        ay = _bg(env, project, "ay", "tell bee")
        wait_for(lambda: "sent" in yoke_cmd(env, project, "logs", ay).stdout)

        listed = json.dumps(srv.requests[2].body["messages"][-1])
        assert bee in listed and "bee" in listed and "blocked" in listed and "sea" not in listed
        results = json.dumps(srv.requests[3].body["messages"][-1])
        assert f"Message delivered to session {bee}" in results
        assert "another configuration home" in results
        assert len(srv.requests) == 4  # B, mid-turn, has not been asked anything new

        attached = client.call("attach", {"session": bee, "role": "watcher"})["payload"]
        (pending,) = attached["pending"]
        deny = {"behavior": "deny", "message": "not now"}
        client.call("answer", {"session": bee, "request_id": pending["request_id"], "response": deny})
        wait_for(lambda: "B read it" in yoke_cmd(env, project, "logs", bee).stdout)
        assert "the build is green" not in json.dumps(srv.requests[4].body)  # held through the turn
        last = json.dumps(srv.requests[5].body["messages"][-1])
        assert f"Message from session {ay} (ay)" in last and "the build is green" in last
        heard = [r for r in srv.requests if "Message from session" in json.dumps(r.body["messages"][-1])]
        assert len(heard) == 1  # delivered once


def test_a_held_message_waits_until_a_client_approves_it(host_env, project, tmp_path):
    from tests.host.test_durable_host import _host

    send = call("s1", "SendMessage", to="bee", message="deploy is done")
    turns = [text("B idle"), {"content": [send]}, text("sent"), text("B read it")]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv), ENABLE_TOOL_SEARCH="false")
        log = (tmp_path / "host.out").open("ab")
        host = _host(env, project, log)
        client = Raw(socket_of(env))
        params = {"cwd": str(project), "name": "bee", "prompt": "wait", "holdMessages": True, "env": env}
        bee = client.call("start", params)["payload"]["id"]
        wait_for(lambda: "B idle" in yoke_cmd(env, project, "logs", bee).stdout)
        client.call("attach", {"session": bee, "role": "watcher"})
        ay = _bg(env, project, "ay", "tell bee")
        wait_for(lambda: "sent" in yoke_cmd(env, project, "logs", ay).stdout)
        assert "held for a person's approval" in json.dumps(srv.requests[2].body["messages"][-1])
        held = client.until(
            lambda m: m["type"] == "stream" and m["payload"]["message"].get("subtype") == "message_held"
        )
        message_id = held["payload"]["message"]["message_id"]
        later = Raw(socket_of(env))  # a client attaching now sees it too
        shown = later.call("attach", {"session": bee, "role": "watcher"})["payload"]["heldMessages"]
        assert [h["message_id"] for h in shown] == [message_id] and "deploy is done" in shown[0]["content"]
        assert len(srv.requests) == 3  # B has not read it

        approved = client.call("message", {"session": bee, "message_id": message_id, "approve": True})
        assert approved["payload"] == {"message_id": message_id, "delivered": True}
        wait_for(lambda: "B read it" in yoke_cmd(env, project, "logs", bee).stdout)
        assert "deploy is done" in json.dumps(srv.requests[3].body["messages"][-1])
        again = client.call("message", {"session": bee, "message_id": message_id, "approve": True})
        assert again["type"] == "error" and len(srv.requests) == 4  # at most once
        host.kill()
        host.wait(timeout=30)


def _transcript(env, project, ident) -> list[dict]:
    from pathlib import Path

    (row,) = [r for r in agents(env, project) if r["id"] == ident]
    (path,) = Path(env["YOKE_HOME"]).glob(f"projects/*/{row['sessionId']}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _said(records: list[dict], words: str) -> int:
    """How many of a transcript's messages (not its queue journal) carry `words`."""
    return sum(
        words in json.dumps(r.get("message")) for r in records if r.get("type") in ("user", "assistant")
    )


def test_next_joins_the_targets_turn_and_now_interrupts_it(host_env, project):
    """Yoke's `priority` on SendMessage (docs/scheduling.md): `next` reaches B at its next model request in
    the same turn; `now` interrupts B's turn and starts one with the message. Each is recorded once in both
    transcripts."""
    first = call("s1", "SendMessage", to="bee", message="join this turn", priority="next")
    second = call("s2", "SendMessage", to="bee", message="stop and read", priority="now")
    turns = [
        {"content": [call("w1", "Write", file_path=str(project / "b.txt"), content="x")]},  # B waits
        {"content": [first]},  # A
        text("sent next"),
        {"content": [call("w2", "Write", file_path=str(project / "c.txt"), content="y")]},  # B, same turn
        {"content": [second]},  # A again
        text("done"),  # A's answer and B's new turn, in whichever order they ask
        text("done"),
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv), ENABLE_TOOL_SEARCH="false")
        bee = _bg(env, project, "bee", "write b")
        wait_for(lambda: _state(env, project, bee) == "blocked")
        ay = _bg(env, project, "ay", "tell bee")
        wait_for(lambda: "sent next" in yoke_cmd(env, project, "logs", ay).stdout)
        assert "before its next model request" in json.dumps(srv.requests[2].body["messages"][-1])
        assert len(srv.requests) == 3  # B is still in its first model answer's tool call

        client = Raw(socket_of(env))
        (pending,) = client.call("attach", {"session": bee, "role": "watcher"})["payload"]["pending"]
        deny = {"behavior": "deny", "message": "not now"}
        client.call("answer", {"session": bee, "request_id": pending["request_id"], "response": deny})
        wait_for(lambda: len(srv.requests) >= 4 and _state(env, project, bee) == "blocked")
        joined = srv.requests[3].body["messages"]
        assert "join this turn" in json.dumps(joined[-1])  # the same turn: after the tool's result
        assert "not now" in json.dumps(joined[-2]) and joined[1]["role"] == "assistant"  # B's first turn

        client.call("prompt", {"session": ay, "text": "interrupt bee"})
        wait_for(
            lambda: len(srv.requests) >= 7 and _state(env, project, bee) == _state(env, project, ay) == "idle"
        )
        told = [json.dumps(r.body["messages"][-1]) for r in srv.requests[5:]]
        assert any("its running turn was interrupted" in said for said in told)
        (urgent,) = [
            r.body["messages"] for r in srv.requests if "stop and read" in json.dumps(r.body["messages"][-1])
        ]
        assert urgent[-1]["role"] == "user" and "join this turn" in json.dumps(urgent)  # B's session goes on
        assert "Request interrupted by user" in json.dumps(urgent)  # its turn was cut at the second Write
        assert "error_during_execution" in yoke_cmd(env, project, "logs", bee).stdout

        mine, theirs = _transcript(env, project, ay), _transcript(env, project, bee)
        for words in ("join this turn", "stop and read"):
            assert _said(mine, words) == 1 and _said(theirs, words) == 1, words
