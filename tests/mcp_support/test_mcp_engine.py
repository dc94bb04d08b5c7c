"""MCP through the Python API (`open_session`): elicitation answered by hooks, the asker, or declined;
server prompts as `/mcp__server__prompt` commands; state changes as events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.mcp_support.helpers import stdio_entry, text, tool_use

from yoke import events as ev
from yoke.loop.lifecycle import LifecycleOutcome
from yoke.seams import NoAsker
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer


def options(srv, project: Path, home: Path, **kw) -> SessionOptions:
    env = {
        "HOME": str(home),
        "YOKE_HOME": str(home / ".yoke"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "ANTHROPIC_BASE_URL": srv.url,
        "ANTHROPIC_API_KEY": "sk-test",
        "PATH": "/usr/bin:/bin",
    }
    config = json.dumps({"mcpServers": {"t": stdio_entry()}})
    return SessionOptions(
        cwd=project, env=env, mcp_config=[config], strict_mcp_config=True, allowed_tools=["mcp__t"], **kw
    )


async def run(session, prompt: str) -> list:
    return [e async for e in session.query(prompt)]


def results(events: list) -> list[str]:
    out = []
    for e in events:
        if isinstance(e, ev.ToolResultEvent):
            content = e.block.get("content") if isinstance(e.block, dict) else None
            out.append(content if isinstance(content, str) else json.dumps(content))
    return out


class ElicitationHook:
    def __init__(self) -> None:
        self.seen: list[tuple[str, dict]] = []

    def wants(self, event: str) -> bool:
        return event in ("Elicitation", "ElicitationResult")

    async def announce(self, event: str, payload: dict) -> LifecycleOutcome:
        self.seen.append((event, payload))
        if event == "Elicitation":
            return LifecycleOutcome(extras={"action": "accept", "content": {"value": "42"}})
        return LifecycleOutcome()


class Elicits(NoAsker):
    async def elicit(self, server, message, schema, mode):
        return "accept", {"value": "from the asker"}


@pytest.mark.parametrize("how", ["nobody", "hook", "asker", "asker handed in later"])
async def test_elicitation(project, home, how):
    hook = ElicitationHook()
    kw = {"listeners": [hook]} if how == "hook" else {"asker": Elicits()} if how == "asker" else {}
    with ScriptedServer([tool_use("mcp__t__ask", {}), text("ok")]) as srv:
        session = await open_session(options(srv, project, home, **kw))
        try:
            if how == "asker handed in later":  # the servers ask whoever answers the session's questions now
                session.set_asker(Elicits())
            events = await run(session, "x")
        finally:
            await session.close()
    expected = {
        "nobody": "elicitation: decline",
        "hook": "elicitation: accept",
        "asker": "elicitation: accept",
        "asker handed in later": "elicitation: accept",
    }
    assert results(events) == [expected[how]]
    if how == "hook":
        first = hook.seen[0][1]
        assert hook.seen[0][0] == "Elicitation" and first["mcp_server_name"] == "t"
        assert first["requested_schema"]["properties"]["value"]["type"] == "string"
        assert hook.seen[1][0] == "ElicitationResult" and hook.seen[1][1]["action"] == "accept"


async def test_prompt_as_slash_command_and_state_events(project, home):
    turns = [
        text("reviewed"),
        tool_use("mcp__t__crash", {}),
        text("after"),
        tool_use("mcp__t__pid", {}),
        text("ok"),
    ]
    with ScriptedServer(turns) as srv:
        session = await open_session(options(srv, project, home))
        try:
            assert session.started.mcp_servers == [{"name": "t", "status": "connected"}]
            assert "mcp__t__review" in await session.mcp.prompt_commands()
            await run(session, "/mcp__t__review src/app.py")
            sent = srv.requests[0].body["messages"][-1]["content"]
            assert "Please review src/app.py carefully." in json.dumps(sent)
            events = await run(session, "crash it")
            events += await run(session, "and now?")
        finally:
            await session.close()
    notices = [e for e in events if isinstance(e, ev.Notice) and e.kind == "mcp_status"]
    assert [n.data["status"] for n in notices][:2] == ["pending", "connected"]
    assert not results(events)[-1].startswith("<tool_use_error>")  # the restarted server answered
