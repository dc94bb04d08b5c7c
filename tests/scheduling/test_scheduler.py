"""The scheduler (`yoke.tools.schedule`) on a clock the test drives: cron matching in local time, a missed
run fires once (never a burst), a job whose prompt still waits does not fire again, and the caps end a job
with its reason. The tools' input schemas are 2.1.332's (tests/scheduling/cc_2_1_332_tools.json)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from yoke.tools.schedule import CronError, CronSpec, Scheduler

FIXTURE = json.loads((Path(__file__).parent / "cc_2_1_332_tools.json").read_text())


def at(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()  # local time, as cron reads it


def test_cron_expressions_match_in_local_time():
    assert CronSpec.parse("*/5 * * * *").next_after(at("2026-11-28 07:31:10")) == at("2026-11-28 07:35")
    assert CronSpec.parse("0 9 * * 1-5").next_after(at("2026-11-28 10:00")) == at(
        "2026-11-30 09:00"
    )  # Sat→Mon
    assert CronSpec.parse("30 14 28 feb *").next_after(at("2026-11-28 00:00")) == at("2027-02-28 14:30")
    assert CronSpec.parse("0 0 1 * sun").next_after(at("2026-11-28 00:00")) == at(
        "2026-11-29 00:00"
    )  # either day
    for bad in ("* * * *", "61 * * * *", "*/0 * * * *", "a * * * *", "5-1 * * * *"):
        with pytest.raises(CronError):
            CronSpec.parse(bad)


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def scheduler(clock: Clock, **env: str):
    submitted: list[tuple[str, str]] = []
    waiting: set[str] = set()

    async def submit(ident: str, prompt: str) -> None:
        submitted.append((ident, prompt))
        waiting.add(ident)

    s = Scheduler(submit, is_queued=lambda i: i in waiting, clock=clock, env=env)
    return s, submitted, waiting


async def test_a_missed_run_fires_once_then_the_schedule_goes_on_from_now():
    clock = Clock(at("2026-11-28 07:31"))
    s, submitted, waiting = scheduler(clock)
    job = s.create("*/5 * * * *", "check the build")
    assert await s.tick() == []
    clock.now = at("2026-11-28 09:02")  # eighteen runs were missed (the laptop slept)
    assert [j.id for j in await s.tick()] == [job.id]
    assert len(submitted) == 1 and job.next_fire == at("2026-11-28 09:05")
    clock.now = at("2026-11-28 09:05")
    assert await s.tick() == []  # its prompt still waits behind a turn: no second copy
    waiting.clear()
    assert len(await s.tick()) == 1 and len(submitted) == 2
    await s.close()


async def test_one_shot_jobs_end_and_caps_end_a_job_with_the_reason():
    clock = Clock(at("2026-11-28 07:31"))
    s, submitted, waiting = scheduler(clock, YOKE_SCHEDULE_MAX_RUNS="2")
    said: list[tuple[str, str]] = []
    s.on_end = lambda ident, why: said.append((ident, why))
    once = s.create("40 7 * * *", "remind me", recurring=False)
    every = s.create("* * * * *", "poll")
    for minute in (41, 42, 43):
        clock.now = at(f"2026-11-28 07:{minute}")
        waiting.clear()
        await s.tick()
    assert once.id not in s.jobs and every.id not in s.jobs
    assert [p for _, p in submitted] == ["poll", "remind me", "poll"]  # the earlier due first
    assert s.ended == said == [(every.id, "ran 2 times, its cap (YOKE_SCHEDULE_MAX_RUNS)")]
    await s.close()


async def test_a_cost_cap_ends_a_job():
    clock = Clock(at("2026-11-28 07:31"))
    spent = [0.0]

    async def submit(ident: str, prompt: str) -> None:
        spent[0] += 3.0

    s = Scheduler(submit, spent=lambda: spent[0], clock=clock, env={"YOKE_SCHEDULE_MAX_COST_USD": "5"})
    job = s.create("* * * * *", "poll")
    for minute in (32, 33, 34):
        clock.now = at(f"2026-11-28 07:{minute}")
        await s.tick()
    assert s.ended == [(job.id, "the session spent $5.00 since it was made, its cap")] and spent[0] == 6.0
    await s.close()


async def test_wake_ups_clamp_scale_and_stop():
    clock = Clock(at("2026-11-28 07:31"))
    s, submitted, _ = scheduler(clock, YOKE_SCHEDULE_TIME_SCALE="0.01")
    job = s.wake_up(5, "/loop check CI")  # clamped to 60 s, then scaled for the test
    assert job.next_fire == pytest.approx(clock.now + 0.6)
    assert s.session_crons() == [
        {"id": job.id, "schedule": "32 7 28 11 *", "recurring": False, "prompt": "/loop check CI"}
    ]
    assert list(s.session_crons()[0]) == FIXTURE["session_crons"]["item_fields"]
    s.wake_up(7200, "/loop check CI")  # a dynamic loop has one wake-up: the new one replaces it
    assert len(s.jobs) == 1 and next(iter(s.jobs.values())).next_fire == pytest.approx(clock.now + 36)
    assert s.stop_wake_ups() == 1 and not s.jobs
    await s.close()


def test_the_tools_offer_2_1_332s_input_schemas():
    from yoke.tools.builtin import builtin_tools

    ours = {t.name: t.input_schema() for t in builtin_tools(lazy=False)}
    for name in ("CronCreate", "CronDelete", "CronList", "ScheduleWakeup"):
        theirs = FIXTURE["tools"][name]
        mine = ours[name]
        assert set(mine["properties"]) == set(theirs["properties"]), name
        assert sorted(mine.get("required", [])) == sorted(theirs.get("required", [])), name
        for prop, spec in theirs["properties"].items():
            assert mine["properties"][prop].get("type") == spec.get("type"), (name, prop)


def _shape(schema):
    """A schema's structure without the prose: property names, types, enums, bounds, required."""
    if isinstance(schema, dict):
        return {k: _shape(v) for k, v in schema.items() if k not in ("description", "$schema", "default")}
    if isinstance(schema, list):
        return [_shape(v) for v in schema]
    return schema


def test_report_findings_offers_2_1_332s_schema():
    from yoke.tools.builtin import builtin_tools

    (tool,) = [t for t in builtin_tools(lazy=False) if t.name == "ReportFindings"]
    theirs = FIXTURE["tools"]["ReportFindings"]
    mine = _shape(tool.input_schema())
    assert mine["required"] == theirs["required"] and set(mine["properties"]) == set(theirs["properties"])
    items, their_items = mine["properties"]["findings"]["items"], theirs["properties"]["findings"]["items"]
    assert set(items["properties"]) == set(their_items["properties"])
    assert sorted(items["required"]) == sorted(their_items["required"])
    for name, spec in their_items["properties"].items():
        assert items["properties"][name].get("enum") == spec.get("enum"), name
        assert items["properties"][name].get("maxLength") == spec.get("maxLength"), name
    assert mine["properties"]["findings"]["maxItems"] == 32


def test_list_agents_and_send_message_take_2_1_332s_fields():
    from yoke.agents.tools import ListAgentsTool, SendMessageTool

    extra = {"ListAgents": set(), "SendMessage": {"priority"}}  # Yoke's optional extension (compatibility.md)
    for tool in (ListAgentsTool(), SendMessageTool()):
        theirs = FIXTURE["tools"][tool.name]
        mine = tool.input_schema()
        assert set(mine["properties"]) == set(theirs["properties"]) | extra[tool.name], tool.name
        for name, spec in theirs["properties"].items():
            assert mine["properties"][name].get("type") == spec.get("type"), (tool.name, name)
        assert sorted(mine.get("required", [])) == sorted(theirs.get("required", [])), tool.name
    priority = SendMessageTool().input_schema()["properties"]["priority"]
    assert priority["enum"] == ["now", "next", "later"] and "priority" not in FIXTURE["tools"]["SendMessage"]
