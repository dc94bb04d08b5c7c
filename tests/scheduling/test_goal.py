"""`/goal` in a session against the scripted server: the check (a command, through the Bash tool's gate and
sandbox) fails twice then passes, and the goal ends verified after three turns, each later turn a prompt
the session submitted to itself; another goal stops at its turn budget and says so; an active goal is in the
transcript for a resume; bad input gets one line."""

from __future__ import annotations

import asyncio

import pytest
from tests.conftest import anthropic_env
from tests.scheduling.test_loop_headless import text

from yoke import events as ev
from yoke.events import port
from yoke.session import SessionOptions, open_session
from yoke.session.transcript import load_records
from yoke.skills.goal import GoalError, parse_goal, restore_goal
from yoke.testing import ScriptedServer


async def _run_goal(project, base_env, command: str, answers: list[str]):
    turns = [text(a) for a in answers]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv))
        session = await open_session(
            SessionOptions(cwd=project, env=env, permission_mode="bypassPermissions")
        )
        try:
            stream = session.events()
            await session.submit(port.Prompt(command))
            seen = []
            async with asyncio.timeout(60):
                async for event in stream:
                    seen.append(event)
                    if isinstance(event, ev.Notice) and event.kind == "goal":
                        break
            records = list(load_records(session.transcript_path))
            prompts = [b.body["messages"][-1] for b in srv.requests if b.body and b.body.get("tools")]
        finally:
            await session.close()
    return seen, records, prompts


async def test_the_check_fails_twice_then_passes_and_the_goal_is_verified(project, base_env):
    # each turn's "work" is a file the check counts; the model's answers are scripted, the check is real
    (project / "count.sh").write_text(
        'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; [ "$n" -ge 3 ]\n'
    )
    seen, records, prompts = await _run_goal(
        project, base_env, "/goal --check 'sh count.sh' --max-turns 5 the tests pass", ["one", "two", "three"]
    )
    notice = [e for e in seen if isinstance(e, ev.Notice) and e.kind == "goal"][-1]
    assert notice.message.startswith("Goal verified: `sh count.sh` exited 0")
    began = [e.prompt_id for e in seen if isinstance(e, port.TurnBegan)]
    assert began[1:] == ["goal-1", "goal-2"]  # the two continuations the goal submitted to its session
    assert len(prompts) == 3 and "exited 1" in str(prompts[1])
    states = [(r["state"], r["turns"]) for r in records if r.get("type") == "goal-status"]
    assert states[-1] == ("verified", 3)


async def test_a_goal_stops_at_its_budget_with_the_reason(project, base_env):
    seen, records, prompts = await _run_goal(
        project, base_env, "/goal --check false --max-turns 2 never", ["a", "b", "c"]
    )
    notice = [e for e in seen if isinstance(e, ev.Notice) and e.kind == "goal"][-1]
    assert notice.message.startswith("Goal stopped: budget spent: 2 turns (--max-turns 2)")
    assert len(prompts) == 2
    # the active state before the end is what a resume reads; the ended goal does not come back
    active = [r for r in records if r.get("type") == "goal-status" and r["state"] == "active"]
    assert restore_goal(active).condition == "never"
    assert restore_goal(records) is None


def test_bad_goals_get_one_line():
    for args, message in (
        ("", "Usage: /goal"),
        ("--max-turns x do it", "--max-turns takes a number"),
        ("--check true --ask 'done?' it", "--check or --ask, not both"),
        ("--frob 1 it", "unknown option --frob"),
    ):
        with pytest.raises(GoalError, match=message.replace("?", r"\?")):
            parse_goal(args)
    assert parse_goal("clear") is None
    goal = parse_goal("--max-cost $2 --max-time 30m the docs build")
    assert (goal.question, goal.max_cost_usd, goal.max_time_s) == ("the docs build", 2.0, 1800.0)


async def test_an_active_goal_survives_resume(project, base_env):
    from yoke.skills.goal import active_goal

    turns = [text("first"), text("after resume")]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv))
        opts = {"cwd": project, "env": env, "permission_mode": "bypassPermissions"}
        session = await open_session(SessionOptions(**opts))
        stream = session.events()
        await session.submit(port.Prompt("/goal --check false --max-turns 2 it works"))
        async with asyncio.timeout(60):
            async for event in stream:
                if isinstance(event, port.Queued) and event.prompt_id == "goal-1":
                    break  # the first check failed; the goal goes on
        await session.submit(port.Interrupt(drop_queue=True))
        ident = session.id
        await session.close()

        resumed = await open_session(SessionOptions(**opts, resume=ident))
        try:
            stream = resumed.events()
            await asyncio.sleep(0.1)
            goal = active_goal(resumed.id)
            assert goal is not None and goal.condition == "it works" and goal.turns == 1
            await resumed.submit(port.Prompt("go on"))
            async with asyncio.timeout(60):
                async for event in stream:
                    if isinstance(event, ev.Notice) and event.kind == "goal":
                        break
            assert event.message.startswith("Goal stopped: budget spent: 2 turns")
        finally:
            await resumed.close()
