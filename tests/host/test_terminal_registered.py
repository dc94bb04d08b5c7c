"""A plain `yoke` terminal session lent to the session host (docs/remote.md, "Any session"): listed, watched,
prompted and answered by another client while the terminal stays its screen and its one writer."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from tests.conftest import anthropic_env
from tests.host.conftest import Raw, agents, socket_of, wait_for
from tests.ui.tmux import Pane, needs_tmux, trusted_home_env, wait_prompt

from yoke.testing import ScriptedServer


def start_host(env, project) -> subprocess.Popen:
    """`yoke host` for the environment's configuration home (the fixture kills it afterwards)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "yoke", "host"],
        env=env,
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(lambda: socket_of(env).exists(), timeout=30)
    return proc


def registered_terminal(host_env, project, srv, *args: str) -> tuple[dict, Pane, str]:
    """A host, and a `yoke` terminal in tmux (the caller closes its pane) registered with it: (env, pane, the
    session's host id)."""
    env = trusted_home_env(dict(host_env, **anthropic_env(srv)), project)
    start_host(env, project)
    pane = Pane(list(args), env, project)
    try:
        pane.wait_for("in the session host as")
        return env, pane, wait_for(lambda: terminal_rows(env, project))[0]["id"]
    except BaseException:
        pane.close()
        raise


def terminal_rows(env, project) -> list[dict]:
    return [row for row in agents(env, project, "--all") if row.get("kind") == "terminal"]


def write_call(target) -> dict:
    return {
        "type": "tool_use",
        "id": "toolu_w",
        "name": "Write",
        "input": {"file_path": str(target), "content": "from the terminal\n"},
    }


@needs_tmux
def test_a_terminal_session_is_listed_and_its_prompt_is_answered_by_another_client(host_env, project):
    target = project / "notes.txt"
    turns = [
        {"content": [{"type": "text", "text": "I will write the notes"}, write_call(target)]},
        {"content": [{"type": "text", "text": "notes written"}]},
        {"content": [{"type": "text", "text": "prompted from afar"}]},
    ]
    with ScriptedServer(turns) as srv:
        env, pane, ident = registered_terminal(host_env, project, srv)
        try:
            watcher = Raw(socket_of(env))
            listed = watcher.call("list")["payload"]["sessions"]
            assert [r["id"] for r in listed if r.get("kind") == "terminal"] == [ident]
            watcher.call("attach", {"session": ident, "role": "watcher"})
            pane.type("write the notes")
            pane.keys("Enter")
            pane.wait_for("Yes, allow for this session")  # the terminal asks ...
            asked = watcher.until(
                lambda m: m["type"] == "stream" and m["payload"]["message"].get("type") == "control_request"
            )["payload"]["message"]
            assert asked["request"]["tool_name"] == "Write"
            answer = {"session": ident, "request_id": asked["request_id"], "response": {"behavior": "allow"}}
            assert watcher.call("answer", answer)["type"] == "response"  # ... and another client answers
            pane.wait_for("answered in another client")
            pane.wait_for("notes written")
            assert target.read_text() == "from the terminal\n"
            again = watcher.call("answer", answer)  # the first answer won: a second is refused
            assert again["type"] == "error"
            # a prompt from the other client runs in the terminal's session, shown there
            sent = watcher.call("prompt", {"session": ident, "text": "hello from afar"})
            assert sent["type"] == "response", sent
            pane.wait_for("prompted from afar")
            pane.wait_for("another client")
            # acknowledged after the terminal's session had it on disk: its transcript's queue record
            session_id = terminal_rows(env, project)[0]["sessionId"]
            transcripts = [
                p for root in (env["HOME"], env["YOKE_HOME"]) for p in Path(root).rglob(f"{session_id}.jsonl")
            ]
            records = [json.loads(line) for line in transcripts[0].read_text().splitlines()]
            assert any(
                r.get("operation") == "enqueue" and r.get("content") == "hello from afar" for r in records
            )
            row = wait_for(
                lambda: [
                    r
                    for r in watcher.call("list")["payload"]["sessions"]
                    if r["id"] == ident and r["state"] == "idle"
                ]
            )
            assert row[0]["queued"] == 0  # its turn began: no longer queued
            respawn = watcher.call("respawn", {"session": ident})  # its terminal owns it: one writer
            assert respawn["type"] == "error" and "runs in a terminal" in respawn["payload"]["message"]
            assert "hello from afar" in json.dumps(srv.requests[-1].body["messages"])
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()
        wait_for(lambda: not terminal_rows(env, project))  # the terminal quit: its entry left the list
        ended = watcher.until(
            lambda m: m["type"] == "stream" and m["payload"]["message"].get("subtype") == "session_ended"
        )
        assert ended["payload"]["session"] == ident


@needs_tmux
def test_the_opt_out_setting_keeps_the_session_off_the_list(host_env, project):
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"remoteControlAtStartup": False}))
    with ScriptedServer([{"content": [{"type": "text", "text": "only here"}]}]) as srv:
        env = trusted_home_env(dict(host_env, **anthropic_env(srv)), project)
        start_host(env, project)
        pane = Pane([], env, project)
        try:
            wait_prompt(pane)
            pane.type("hello")
            pane.keys("Enter")
            pane.wait_for("only here")  # a whole turn later: had it registered, it would be listed
            assert not terminal_rows(env, project)
            assert "in the session host" not in pane.screen()
            listed = Raw(socket_of(env)).call("list")["payload"]["sessions"]
            assert not listed
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()


@needs_tmux
def test_disable_remote_control_refuses_the_command_and_a_project_cannot_switch_it_on(host_env, project):
    (project / ".claude").mkdir(exist_ok=True)
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({"remoteControlAtStartup": True}))  # a repository cannot switch it on
    with ScriptedServer([]) as srv:
        env = trusted_home_env(dict(host_env, **anthropic_env(srv)), project)
        pane = Pane([], env, project)
        try:
            wait_prompt(pane)
            pane.type("/help")
            pane.keys("Enter")
            pane.wait_for("/remote-control")
            assert not socket_of(env).exists()  # no host was started for it
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()
        settings.write_text(json.dumps({"disableRemoteControl": True}))
        pane = Pane([], env, project)
        try:
            wait_prompt(pane)
            pane.type("/remote-control")
            pane.keys("Enter")
            pane.wait_for("disabled by the settings")
            assert not socket_of(env).exists()
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()


@needs_tmux
def test_remote_control_at_startup_in_the_user_settings_starts_a_host_and_the_page(host_env, project):
    from yoke.config.settings import claude_config_dir

    with ScriptedServer([]) as srv:
        env = trusted_home_env(dict(host_env, **anthropic_env(srv)), project)
        user = claude_config_dir(Path(env["HOME"]), env)
        user.mkdir(parents=True, exist_ok=True)
        (user / "settings.json").write_text(json.dumps({"remoteControlAtStartup": True}))
        pane = Pane([], env, project, width=160)
        try:
            pane.wait_for(r"Pairing code: \S+", regex=True)
            ident = wait_for(lambda: terminal_rows(env, project))[0]["id"]
            assert f"/s/{ident}" in pane.screen()
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()
        wait_for(lambda: not terminal_rows(env, project))


@needs_tmux
def test_yoke_attach_answers_the_terminal_and_a_question_is_answered_by_another_client(host_env, project):
    from tests.ui.tmux import pick

    target = project / "notes.txt"
    question = {
        "question": "Which colour?",
        "header": "Colour",
        "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
        "multiSelect": False,
    }
    ask = {"type": "tool_use", "id": "toolu_q", "name": "AskUserQuestion", "input": {"questions": [question]}}
    turns = [
        {"content": [write_call(target)]},
        {"content": [{"type": "text", "text": "notes written"}]},
        {"content": [ask]},
        {"content": [{"type": "text", "text": "blue it is"}]},
    ]
    with ScriptedServer(turns) as srv:
        env, pane, ident = registered_terminal(host_env, project, srv)
        attached = None
        try:
            attached = Pane(["attach", ident], env, project)
            wait_prompt(attached)
            pane.type("write the notes")
            pane.keys("Enter")
            pane.wait_for("Yes, allow for this session")
            pick(attached, "Yes")  # `yoke attach` answers first (its first "Yes" option)
            pane.wait_for("answered in another client")
            pane.wait_for("notes written")
            attached.wait_for("notes written")
            assert target.read_text() == "from the terminal\n"
            watcher = Raw(socket_of(env))
            watcher.call("attach", {"session": ident, "role": "watcher"})
            pane.type("pick a colour")
            pane.keys("Enter")
            pane.wait_for("Which colour?")
            asked = watcher.until(
                lambda m: (
                    m["type"] == "stream"
                    and m["payload"]["message"].get("type") == "control_request"
                    and m["payload"]["message"]["request"]["tool_name"] == "AskUserQuestion"
                )
            )["payload"]["message"]
            response = {
                "behavior": "allow",
                "updatedInput": {"questions": [question], "answers": {"Which colour?": "Blue"}},
            }
            reply = watcher.call(
                "answer", {"session": ident, "request_id": asked["request_id"], "response": response}
            )
            assert reply["type"] == "response", reply
            pane.wait_for("blue it is")
            assert "Blue" in json.dumps(srv.requests[-1].body["messages"][-1])
            pane.keys("C-d")
            pane.wait_exit()
            wait_for(lambda: not terminal_rows(env, project))
        finally:
            pane.close()
            if attached is not None:
                attached.close()


def test_only_the_registering_unix_connection_speaks_for_a_terminal_session(host_env, project):
    """As the attacker and the second client: a TCP client holding the token may not lend the host a session;
    another local client may not speak for one, nor register the same session twice."""
    from tests.host.conftest import runtime_of

    proc = subprocess.Popen(
        [sys.executable, "-m", "yoke", "host", "--tcp", "127.0.0.1:0"],
        env=host_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        folder = runtime_of(host_env)
        port = int(wait_for(lambda: (folder / "host.port").exists() and (folder / "host.port").read_text()))
        session = {"sessionId": "0123abcd-0000-4000-8000-000000000000", "cwd": str(project), "pid": proc.pid}
        remote = Raw(("127.0.0.1", port))
        assert remote.call("hello", {"token": (folder / "host.token").read_text()})["type"] == "response"
        refused = remote.call("register", session)
        assert refused["type"] == "error" and refused["payload"]["code"] == "forbidden"
        terminal = Raw(socket_of(host_env))
        ident = terminal.call("register", session)["payload"]["id"]
        twice = Raw(socket_of(host_env)).call("register", session)
        assert twice["type"] == "error" and twice["payload"]["code"] == "already_running"
        other = Raw(socket_of(host_env))
        for method, params in (
            ("registered.say", {"messages": [{"type": "result"}]}),
            ("registered.done", {"call": "1"}),
        ):
            answer = other.call(method, {"session": ident, **params})
            assert answer["type"] == "error" and answer["payload"]["code"] == "forbidden"
            answer = remote.call(method, {"session": ident, **params})
            assert answer["type"] == "error" and answer["payload"]["code"] == "forbidden"
        assert [r["id"] for r in other.call("list")["payload"]["sessions"]] == [ident]
        terminal.sock.shutdown(socket.SHUT_RDWR)  # the terminal's connection goes: so does its entry
        wait_for(lambda: not other.call("list")["payload"]["sessions"])
    finally:
        proc.kill()
        proc.wait()


@needs_tmux
def test_another_client_interrupts_and_the_modes_agree_both_ways(host_env, project):
    slow = {"content": [{"type": "text", "text": "word " * 400}], "delay": 0.05}
    with ScriptedServer([slow]) as srv:
        env, pane, ident = registered_terminal(host_env, project, srv)
        try:
            watcher = Raw(socket_of(env))
            watcher.call("attach", {"session": ident, "role": "watcher"})
            pane.type("talk slowly")
            pane.keys("Enter")
            pane.wait_for("word word")
            assert watcher.call("interrupt", {"session": ident})["type"] == "response"
            pane.wait_for("Interrupted")  # the terminal's turn ended, told by another client
            pane.keys("BTab")  # Shift+Tab in the terminal: the host hears the mode
            pane.wait_for("accept edits on")

            def mode() -> str:
                rows = watcher.call("list")["payload"]["sessions"]
                return next(r["permissionMode"] for r in rows if r["id"] == ident)

            wait_for(lambda: mode() == "acceptEdits", timeout=20)
            op = {"session": ident, "op": {"op": "set_mode", "mode": "plan"}}
            assert watcher.call("op", op)["type"] == "response"  # and the other way
            pane.wait_for("plan mode on")
            wait_for(lambda: mode() == "plan", timeout=20)
            assert watcher.call("stop", {"session": ident})["type"] == "response"  # the host lets go of it
            pane.wait_for("let go of this session")
            wait_for(lambda: not terminal_rows(env, project))
            pane.type("/rc")  # and it comes back when asked
            pane.keys("Enter")
            pane.wait_for("Pairing code:")
            wait_for(lambda: terminal_rows(env, project))
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()


@needs_tmux
def test_a_plan_is_approved_by_another_client_with_the_mode_to_go_on_in(host_env, project):
    plan = {
        "type": "tool_use",
        "id": "toolu_p",
        "name": "ExitPlanMode",
        "input": {"plan": "# Plan\n1. tidy up"},
    }
    turns = [{"content": [plan]}, {"content": [{"type": "text", "text": "plan approved, going on"}]}]
    with ScriptedServer(turns) as srv:
        env, pane, ident = registered_terminal(host_env, project, srv, "--permission-mode", "plan")
        try:
            watcher = Raw(socket_of(env))
            watcher.call("attach", {"session": ident, "role": "watcher"})
            pane.type("make a plan")
            pane.keys("Enter")
            pane.wait_for("proceed with this plan?")
            asked = watcher.until(
                lambda m: m["type"] == "stream" and m["payload"]["message"].get("type") == "control_request"
            )["payload"]["message"]
            assert asked["request"]["tool_name"] == "ExitPlanMode"
            assert "tidy up" in asked["request"]["input"]["plan"]
            mode = {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
            response = {"behavior": "allow", "updatedPermissions": [mode]}
            reply = watcher.call(
                "answer", {"session": ident, "request_id": asked["request_id"], "response": response}
            )
            assert reply["type"] == "response", reply
            pane.wait_for("plan approved, going on")
            pane.wait_for("accept edits on")  # the mode the other client chose
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()
