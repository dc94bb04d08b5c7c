"""Durable cron jobs across sessions, in process against the scripted server: CronCreate `durable: true` keeps
the job in `.claude/scheduled_tasks.json` with 2.1.332's fields; the session ends; the next session of the
project holds the file's lock and fires it; runs missed while no session held it run once, not in a burst."""

from __future__ import annotations

import asyncio
import contextlib
import json

from tests.agents.test_subagents import call, text
from tests.conftest import anthropic_env
from tests.scheduling.test_scheduler import FIXTURE

from yoke import events as ev
from yoke.events import port
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer
from yoke.tools.durable import DurableStore


async def test_a_durable_job_fires_in_the_next_session_once(project, base_env):
    create = call("c1", "CronCreate", cron="0 9 * * 1-5", prompt="morning check", durable=True)
    turns = [{"content": [create]}, text("scheduled"), text("checked"), text("never")]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv), ENABLE_TOOL_SEARCH="false")
        opts = {"cwd": project, "env": env}
        first = await open_session(SessionOptions(**opts))
        stream = first.events()
        await first.submit(port.Prompt("every weekday morning, check"))
        async with asyncio.timeout(60):
            async for event in stream:
                if isinstance(event, ev.Result):
                    break
        await first.close()
        path = project / ".claude" / "scheduled_tasks.json"
        (task,) = json.loads(path.read_text())["tasks"]
        assert set(FIXTURE["durable_task_fields"]) <= set(task)
        assert (task["cron"], task["prompt"], task["recurring"]) == ("0 9 * * 1-5", "morning check", True)
        task["lastFiredAt"] = task["createdAt"] - 14 * 24 * 3600 * 1000  # ten weekday runs were missed
        path.write_text(json.dumps({"tasks": [task]}))

        second = await open_session(SessionOptions(**opts))
        try:
            stream = second.events()
            began = []
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5):
                    async for event in stream:
                        if isinstance(event, port.TurnBegan):
                            began.append(event.content)
            assert began == ["morning check"]  # once
            assert [r for r in srv.requests if r.body and r.body.get("tools")][-1].body["messages"][0][
                "content"
            ][-1]["text"] == "morning check"
            (kept,) = json.loads(path.read_text())["tasks"]
            assert kept["lastFiredAt"] > task["createdAt"]  # the next start does not fire it again
            assert not DurableStore(project, "other").claim()  # one session fires the project's jobs
        finally:
            await second.close()


async def test_a_durable_tasks_caps_count_across_sessions(project):
    """Every schedule has a cap on runs and cost: a durable task's runs and spend go on from the sessions that
    fired it before (the host starts a new one for each), not from zero in each."""
    from tests.scheduling.test_scheduler import Clock, at

    from yoke.tools.schedule import Scheduler

    clock, spent = Clock(at("2026-11-28 07:31")), [0.0]

    async def submit(ident: str, prompt: str) -> None:
        spent[0] += 1.0

    env = {"YOKE_SCHEDULE_MAX_RUNS": "3", "YOKE_SCHEDULE_MAX_COST_USD": "100"}

    def session(ident: str) -> Scheduler:  # a new session of the project: it adopts the kept tasks
        scheduler = Scheduler(
            submit, spent=lambda: spent[0], clock=clock, env=env, store=DurableStore(project, ident)
        )
        if scheduler.store.path.exists() and scheduler.store.claim():
            for stored in scheduler.store.load():
                scheduler.adopt(stored)
        return scheduler

    async def minutes(scheduler: Scheduler, *which: int) -> None:
        for minute in which:
            clock.now = at(f"2026-11-28 07:{minute}")
            await scheduler.tick()

    first = session("s1")
    job = first.create("* * * * *", "poll", durable=True)
    await minutes(first, 32, 33)
    await first.close()
    (task,) = json.loads((project / ".claude" / "scheduled_tasks.json").read_text())["tasks"]
    assert (task["yokeRuns"], task["yokeSpentUsd"]) == (2, 2.0)

    second = session("s2")
    await minutes(second, 34, 35, 36)
    assert spent[0] == 3.0  # one more run, then the cap
    assert second.ended == [(job.id, "ran 3 times, its cap (YOKE_SCHEDULE_MAX_RUNS)")]
    await second.close()
    assert json.loads((project / ".claude" / "scheduled_tasks.json").read_text())["tasks"] == []

    task |= {"yokeRuns": 0, "yokeSpentUsd": 99.5, "lastFiredAt": None}  # nearly all its budget spent before
    (project / ".claude" / "scheduled_tasks.json").write_text(json.dumps({"tasks": [task]}))
    third = session("s3")
    await minutes(third, 37, 38, 39)
    assert spent[0] == 4.0 and third.ended[0][1].endswith("its cap")
    await third.close()
