"""`yoke --bg` and Claude Code's background commands, as processes against the scripted server."""

from __future__ import annotations

import os
import signal

from tests.conftest import anthropic_env
from tests.host.conftest import Raw, agents, runtime_of, socket_of, wait_for, yoke_cmd

from yoke.testing import ScriptedServer


def _start(env, project, *args) -> str:
    run = yoke_cmd(env, project, "--bg", *args)
    assert run.returncode == 0, run.stderr
    first = run.stdout.splitlines()[0]
    assert first.startswith("backgrounded · "), run.stdout
    return first.split("· ")[1]


def test_background_session_finishes_after_the_client_closed_and_logs_show_the_answer(host_env, project):
    with ScriptedServer([{"content": [{"type": "text", "text": "the answer is 42"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "what is the answer")  # the command has exited: only the host remains
        wait_for(lambda: "the answer is 42" in yoke_cmd(env, project, "logs", ident).stdout)
        rows = agents(env, project)
        assert [r["id"] for r in rows] == [ident]
        row = rows[0]
        assert set(row) == {"pid", "id", "cwd", "kind", "startedAt", "sessionId", "name", "status", "state"}
        assert row["kind"] == "background" and row["sessionId"].startswith(ident)
        assert row["cwd"] == os.path.realpath(project) and row["name"] == "what is the answer"
        wait_for(lambda: agents(env, project)[0]["state"] == "idle")
        # part of the name works in place of the id, as in Claude Code
        assert "the answer is 42" in yoke_cmd(env, project, "logs", "answer").stdout


def test_stop_keeps_the_conversation_and_respawn_continues_it(host_env, project):
    turns = [
        {"content": [{"type": "text", "text": "first"}]},
        {"content": [{"type": "text", "text": "second"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "remember the word kumquat")
        wait_for(lambda: "first" in yoke_cmd(env, project, "logs", ident).stdout)
        assert yoke_cmd(env, project, "stop", ident).stdout.strip() == f"stopped {ident}"
        assert agents(env, project) == []  # without --all, stopped sessions are not listed
        stopped = agents(env, project, "--all")
        assert stopped[0]["state"] == "stopped" and "pid" not in stopped[0]
        assert yoke_cmd(env, project, "respawn", ident).stdout.strip() == f"restarted {ident}"
        client = Raw(socket_of(env))
        assert client.call("prompt", {"session": ident, "text": "which word?"})["type"] == "response"
        wait_for(lambda: "second" in yoke_cmd(env, project, "logs", ident).stdout)
        history = str(srv.requests[-1].body["messages"])
        assert "kumquat" in history and "which word?" in history
        assert yoke_cmd(env, project, "kill", ident).stdout.strip() == f"stopped {ident}"
        assert yoke_cmd(env, project, "rm", ident).stdout.strip() == f"removed {ident}"
        assert agents(env, project, "--all") == []


def test_kill_9_of_the_host_mid_turn_leaves_the_session_stopped_and_respawn_keeps_its_history(
    host_env, project
):
    target = project / "notes.txt"
    write = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Write",
        "input": {"file_path": str(target), "content": "x"},
    }
    turns = [{"content": [write]}, {"content": [{"type": "text", "text": "after respawn"}]}]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "write the notes about pomelos")
        # mid-turn: the Write waits on a permission answer nobody gives
        wait_for(lambda: (agents(env, project) or [{}])[0].get("state") == "blocked")
        host_pid = Raw(socket_of(env)).call("hello")["payload"]["host"]
        os.kill(host_pid, signal.SIGKILL)
        wait_for(lambda: agents(env, project, "--all")[0]["state"] == "stopped")
        assert agents(env, project) == []
        assert yoke_cmd(env, project, "respawn", ident).returncode == 0  # starts a new host on demand
        client = Raw(socket_of(env))
        client.call("prompt", {"session": ident, "text": "go on"})
        wait_for(lambda: "after respawn" in yoke_cmd(env, project, "logs", ident).stdout)
        history = str(srv.requests[-1].body["messages"])
        assert "pomelos" in history and "toolu_1" in history  # the unanswered call was answered on resume
        assert not target.exists()


def test_unknown_ids_and_missing_prompts_are_one_line(host_env, project):
    for args in (("logs", "nope"), ("stop", "nope"), ("attach", "nope"), ("--bg",)):
        run = yoke_cmd(host_env, project, *args)
        assert run.returncode != 0 and len(run.stderr.strip().splitlines()) == 1, (args, run.stderr)
        assert "Traceback" not in run.stderr


PROBE = (
    "import sys\n"
    "from yoke.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print('HOST:' + ','.join(sorted(m for m in sys.modules if m.startswith('yoke.host'))))\n"
)


def test_a_plain_print_run_needs_no_host_and_loads_none_of_it(host_env, project):
    import subprocess
    import sys

    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        run = subprocess.run(
            [sys.executable, "-c", PROBE, "-p", "hi"],
            env=env,
            cwd=project,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.stdout.splitlines()[0] == "ok", run.stderr
    assert run.stdout.splitlines()[-1] == "HOST:"
    assert not (runtime_of(env) / "host.sock").exists()  # and started no host


def test_attach_drives_the_session_and_leaving_it_keeps_the_session_running(host_env, project, tmp_path):
    import subprocess
    import sys

    turns = [
        {"content": [{"type": "text", "text": "first answer"}]},
        {"content": [{"type": "text", "text": "second answer"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "first question")
        wait_for(lambda: "first answer" in yoke_cmd(env, project, "logs", ident).stdout)
        out = tmp_path / "attach.out"
        with out.open("w") as sink:
            proc = subprocess.Popen(
                [sys.executable, "-m", "yoke", "attach", ident],
                env=env,
                cwd=project,
                stdin=subprocess.PIPE,
                stdout=sink,
                stderr=subprocess.STDOUT,
                text=True,
            )
            try:
                wait_for(lambda: "first answer" in out.read_text())  # what happened before, replayed
                proc.stdin.write("second question\n")
                proc.stdin.flush()
                wait_for(lambda: "second answer" in out.read_text())
                proc.stdin.write("/detach\n")
                proc.stdin.flush()
                assert proc.wait(timeout=20) == 0
            finally:
                if proc.poll() is None:
                    proc.kill()
        row = agents(env, project)[0]
        assert row["id"] == ident and row["state"] == "idle"  # still running, waiting for a prompt
        assert "second question" in str(srv.requests[-1].body["messages"])


def test_bg_resume_continues_a_foreground_session_in_the_background(host_env, project):
    turns = [
        {"content": [{"type": "text", "text": "foreground"}]},
        {"content": [{"type": "text", "text": "background"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        first = yoke_cmd(env, project, "-p", "remember durian", "--output-format", "json")
        session_id = __import__("json").loads(first.stdout)["session_id"]
        ident = _start(env, project, "--resume", session_id, "what fruit?")
        assert session_id.startswith(ident)
        wait_for(lambda: "background" in yoke_cmd(env, project, "logs", ident).stdout)
        assert "durian" in str(srv.requests[-1].body["messages"])


def test_a_session_that_crashes_takes_neither_the_host_nor_the_others_down(host_env, project):
    turns = [{"content": [{"type": "text", "text": f"answer {n}"}]} for n in range(3)]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        doomed = _start(env, project, "one")
        survivor = _start(env, project, "two")
        wait_for(lambda: {r["state"] for r in agents(env, project)} == {"idle"})
        pid = next(r["pid"] for r in agents(env, project) if r["id"] == doomed)
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: [r["id"] for r in agents(env, project)] == [survivor])
        client = Raw(socket_of(env))
        assert client.call("prompt", {"session": survivor, "text": "still there?"})["type"] == "response"
        wait_for(lambda: "answer 2" in yoke_cmd(env, project, "logs", survivor).stdout)


def test_a_session_whose_turn_fails_says_why_in_logs(host_env, project):
    ident = _start(host_env, project, "hi")  # no API key at all
    shown = wait_for(
        lambda: (out := yoke_cmd(host_env, project, "logs", ident).stdout) and "Error: " in out and out
    )  # the failed turn's error line (yoke logs prints no per-turn tally)
    assert "API key" in shown or "ANTHROPIC_API_KEY" in shown, shown


def test_part_of_a_name_that_fits_two_sessions_is_refused_not_guessed(host_env, project):
    turns = [{"content": [{"type": "text", "text": "ok"}]}] * 2
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        first = _start(env, project, "fix the tests")
        second = _start(env, project, "fix the docs")
        run = yoke_cmd(env, project, "rm", "fix")
        assert run.returncode == 1 and len(run.stderr.strip().splitlines()) == 1
        assert first in run.stderr and second in run.stderr
        assert {r["id"] for r in agents(env, project)} == {first, second}
        assert yoke_cmd(env, project, "stop", "docs").stdout.strip() == f"stopped {second}"


def test_agents_shows_the_profile_a_background_session_runs_with(host_env, project):
    with ScriptedServer([{"content": [{"type": "text", "text": "profiled"}]}]) as srv:
        env = dict(host_env, WORK_KEY="sk-work")
        add = ["profile", "add", "work", "--provider", "anthropic", "--model", "claude-haiku-4-5"]
        assert yoke_cmd(env, project, *add, "--base-url", srv.url, "--key-env", "WORK_KEY").returncode == 0
        ident = _start(env, project, "--profile", "work", "hello there")
        wait_for(lambda: "profiled" in yoke_cmd(env, project, "logs", ident).stdout)
        wait_for(lambda: agents(env, project)[0].get("profile") == "work")
        assert "[profile work]" in yoke_cmd(env, project, "agents").stdout
        assert srv.requests[0].body["model"] == "claude-haiku-4-5"
