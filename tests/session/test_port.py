"""The session port (`yoke.events.port`): ops in, one continuous stream out. A prompt's turn, a background
agent's notice and its follow-up query all arrive on the same `events()` stream with no loop in the client;
two subscribers hear the same turns; a question is an `Asked` event a `Reply` answers, and every subscriber
hears it `Answered`."""

from __future__ import annotations

import asyncio

from tests.agents.test_background_wait import quick_router
from tests.agents.test_subagents import Router, call, text
from tests.conftest import anthropic_env

from yoke import events as ev
from yoke.events import port
from yoke.seams import Answer
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer


async def _until(stream, stop, timeout=30.0):
    seen = []
    async with asyncio.timeout(timeout):
        async for event in stream:
            seen.append(event)
            if stop(event, seen):
                return seen
    return seen


def _results(seen):
    return [e for e in seen if isinstance(e, ev.Result) and e.agent_id == "main"]


async def test_a_background_agent_and_its_follow_up_reach_every_subscriber(project, base_env):
    router = quick_router()
    with ScriptedServer(default_turn=router) as srv:
        env = dict(base_env, **anthropic_env(srv))
        session = await open_session(
            SessionOptions(cwd=project, env=env, permission_mode="bypassPermissions")
        )
        try:
            assert isinstance(session, port.SessionPort)
            first, second = session.events(), session.events()
            answer = await session.submit(port.Prompt("delegate", id="p1"))
            assert answer == {"id": "p1", "position": 0}
            seen = await _until(first, lambda e, s: len(_results(s)) == 2)
            results = _results(seen)
            assert [r.text for r in results] == ["launched", "after the notice"]
            began = [e for e in seen if isinstance(e, port.TurnBegan)]
            assert [(b.prompt_id, b.origin) for b in began] == [("p1", "prompt"), ("", "follow_up")]
            assert any(isinstance(e, port.Queued) and e.prompt_id == "p1" for e in seen)
            # the other subscriber heard the same turns, then the session went idle
            other = await _until(second, lambda e, s: isinstance(e, port.Idle) and len(_results(s)) == 2)
            assert [r.text for r in _results(other)] == ["launched", "after the notice"]
            snap = session.snapshot()
            assert snap.id == session.id and not snap.busy and snap.queued == 0 and "Bash" in snap.tools
        finally:
            await session.close()


async def test_prompts_queue_behind_the_running_turn(project, base_env):
    router = Router({"one": [text("first"), text("second")]})  # keyed by the conversation's first prompt
    with ScriptedServer(default_turn=router) as srv:
        env = dict(base_env, **anthropic_env(srv))
        session = await open_session(SessionOptions(cwd=project, env=env))
        try:
            stream = session.events()
            await session.submit(port.Prompt("one"))
            queued = await session.submit(port.Prompt("two"))
            assert queued["position"] == 1
            seen = await _until(stream, lambda e, s: len(_results(s)) == 2)
            assert [r.text for r in _results(seen)] == ["first", "second"]
        finally:
            await session.close()


async def test_a_question_is_answered_by_a_reply_and_every_client_hears_it(project, base_env):
    router = Router({"edit": [{"content": [call("t1", "Bash", command="touch made.txt")]}, text("done")]})
    with ScriptedServer(default_turn=router) as srv:
        env = dict(base_env, **anthropic_env(srv))
        session = await open_session(SessionOptions(cwd=project, env=env))
        try:
            session.set_asker(None)  # only the port's clients answer
            watcher, driver = session.events(), session.events()
            await session.submit(port.Prompt("edit"))
            seen = await _until(driver, lambda e, s: isinstance(e, port.Asked))
            asked = seen[-1]
            assert asked.kind == "permission" and asked.question.tool_name == "Bash"
            await session.submit(port.Reply(asked.request_id, Answer("allow"), by="driver"))
            try:
                await session.submit(port.Reply(asked.request_id, Answer("deny"), by="watcher"))
                raise AssertionError("a second answer must be refused")
            except KeyError:
                pass
            heard = await _until(watcher, lambda e, s: len(_results(s)) == 1)
            answered = [e for e in heard if isinstance(e, port.Answered)]
            assert [(a.request_id, a.behavior, a.by) for a in answered] == [
                (asked.request_id, "allow", "driver")
            ]
            assert _results(heard)[0].text == "done"
        finally:
            await session.close()


async def test_describe_and_mode_ops(project, base_env):
    with ScriptedServer(default_turn=Router({})) as srv:
        env = dict(base_env, **anthropic_env(srv))
        session = await open_session(SessionOptions(cwd=project, env=env))
        try:
            rules = await session.submit(port.Describe("rules"))
            assert set(rules["items"]) >= {"allow", "deny", "ask"}
            await session.submit(port.SetMode("plan"))
            assert session.snapshot().permission_mode == "plan"
            try:
                await session.submit(port.SetMode("nonsense"))
                raise AssertionError("an unknown mode must be refused")
            except ValueError:
                pass
        finally:
            await session.close()


async def test_a_prompt_joining_a_turn_that_ends_unread_runs_as_the_next_turn(project, base_env):
    """`Prompt(join=True)` (a `next` message): read at the running turn's next model request; when the turn
    ends without another request, it is not lost nor read twice: it runs as the next turn, once."""
    slow = {"content": [{"type": "text", "text": "word " * 40}], "delay": 0.05}
    with ScriptedServer([slow, text("read the late one")]) as srv:
        env = dict(base_env, **anthropic_env(srv))
        session = await open_session(
            SessionOptions(cwd=project, env=env, permission_mode="bypassPermissions")
        )
        try:
            stream = session.events()
            await session.submit(port.Prompt("talk", id="p1"))
            await _until(stream, lambda e, s: isinstance(e, ev.TextDelta))  # its one request is answering
            assert await session.submit(port.Prompt("a late note", id="p2", join=True)) == {
                "id": "p2",
                "joined": True,
            }
            seen = await _until(stream, lambda e, s: len(_results(s)) == 2)
            assert [r.text for r in _results(seen)][-1] == "read the late one"
            assert [b.prompt_id for b in seen if isinstance(b, port.TurnBegan)] == ["p2"]
            told = [str(r.body["messages"]) for r in srv.requests]
            assert "a late note" not in told[0] and told[1].count("a late note") == 1
            idle = await session.submit(port.Prompt("alone", id="p3", join=True))
            assert idle == {"id": "p3", "position": 0}  # no turn runs: queued as usual
        finally:
            await session.close()
