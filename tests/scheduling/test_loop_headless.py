"""`/loop` without an interval through `yoke -p --input-format stream-json` against the scripted server: the
model paces itself with ScheduleWakeup; each wake-up is a prompt the session submits to itself (its own
`system/init`, turn and result on the same stdout), three wake-ups fire, then `stop: true` ends the loop and
no further one comes. YOKE_SCHEDULE_TIME_SCALE (test-only) makes the clamped 60 s a 0.6 s wait."""

from __future__ import annotations

import json
import threading
import time

from tests.agents.test_subagents import call, text
from tests.cli.test_stream_input import launch, read_until, send
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

LOOP = "/loop check CI"


def wake(i: int, **extra) -> dict:
    args = extra or {"delaySeconds": 60, "reason": "CI takes a minute", "prompt": LOOP, "noop": True}
    return {"content": [call(f"w{i}", "ScheduleWakeup", **args)]}


def test_three_wake_ups_then_stop(project, base_env):
    turns = [wake(0), text("checked 0"), wake(1), text("checked 1"), wake(2), text("checked 2")]
    turns += [wake(3, stop=True), text("CI is green; loop ended")]
    with ScriptedServer(turns) as srv:
        env = dict(
            base_env, **anthropic_env(srv), YOKE_SCHEDULE_TIME_SCALE="0.01", ENABLE_TOOL_SEARCH="false"
        )
        proc = launch(project, env)
        timer = threading.Timer(90, proc.kill)  # a bounded wait, whatever the process does
        timer.start()
        try:
            send(
                proc,
                {"type": "user", "message": {"role": "user", "content": LOOP}, "parent_tool_use_id": None},
            )
            results: list[dict] = []
            seen = read_until(
                proc, lambda m: m.get("type") == "result" and results.append(m) is None and len(results) == 4
            )
            time.sleep(2.0)  # longer than three wake-up delays: nothing more may fire
            proc.stdin.close()
            rest = proc.stdout.read()
            proc.wait(timeout=30)
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
        bodies = [r.body for r in srv.requests if r.body and r.body.get("tools")]
    assert [r["result"] for r in results] == [
        "checked 0",
        "checked 1",
        "checked 2",
        "CI is green; loop ended",
    ]
    assert not any(json.loads(line).get("type") == "result" for line in rest.splitlines() if line.strip())
    inits = [m for m in seen if m.get("type") == "system" and m.get("subtype") == "init"]
    assert len(inits) == 4  # one per query: the prompt and three wake-ups
    first_users = [b["messages"][-1] for b in bodies if b["messages"][-1]["role"] == "user"]
    # each wake-up submitted the loop again: the pacing note and the task come back each time
    opened = [m for m in first_users if any("ScheduleWakeup" in (c.get("text") or "") for c in m["content"])]
    assert len(opened) == 4
    assert "ScheduleWakeup" in {t["name"] for t in bodies[0]["tools"]}


def test_p_stays_for_a_pending_wake_up_as_2_1_332_does(project, yoke, base_env):
    # 2.1.332 `-p "/loop check CI"` with a ScheduleWakeup: the process stayed, ran the wake-up's turn (its own
    # init and result), and ended after `stop` (read 2026-11-28, 79 s for a 60 s wake-up)
    turns = [wake(0), text("one"), wake(1, stop=True), text("two")]
    with ScriptedServer(turns) as srv:
        env = dict(anthropic_env(srv), YOKE_SCHEDULE_TIME_SCALE="0.01", ENABLE_TOOL_SEARCH="false")
        run = yoke("-p", LOOP, "--output-format", "stream-json", "--verbose", env=env)
    assert run.code == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    assert [m["result"] for m in lines if m["type"] == "result"] == ["one", "two"]
    assert sum(1 for m in lines if m.get("subtype") == "init") == 2
