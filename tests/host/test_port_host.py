"""The host as a proxy of the session port, with real processes: the line client on a slow reply, prompts
queued behind a turn kept on disk through a killed host and resent by `respawn`, a session killed mid-turn
continued to its answer, and `--no-continue`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from tests.conftest import anthropic_env
from tests.host.conftest import Raw, agents, runtime_of, socket_of, wait_for, yoke_cmd
from tests.host.test_background import _start

from yoke.testing import ScriptedServer


def _attach(env, project, ident, stdin: str, *flags: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "yoke", "attach", ident, *flags],
        env=env, cwd=project, input=stdin, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def test_a_piped_prompt_prints_the_slow_answer_and_exits(host_env, project):
    """`echo prompt | yoke attach ID` waits for its turn (about 3 s here) and exits 0, without a traceback."""
    turns = [{"content": "ready"}, {"content": "the slow answer", "delay": 0.6}]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "hello")
        wait_for(lambda: agents(env, project)[0]["state"] == "idle")
        started = time.monotonic()
        run = _attach(env, project, ident, "a slow question\n")
        took = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    assert "the slow answer" in run.stdout and "Traceback" not in run.stderr + run.stdout
    assert took >= 2.5, f"left after {took:.1f} s, before the reply"


def test_the_line_client_survives_a_quiet_session(host_env, project):
    """`(echo prompt; sleep 3; echo /detach) | yoke attach ID --lines`: no traceback while it waits."""
    turns = [{"content": "ready"}, {"content": "slow", "delay": 0.6}]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "hello")
        wait_for(lambda: agents(env, project)[0]["state"] == "idle")
        proc = subprocess.Popen(
            [sys.executable, "-m", "yoke", "attach", ident, "--lines"],
            env=env, cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        proc.stdin.write("a prompt\n")
        proc.stdin.flush()
        time.sleep(5)
        proc.stdin.write("/detach\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "slow" in out and "Traceback" not in err + out


def _user_texts(srv) -> list[str]:
    texts = []
    for request in srv.requests:
        messages = (request.body or {}).get("messages") or []
        last = messages[-1]["content"] if messages else ""
        blocks = [last] if isinstance(last, str) else [b.get("text", "") for b in last if isinstance(b, dict)]
        texts.append(" ".join(blocks))
    return texts


def test_queued_prompts_survive_a_killed_host_and_respawn_sends_them(host_env, project):
    turns = [{"content": "slow first", "delay": 2.0}] + [{"content": f"answer {n}"} for n in range(4)]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "first")
        wait_for(lambda: len(srv.requests) == 1)  # the first turn runs (slowly)
        client = Raw(socket_of(env))
        for text in ("queued one", "queued two"):
            reply = client.call("op", {"session": ident, "op": {"op": "prompt", "content": text}})
            assert reply["type"] == "response", reply
        host_pid = client.call("hello")["payload"]["host"]
        os.kill(host_pid, signal.SIGKILL)  # the session dies with it (SIGTERM: interrupted)
        wait_for(lambda: not agents(env, project))
        assert len(srv.requests) == 1
        respawned = yoke_cmd(env, project, "respawn", ident)
        assert respawned.returncode == 0, respawned.stderr
        assert "2 queued prompt(s) sent again" in respawned.stdout, respawned.stdout
        wait_for(lambda: "queued two" in " ".join(_user_texts(srv)))
    sent = _user_texts(srv)
    assert [t for t in sent if "queued" in t] == ["queued one", "queued two"]  # each once, in order


def _bash_turns(marker, then: str) -> list[dict]:
    """A turn whose Bash step marks that it ran, then runs on (the session is killed in it)."""
    call = {
        "type": "tool_use",
        "id": "b1",
        "name": "Bash",
        "input": {"command": f"echo ran > {marker}; sleep 60"},
    }
    return [{"content": [call]}, {"content": then}]


def _kill_mid_turn(env, project) -> str:
    """A background session killed (SIGKILL) after its Bash step ran; its id."""
    ident = _start(env, project, "--permission-mode", "bypassPermissions", "do the work")
    wait_for(lambda: (project / "ran.txt").exists())
    os.kill(agents(env, project)[0]["pid"], signal.SIGKILL)
    wait_for(lambda: agents(env, project, "--all")[0]["state"] == "stopped")
    return ident


def test_respawn_continues_a_turn_killed_mid_way(host_env, project):
    with ScriptedServer(_bash_turns(project / "ran.txt", "the final answer")) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _kill_mid_turn(env, project)
        respawned = yoke_cmd(env, project, "respawn", ident)
        assert "continuing the turn" in respawned.stdout, respawned.stdout
        wait_for(lambda: "the final answer" in yoke_cmd(env, project, "logs", ident).stdout)
        continuation = srv.requests[-1].body["messages"]
    flat = json.dumps(continuation)
    assert "stopped in the middle of this task" in flat  # the model was asked to go on
    results = [b for m in continuation if isinstance(m["content"], list) for b in m["content"]
               if b.get("type") == "tool_result" and b.get("tool_use_id") == "b1"]  # fmt: skip
    assert results, "the cut-off call is answered"


def test_no_continue_only_restores(host_env, project):
    with ScriptedServer(_bash_turns(project / "ran.txt", "never")) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _kill_mid_turn(env, project)
        respawned = yoke_cmd(env, project, "respawn", ident, "--no-continue")
        assert respawned.stdout.strip() == f"restarted {ident}", respawned.stdout
        wait_for(lambda: agents(env, project)[0]["state"] == "idle")
        time.sleep(1)
        assert len(srv.requests) == 1


def test_two_homes_never_share_sessions(host_env, project, tmp_path):
    """One host per configuration home: a client with HOME=A and one with HOME=B each list, attach to and
    stop their own sessions only."""
    homes = {}
    for name in ("a", "b"):
        home = tmp_path / name
        home.mkdir()
        homes[name] = {k: v for k, v in host_env.items() if k not in ("YOKE_HOME", "CLAUDE_CONFIG_DIR")}
        homes[name]["HOME"] = str(home)
        from yoke.config.trust import trust_folder

        trust_folder(project, home / ".yoke")  # `yoke --bg` runs only in a trusted folder
    turns = [{"content": "from a"}, {"content": "from b"}]
    with ScriptedServer(turns) as srv:
        env_a, env_b = (dict(homes[n], **anthropic_env(srv)) for n in ("a", "b"))
        try:
            ident_a = _start(env_a, project, "in home a")
            wait_for(lambda: "from a" in yoke_cmd(env_a, project, "logs", ident_a).stdout)
            ident_b = _start(env_b, project, "in home b")
            wait_for(lambda: "from b" in yoke_cmd(env_b, project, "logs", ident_b).stdout)
            assert [r["id"] for r in agents(env_a, project)] == [ident_a]
            assert [r["id"] for r in agents(env_b, project)] == [ident_b]
            assert socket_of(env_a) != socket_of(env_b)
            assert yoke_cmd(env_a, project, "logs", ident_b).returncode != 0  # not a's to see
            assert yoke_cmd(env_a, project, "stop", ident_b).returncode != 0
            assert _attach(env_a, project, ident_b, "").returncode != 0
            assert yoke_cmd(env_b, project, "stop", ident_b).stdout.strip() == f"stopped {ident_b}"
            assert [r["id"] for r in agents(env_a, project)] == [ident_a]  # a's session runs on
        finally:
            from tests.host.conftest import _stop_host

            for env in (env_a, env_b):
                _stop_host(runtime_of(env))


def test_queued_prompts_survive_yoke_stop(host_env, project):
    """`yoke stop` interrupts the running turn; the prompts queued behind it are sent again by `respawn` (not
    the stopped turn: a stop is the user's choice)."""
    turns = [{"content": "slow first", "delay": 2.0}] + [{"content": f"answer {n}"} for n in range(4)]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "first")
        wait_for(lambda: len(srv.requests) == 1)
        client = Raw(socket_of(env))
        reply = client.call("op", {"session": ident, "op": {"op": "prompt", "content": "queued one"}})
        assert reply["type"] == "response", reply
        assert yoke_cmd(env, project, "stop", ident).stdout.strip() == f"stopped {ident}"
        respawned = yoke_cmd(env, project, "respawn", ident)
        assert respawned.stdout.strip() == f"restarted {ident} (1 queued prompt(s) sent again)", (
            respawned.stdout
        )
        wait_for(lambda: "queued one" in " ".join(_user_texts(srv)))
    assert [t for t in _user_texts(srv) if "queued" in t] == ["queued one"]
