"""Issue 46: the host keeps durable crons after the terminal that made them closed, and across its own
restart. Real processes against the scripted server: a terminal (`yoke -p`) session makes a durable cron
and quits; the running host fires it by resuming that session, and `yoke logs` shows the run. The test moves
the task's last run back in its file (as if its time passed while the host was down), so it waits for no
clock: a missed run fires once, not in a burst."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.agents.test_subagents import call, text
from tests.conftest import anthropic_env
from tests.host.conftest import Raw, agents, socket_of, wait_for, yoke_cmd

from yoke.testing import ScriptedServer
from yoke.tools.durable import DurableStore


def _host(env, project, log):
    proc = subprocess.Popen(
        [sys.executable, "-m", "yoke", "host"], env=env, cwd=project, stdout=log, stderr=log,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    wait_for(lambda: socket_of(env).exists())
    return proc


def _missed(path, days: int = 14) -> dict:
    """The task's last run moved back: its weekday-morning times since then were missed."""
    (task,) = json.loads(path.read_text())["tasks"]
    task["lastFiredAt"] = int(time.time() * 1000) - days * 24 * 3600 * 1000
    path.write_text(json.dumps({"tasks": [task]}))
    return task


def _fired(srv) -> list[str]:
    """The prompts the model was asked to answer as the last user message, in order."""
    out = []
    for request in srv.requests:
        messages = (request.body or {}).get("messages") or []
        if messages and messages[-1]["role"] == "user":
            content = messages[-1]["content"]
            last = content if isinstance(content, str) else content[-1].get("text", "")
            out.append(last)
    return out


def test_the_host_fires_a_closed_sessions_durable_cron_once_and_again_after_a_restart(
    host_env, project, tmp_path
):
    create = call("c1", "CronCreate", cron="0 9 * * 1-5", prompt="morning check", durable=True)
    write = call("w1", "Write", file_path=str(project / "report.txt"), content="x")
    turns = [{"content": [create]}, text("scheduled"), {"content": [write]}, text("checked at nine")]
    turns.append(text("checked again"))
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv), ENABLE_TOOL_SEARCH="false", YOKE_HOST_SCHEDULE_POLL="0.3")
        log = (tmp_path / "host.out").open("ab")
        host = _host(env, project, log)
        made = yoke_cmd(env, project, "-p", "every weekday morning, check", "--output-format", "json")
        assert made.returncode == 0, made.stderr
        creator = json.loads(made.stdout)["session_id"]
        path = project / ".claude" / "scheduled_tasks.json"
        (task,) = json.loads(path.read_text())["tasks"]
        assert task["createdBySessionId"] == creator and task["permissionMode"] == "default"

        # a terminal session of the project holds the tasks: the host leaves them to it
        terminal = DurableStore(project, "terminal")
        assert terminal.claim()
        _missed(path)
        time.sleep(2)  # several of the host's looks
        assert agents(env, project, "--all") == [] and _fired(srv).count("morning check") == 0
        terminal.release()  # the terminal closed: the host fires the missed run, once

        ident = creator[:8]
        wait_for(lambda: "checked at nine" in yoke_cmd(env, project, "logs", ident).stdout)
        (row,) = agents(env, project)
        assert row["id"] == ident and row["cwd"] == os.path.realpath(project)
        assert "every weekday morning" in str(srv.requests[-1].body["messages"])  # the creator, resumed
        denied = json.dumps(srv.requests[-1].body)
        assert "Nobody is attached to this scheduled run" in denied  # asked with nobody there: denied
        assert not (project / "report.txt").exists()
        from yoke.session.store import find_session

        transcript = find_session(creator, project, Path(env["YOKE_HOME"])).read_text()
        assert "morning check" in transcript and "checked at nine" in transcript  # the run, in its transcript
        (kept,) = json.loads(path.read_text())["tasks"]
        assert kept["lastFiredAt"] > task["createdAt"] and kept["createdBySessionId"] == creator
        time.sleep(2)
        assert _fired(srv).count("morning check") == 1  # at most once: the resumed session holds the lock

        # the host is killed (its sessions die with it) and started again: it picks the task up
        os.kill(Raw(socket_of(env)).call("hello")["payload"]["host"], signal.SIGKILL)
        host.wait(timeout=30)
        wait_for(lambda: agents(env, project, "--all")[0]["state"] == "stopped")
        _missed(path, days=3)
        host = _host(env, project, log)
        wait_for(lambda: "checked again" in yoke_cmd(env, project, "logs", ident).stdout)
        assert _fired(srv).count("morning check") == 2
        host.kill()
        host.wait(timeout=30)


def test_an_untrusted_project_s_durable_task_is_not_fired(host_env, project, tmp_path):
    from yoke.tools.durable import register_project

    store = DurableStore(project, "s1")
    store.save([{"id": "t1", "cron": "0 9 * * *", "prompt": "hello", "createdAt": int(time.time() * 1000) - 86400000,
                 "recurring": True}])  # fmt: skip
    home = tmp_path / "other-home"
    register_project(home, project, ["t1"], {"t1": "default"})
    env = dict(host_env, YOKE_HOME=str(home), YOKE_HOST_SCHEDULE_POLL="0.2")
    with (tmp_path / "host.out").open("ab") as log:
        host = _host(env, project, log)
        try:
            wait_for(lambda: "is not trusted" in (tmp_path / "host.out").read_text())
            assert agents(env, project, "--all") == []
        finally:
            host.kill()
            host.wait(timeout=30)


def test_the_host_runs_a_task_in_its_creators_mode_as_the_home_recorded_it_not_as_the_project_says(
    host_env, project, tmp_path
):
    from yoke.host.records import all_records
    from yoke.tools.durable import register_project

    old = int(time.time() * 1000) - 86400000
    forged = {"id": "t1", "cron": "0 9 * * *", "prompt": "hello", "createdAt": old, "lastFiredAt": old,
              "recurring": True, "permissionMode": "bypassPermissions"}  # fmt: skip
    brought = {**forged, "id": "t2", "prompt": "brought by a git pull"}
    DurableStore(project, "s1").save([brought])  # a task no session of this home made
    register_project(Path(host_env["YOKE_HOME"]), project, ["t1"], {"t1": "plan"})
    env = dict(host_env, YOKE_HOST_SCHEDULE_POLL="0.2")
    with (tmp_path / "host.out").open("ab") as log:
        host = _host(env, project, log)
        try:
            time.sleep(1.5)
            assert all_records(env) == []  # the host fires only what its home made
            DurableStore(project, "s1").save([forged, brought])
            (record,) = wait_for(lambda: all_records(env))
            assert record["args"] == ["--permission-mode", "plan"] and record["name"] == "scheduled: hello"
        finally:
            host.kill()
            host.wait(timeout=30)


def test_agents_shows_next_runs_and_stop_ends_the_sessions_schedules(host_env, project):
    every = call("c1", "CronCreate", cron="*/5 * * * *", prompt="look around")
    kept = call("c2", "CronCreate", cron="0 9 * * 1-5", prompt="morning check", durable=True)
    with ScriptedServer([{"content": [every, kept]}, text("both scheduled")]) as srv:
        env = dict(host_env, **anthropic_env(srv), ENABLE_TOOL_SEARCH="false")
        run = yoke_cmd(env, project, "--bg", "schedule two jobs")
        ident = run.stdout.split("· ")[1].split()[0]
        wait_for(lambda: "both scheduled" in yoke_cmd(env, project, "logs", ident).stdout)
        (row,) = agents(env, project)
        runs = row["nextRuns"]
        assert [(r["cron"], r["durable"]) for r in runs] == [("*/5 * * * *", False), ("0 9 * * 1-5", True)]
        assert runs[0]["nextFireAt"] <= runs[1]["nextFireAt"] and runs[0]["nextFireAt"] > time.time() * 1000
        (listed,) = Raw(socket_of(env)).call("list")["payload"]["sessions"]  # what the page lists
        assert [r["id"] for r in listed["nextRuns"]] == [r["id"] for r in runs]
        shown = yoke_cmd(env, project, "agents").stdout
        assert "next " in shown and "look around" in shown and "morning check (durable)" in shown
        path = project / ".claude" / "scheduled_tasks.json"
        assert len(json.loads(path.read_text())["tasks"]) == 1

        stopped = yoke_cmd(env, project, "stop", ident).stdout.splitlines()
        assert stopped[0] == f"stopped {ident}"
        assert stopped[1].startswith("ended its scheduled jobs: ") and len(stopped[1].split(", ")) == 2
        assert json.loads(path.read_text())["tasks"] == []  # the host does not start it again for them
        assert "nextRuns" not in agents(env, project, "--all")[0]


async def test_a_session_that_ends_before_firing_is_not_started_again_in_a_loop(
    project, tmp_path, monkeypatch
):
    from yoke.host import schedules

    started = []

    class Dead:
        live = False

    async def start(self, project, due, home, mode):
        started.append(mode)
        return Dead()

    monkeypatch.setattr(schedules.Keeper, "_start", start)
    monkeypatch.setattr("yoke.config.trust.is_trusted", lambda *a, **k: True)
    keeper = schedules.Keeper(host=None)
    due = [{"id": "t1", "due": 0}]
    for _ in range(3):  # three looks in a row: one start, then it waits RETRY_S
        await keeper._fire(project, due, tmp_path, {"t1": "acceptEdits"})
    assert started == ["acceptEdits"]
    keeper.started[str(project)] -= schedules.RETRY_S
    await keeper._fire(project, due, tmp_path, {"t1": "acceptEdits"})
    assert len(started) == 2


def test_a_terminal_session_that_made_a_durable_task_leaves_it_to_a_host_it_starts(host_env, project):
    create = call("c1", "CronCreate", cron="0 9 * * 1-5", prompt="morning check", durable=True)
    turns = [{"content": [create]}, text("scheduled"), text("checked at nine")]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv), ENABLE_TOOL_SEARCH="false", YOKE_HOST_SCHEDULE_POLL="0.3")
        assert not socket_of(env).exists()
        made = yoke_cmd(env, project, "-p", "every weekday morning, check", "--output-format", "json")
        assert made.returncode == 0, made.stderr
        assert "started the session host to keep this project's durable tasks" in made.stderr
        assert Raw(socket_of(env)).call("hello")["type"] == "response"  # it outlives the terminal
        _missed(project / ".claude" / "scheduled_tasks.json")
        ident = json.loads(made.stdout)["session_id"][:8]
        wait_for(lambda: "checked at nine" in yoke_cmd(env, project, "logs", ident).stdout)
        again = yoke_cmd(env, project, "-p", "hello", "--output-format", "json")  # a host runs: none started
        assert "started the session host" not in again.stderr
