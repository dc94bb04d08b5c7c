"""Defects found in review, reproduced through the real `yoke` command as a user or a program meets them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.cli.test_stream_input import launch, read_until, send
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer


def test_stream_json_bad_lines_get_an_error_line_and_the_session_goes_on(project, base_env):
    turns = [{"content": [{"type": "text", "text": "hello back"}]}]
    with ScriptedServer(turns) as srv:
        proc = launch(project, dict(base_env, **anthropic_env(srv)))
        try:
            for bad in ("[]", "42", "not json", '{"type":"user"}', '{"type":"mystery"}'):
                proc.stdin.write(bad + "\n")
            send(proc, {"type": "user", "message": "hi"})  # a bare string message is taken as its text
            proc.stdin.close()
            lines = read_until(proc, lambda o: o["type"] == "result")
            errors = [o for o in lines if o["type"] == "system" and o.get("subtype") == "error"]
            assert len(errors) == 5 and all(o["error"].startswith("ignored") for o in errors)
            assert lines[-1]["result"] == "hello back" and lines[-1]["is_error"] is False
            assert proc.wait(timeout=15) == 0
        finally:
            proc.kill()
    assert srv.requests[0].body["messages"][0]["content"][0]["text"] == "hi"


def test_stream_json_input_with_json_output_is_refused_as_2_1_330_does(project, base_env):
    """Formerly run; 2.1.330 refuses it (exit 1, before any model request: tests/cli/cc_2_1_330)."""
    with ScriptedServer([{"content": [{"type": "text", "text": "one json"}]}]) as srv:
        env = dict(base_env, **anthropic_env(srv))
        proc = subprocess.run(
            [sys.executable, "-m", "yoke", "-p", "--input-format", "stream-json", "--output-format", "json"],
            cwd=project,
            env=env,
            input=json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}) + "\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        requests = len(srv.requests)
    assert proc.returncode == 1 and "--output-format stream-json" in proc.stderr
    assert proc.stdout == "" and requests == 0


def test_compact_after_continue_prints_no_generator_errors(yoke):
    turns = [
        {"content": [{"type": "text", "text": "first answer"}]},
        {"content": [{"type": "text", "text": "<summary>we said hello</summary>"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = anthropic_env(srv)
        assert yoke("-p", "hello", env=env).code == 0
        run = yoke("-p", "/compact", "-c", env=env)
    assert run.code == 0, run.stderr
    assert "RuntimeError" not in run.stderr and "aclose" not in run.stderr


def test_edit_after_continue_of_a_file_the_previous_run_wrote(yoke, project):
    target = project / "app.py"
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "w1",
                    "name": "Write",
                    "input": {"file_path": str(target), "content": "x = 1\n"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "written"}]},
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "e1",
                    "name": "Edit",
                    "input": {"file_path": str(target), "old_string": "x = 1", "new_string": "x = 2"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "edited"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = anthropic_env(srv)
        assert yoke("-p", "write it", "--permission-mode", "acceptEdits", env=env).code == 0
        run = yoke(
            "-p", "now edit", "-c", "--permission-mode", "acceptEdits", "--output-format", "json", env=env
        )
    assert run.code == 0, run.stdout + run.stderr
    assert target.read_text() == "x = 2\n"


def test_continue_with_no_earlier_session_starts_a_new_one(yoke):
    with ScriptedServer([{"content": [{"type": "text", "text": "fresh"}]}]) as srv:
        run = yoke("-p", "hi", "-c", env=anthropic_env(srv))
    assert run.code == 0 and run.stdout.strip() == "fresh"


def test_settings_env_reaches_tools_without_touching_the_process(yoke, project, home):
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"env": {"YOKE_TEST_MARKER": "from-settings"}})
    )
    out = project / "marker.txt"
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "b1",
                    "name": "Bash",
                    "input": {"command": f'printf %s "$YOKE_TEST_MARKER" > {out}'},
                }
            ]
        },
        {"content": [{"type": "text", "text": "done"}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "go", "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert out.read_text() == "from-settings"


async def test_open_session_uses_the_env_it_is_given_and_leaves_the_process_alone(project, home):
    from yoke.session import SessionOptions, open_session

    before = dict(os.environ)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"env": {"YOKE_ONLY_IN_SESSION": "1"}}))
    with ScriptedServer([{"content": [{"type": "text", "text": "from the given env"}]}]) as srv:
        env = {
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "YOKE_HOME": str(home / ".yoke"),
            "PATH": os.environ["PATH"],
            **anthropic_env(srv),
        }
        session = await open_session(SessionOptions(cwd=project, env=env, persist=False))
        try:
            events = [e async for e in session.query("hi")]
        finally:
            await session.close()
    assert events[-1].text == "from the given env"
    assert session.agent.executor.ctx.env["YOKE_ONLY_IN_SESSION"] == "1"
    assert dict(os.environ) == before


def _pids_running(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            pids.append(int(entry.name))
    return pids


def test_commands_die_with_yoke_even_on_sigkill(project, base_env):
    marker = "317.25"  # an unusual sleep length names our process
    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": f"sleep {marker}"}}
            ]
        },
        {"content": [{"type": "text", "text": "never"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv))
        proc = subprocess.Popen(
            [sys.executable, "-m", "yoke", "-p", "go", "--permission-mode", "bypassPermissions"],
            cwd=project,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while not _pids_running(f"sleep {marker}") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _pids_running(f"sleep {marker}"), "the command never started"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 5
        while _pids_running(f"sleep {marker}") and time.monotonic() < deadline:
            time.sleep(0.05)
        left = _pids_running(f"sleep {marker}")
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert left == []


def test_sigint_while_compaction_summarizes_ends_within_a_second(yoke, project, base_env):
    turns = [
        {"content": [{"type": "text", "text": "first answer"}]},
        {"content": [{"type": "text", "text": "<summary>slow</summary>"}], "delay": 30},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv))
        assert yoke("-p", "hello", env=anthropic_env(srv)).code == 0
        proc = subprocess.Popen(
            [sys.executable, "-m", "yoke", "-p", "/compact", "-c"],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while len(srv.requests) < 2 and time.monotonic() < deadline:  # the summary request is under way
            time.sleep(0.02)
        assert len(srv.requests) == 2
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=10)
        took = time.monotonic() - sent
    assert proc.returncode == 130, err
    assert took < 1.5, took  # a second for the interrupt, a little for the process to exit
