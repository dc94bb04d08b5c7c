"""SIGINT to `yoke -p` ends the process (exit 130) in every input format, even while the program that
started it holds stdin open; the control protocol's `interrupt` is the way to stop just one query."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

STREAM_OUT = ["--output-format", "stream-json", "--verbose"]
SLEEP = {
    "content": [{"type": "tool_use", "id": "toolu_sleep", "name": "Bash", "input": {"command": "sleep 30"}}]
}
DONE = {"content": [{"type": "text", "text": "done"}]}
USER = json.dumps({"type": "user", "message": {"role": "user", "content": "go"}}) + "\n"


def _start(argv, project, env):
    return subprocess.Popen(
        [sys.executable, "-m", "yoke", "-p", *argv],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _lines_until(proc, predicate) -> list[dict]:
    seen = []
    for line in proc.stdout:
        seen.append(json.loads(line))
        if predicate(seen[-1]):
            return seen
    raise AssertionError(f"stdout ended before the awaited line: {seen}")


def _interrupt_with_stdin_open(proc) -> float:
    """SIGINT, then wait for the exit while stdin stays open (as an SDK holds it); seconds taken."""
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    return time.monotonic() - started


@pytest.mark.parametrize("input_format", ["text", "stream-json"])
def test_sigint_during_a_tool_ends_the_process(project, base_env, input_format):
    with ScriptedServer([SLEEP, DONE]) as srv:
        env = dict(base_env, **anthropic_env(srv))
        argv = [*STREAM_OUT, "--allowedTools", "Bash(sleep:*)", "--input-format", input_format]
        proc = _start(argv if input_format == "stream-json" else ["go", *argv], project, env)
        if input_format == "stream-json":
            proc.stdin.write(USER)
            proc.stdin.flush()
        _lines_until(proc, lambda o: o["type"] == "assistant")
        time.sleep(0.5)  # the command is running
        took = _interrupt_with_stdin_open(proc)
        rest = [json.loads(x) for x in proc.stdout.read().splitlines() if x.strip()]
    assert proc.returncode == 130, proc.stderr.read()
    assert took < 5, f"took {took:.2f} s to exit"
    assert rest[-1]["type"] == "result" and rest[-1]["terminal_reason"] == "interrupted"


def test_sigint_while_waiting_for_the_next_message_ends_the_process(project, base_env):
    with ScriptedServer([DONE, DONE]) as srv:
        env = dict(base_env, **anthropic_env(srv))
        proc = _start([*STREAM_OUT, "--input-format", "stream-json"], project, env)
        proc.stdin.write(USER)
        proc.stdin.flush()
        _lines_until(proc, lambda o: o["type"] == "result")
        took = _interrupt_with_stdin_open(proc)
        remaining = srv.remaining
    assert proc.returncode == 130, proc.stderr.read()
    assert took < 5, f"took {took:.2f} s to exit"
    assert remaining == 1  # no further query was started


def test_messages_queued_behind_an_interrupted_query_are_not_run(project, base_env):
    with ScriptedServer([SLEEP, DONE, DONE]) as srv:
        env = dict(base_env, **anthropic_env(srv))
        proc = _start(
            [*STREAM_OUT, "--allowedTools", "Bash(sleep:*)", "--input-format", "stream-json"], project, env
        )
        proc.stdin.write(USER + USER)
        proc.stdin.flush()
        _lines_until(proc, lambda o: o["type"] == "assistant")
        time.sleep(0.5)
        took = _interrupt_with_stdin_open(proc)
        requests = len(srv.requests)
    assert proc.returncode == 130 and took < 5
    assert requests == 1
