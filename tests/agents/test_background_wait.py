"""Waiting for background sub-agents, as `yoke -p` does after its query (2.1.330 waits, then runs one more
query on the completion notice): the wait is bounded, an interrupt or SIGINT ends it at once, and the notice
starts a follow-up query with its own init and result."""

from __future__ import annotations

import asyncio
import json
import queue
import signal
import subprocess
import sys
import threading
import time

from tests.agents.test_subagents import Router, call, text
from tests.conftest import anthropic_env

from yoke import events as ev
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer

STREAM_OUT = ["--output-format", "stream-json", "--verbose"]


def quick_router() -> Router:
    """The main session starts a sub-agent (background by default) that answers at once; the notice of its
    end is answered "after the notice"."""
    return Router(
        {
            "delegate": [
                {"content": [call("a1", "Agent", description="quick", prompt="QUICK job")]},
                text("launched"),
                text("after the notice"),
            ],
            "QUICK job": [text("quick answer")],
        }
    )


def slow_router() -> Router:
    """The main session starts a sub-agent (background by default) whose one command takes 30 s."""
    return Router(
        {
            "delegate": [
                {"content": [call("a1", "Agent", description="slow", prompt="SLOW job")]},
                text("launched"),
                text("after the notice"),
            ],
            "SLOW job": [{"content": [call("b1", "Bash", command="sleep 30")]}, text("slow answer")],
        }
    )


async def _open(project, base_env, srv):
    env = dict(base_env, **anthropic_env(srv))
    return await open_session(SessionOptions(cwd=project, env=env, permission_mode="bypassPermissions"))


async def test_the_wait_on_background_work_is_bounded(project, base_env):
    with ScriptedServer(default_turn=slow_router()) as srv:
        session = await _open(project, base_env, srv)
        try:
            events = [e async for e in session.query("delegate")]
            assert events[-1].text == "launched" and session.background_busy()
            started = time.monotonic()
            seen = [e async for e in session.background_events(1.0)]
            took = time.monotonic() - started
            assert 0.9 <= took < 5, f"waited {took:.2f} s for a 1 s bound"
            assert session.background_busy() and not session.follow_up_due()
            # the sub-agent's steps arrive while waiting (or during the query that started it)
            steps = [*events, *seen]
            assert any(isinstance(e, ev.AssistantMessage) and e.parent_tool_use_id == "a1" for e in steps)
        finally:
            closing = time.monotonic()
            await session.close()  # cancels the background agent and its command
            assert time.monotonic() - closing < 5


async def test_an_interrupt_ends_the_wait_within_a_second(project, base_env):
    with ScriptedServer(default_turn=slow_router()) as srv:
        session = await _open(project, base_env, srv)
        try:
            [e async for e in session.query("delegate")]

            async def wait() -> None:
                async for _ in session.background_events(60):
                    pass

            waiter = asyncio.ensure_future(wait())
            await asyncio.sleep(0.3)
            assert not waiter.done()
            asked = time.monotonic()
            session.interrupt()
            await asyncio.wait_for(waiter, timeout=5)
            assert time.monotonic() - asked < 1
            assert session.background_busy()  # an interrupt stops the wait, not the background agent
        finally:
            await session.close()


async def test_the_completion_notice_starts_a_follow_up_query(project, base_env):
    router = quick_router()
    with ScriptedServer(default_turn=router) as srv:
        session = await _open(project, base_env, srv)
        try:
            first = [e async for e in session.query("delegate")]
            launch = next(e for e in first if isinstance(e, ev.ToolResultsMessage) and e.agent_id == "main")
            assert launch.results[0].data["status"] == "async_launched"
            seen = [e async for e in session.background_events(30)]
            assert session.follow_up_due()
            ended = [e for e in [*first, *seen] if isinstance(e, ev.TaskEvent) and e.phase == "ended"]
            assert ended and ended[0].data["status"] == "completed"
            follow = [e async for e in session.follow_up()]
            assert follow[-1].text == "after the notice"
            notice = router.seen["delegate"][-1]["messages"][-1]
            assert "quick answer" in json.dumps(notice)  # the agent's answer is what the model reads
            assert not session.follow_up_due() and not session.background_busy()
        finally:
            await session.close()


def _print_run(project, env, *extra: str) -> subprocess.Popen:
    argv = [
        sys.executable,
        "-m",
        "yoke",
        "-p",
        "delegate",
        *STREAM_OUT,
        "--permission-mode",
        "bypassPermissions",
    ]
    return subprocess.Popen(
        [*argv, *extra],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_print_mode_waits_no_longer_than_its_ceiling(project, base_env):
    with ScriptedServer(default_turn=slow_router()) as srv:
        env = dict(base_env, **anthropic_env(srv), CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS="1500")
        started = time.monotonic()
        proc = _print_run(project, env)
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - started
    lines = [json.loads(x) for x in out.splitlines() if x.strip()]
    assert proc.returncode == 0, err
    assert took < 30, f"took {took:.1f} s: the sub-agent's 30 s command was waited for"
    results = [x for x in lines if x["type"] == "result"]
    assert [r["result"] for r in results] == ["launched"]  # no notice came: no follow-up query
    assert any(x.get("subtype") == "task_started" and x["is_backgrounded"] for x in lines)


def test_sigint_during_the_wait_exits_130_within_a_second(project, base_env):
    with ScriptedServer(default_turn=slow_router()) as srv:
        env = dict(base_env, **anthropic_env(srv))
        proc = _print_run(project, env)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:  # the sub-agent is at work (its command runs)
                line = proc.stdout.readline()
                if not line:
                    break
                if json.loads(line).get("subtype") == "task_progress":
                    break
            time.sleep(0.5)
            assert proc.poll() is None  # still waiting on the background agent
            asked = time.monotonic()
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=10)
            took = time.monotonic() - asked
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 130, proc.stderr.read()
    assert took < 3, f"took {took:.2f} s to exit"  # within a second; generous under load


def test_text_and_json_output_after_a_follow_up(project, base_env):
    """Text output writes each answer, a blank line between; json output only the run's last result."""
    router_args = {
        "delegate": [
            {"content": [call("a1", "Agent", description="quick", prompt="QUICK job")]},
            text("launched"),
            text("after the notice"),
        ],
        "QUICK job": [text("quick answer")],
    }
    outputs = {}
    for fmt in ("text", "json"):
        with ScriptedServer(default_turn=Router(json.loads(json.dumps(router_args)))) as srv:
            env = dict(base_env, **anthropic_env(srv))
            argv = [sys.executable, "-m", "yoke", "-p", "delegate", "--output-format", fmt]
            proc = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        outputs[fmt] = proc.stdout
    assert outputs["text"] == "launched\n\nafter the notice\n"
    assert json.loads(outputs["json"])["result"] == "after the notice"


def test_stream_json_input_answers_the_notice_while_stdin_is_open(project, base_env):
    """As 2.1.330 does (checked with stdin held open): the follow-up query runs without a new message, its
    own init and result lines; the first result is written at once."""
    router = quick_router()
    with ScriptedServer(default_turn=router) as srv:
        env = dict(base_env, **anthropic_env(srv))
        argv = [sys.executable, "-m", "yoke", "-p", "--input-format", "stream-json", *STREAM_OUT]
        proc = subprocess.Popen(
            argv, cwd=project, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        try:
            message = {"type": "user", "message": {"role": "user", "content": "delegate"}}
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            lines, results = [], []
            arrived: queue.Queue = queue.Queue()
            threading.Thread(target=lambda: [arrived.put(x) for x in proc.stdout], daemon=True).start()
            deadline = time.monotonic() + 30
            while len(results) < 2 and time.monotonic() < deadline:  # a bounded wait for each line
                try:
                    line = arrived.get(timeout=max(0.1, deadline - time.monotonic()))
                except queue.Empty:
                    break
                lines.append(json.loads(line))
                if lines[-1]["type"] == "result":
                    results.append(lines[-1]["result"])
            assert proc.poll() is None  # stdin is still open: the process waits for more
            proc.stdin.close()
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert results == ["launched", "after the notice"]
    kinds = [(x["type"], x.get("subtype")) for x in lines]
    assert kinds.count(("system", "init")) == 2
    assert kinds.index(("system", "task_notification")) < len(kinds) - 1 - kinds[::-1].index(
        ("system", "init")
    )
    assert proc.returncode == 0
