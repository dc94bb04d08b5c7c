"""`yoke acp` driven by the agent-client-protocol package's client side over a real subprocess: a session,
a prompt whose edit needs permission (asked of the client), the diff it shows, modes, and cancellation."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import acp
from acp import schema
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer


class RecordingClient:
    def __init__(self, answer: str = "allow_once"):
        self.answer = answer
        self.updates: list[Any] = []
        self.permission_requests: list[Any] = []

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        self.permission_requests.append((tool_call, options))
        if self.answer == "cancel":
            return schema.RequestPermissionResponse(outcome=schema.DeniedOutcome(outcome="cancelled"))
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id=self.answer)
        )

    async def session_update(self, session_id, update, **kwargs):
        self.updates.append(update)

    async def write_text_file(self, *args, **kwargs):
        raise NotImplementedError

    async def read_text_file(self, *args, **kwargs):
        raise NotImplementedError

    def of(self, kind: str) -> list[Any]:
        return [u for u in self.updates if getattr(u, "session_update", None) == kind]

    def on_connect(self, conn):
        pass


async def start(client: RecordingClient, env: dict[str, str], cwd: Path, capabilities: Any = None):
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "yoke",
        "acp",
        cwd=str(cwd),
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    conn = acp.connect_to_agent(client, proc.stdin, proc.stdout)
    await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=capabilities)
    return proc, conn


async def stop(proc, conn) -> None:
    await conn.close()
    proc.stdin.close()
    try:
        await asyncio.wait_for(proc.wait(), 10)
    except TimeoutError:
        proc.kill()


def _env(base_env: dict[str, str], srv) -> dict[str, str]:
    return dict(base_env, **anthropic_env(srv), PYTHONPATH=os.pathsep.join(sys.path))


async def test_prompt_with_permission_and_diff(project, base_env):
    target = project / "notes.txt"
    target.write_text("old line\n")
    turns = [
        {
            "content": [
                {"type": "text", "text": "Let me read it."},
                {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": str(target)}},
            ]
        },
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "e1",
                    "name": "Edit",
                    "input": {"file_path": str(target), "old_string": "old line", "new_string": "new line"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "Edited."}]},
    ]
    client = RecordingClient("allow_once")
    with ScriptedServer(turns) as srv:
        proc, conn = await start(client, _env(base_env, srv), project)
        try:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            assert session.modes.current_mode_id == "default"
            assert {m.id for m in session.modes.available_modes} >= {"default", "acceptEdits", "plan"}
            response = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("edit notes")])
        finally:
            await stop(proc, conn)
    assert response.stop_reason == "end_turn"
    assert target.read_text() == "new line\n"
    text = "".join(u.content.text for u in client.of("agent_message_chunk"))
    assert "Let me read it." in text and "Edited." in text
    starts = {u.tool_call_id: u for u in client.of("tool_call")}
    assert starts["r1"].kind == "read" and starts["e1"].kind == "edit"
    tool_call, options = client.permission_requests[0]
    assert tool_call.tool_call_id == "e1" and {o.kind for o in options} >= {"allow_once", "reject_once"}
    done = [u for u in client.of("tool_call_update") if u.tool_call_id == "e1" and u.status == "completed"]
    diff = next(c for c in done[0].content if getattr(c, "type", "") == "diff")
    assert diff.old_text == "old line\n" and diff.new_text == "new line\n" and diff.path == str(target)
    located = [u for u in client.of("tool_call_update") if u.tool_call_id == "r1" and u.locations]
    assert located[0].locations[0].path == str(target)


async def test_rejected_permission_and_mode_change(project, base_env):
    target = project / "x.txt"
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "w1",
                    "name": "Write",
                    "input": {"file_path": str(target), "content": "x"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "Could not write."}]},
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "w2",
                    "name": "Write",
                    "input": {"file_path": str(target), "content": "y"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "Written."}]},
    ]
    client = RecordingClient("reject_once")
    with ScriptedServer(turns) as srv:
        proc, conn = await start(client, _env(base_env, srv), project)
        try:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("write")])
            assert not target.exists()
            await conn.set_session_mode(session_id=session.session_id, mode_id="acceptEdits")
            await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("write again")])
        finally:
            await stop(proc, conn)
    assert target.read_text() == "y"
    assert len(client.permission_requests) == 1  # acceptEdits needed no question
    assert client.of("current_mode_update")[0].current_mode_id == "acceptEdits"


async def test_cancel_ends_the_prompt(project, base_env):
    turns = [
        {"content": [{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "sleep 30"}}]}
    ]
    client = RecordingClient("allow_once")
    with ScriptedServer(turns) as srv:
        proc, conn = await start(client, _env(base_env, srv), project)
        try:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            prompt = asyncio.create_task(
                conn.prompt(session_id=session.session_id, prompt=[acp.text_block("wait")])
            )
            deadline = asyncio.get_running_loop().time() + 20
            while not any(
                u.tool_call_id == "b1" and u.status == "in_progress" for u in client.of("tool_call_update")
            ):
                assert asyncio.get_running_loop().time() < deadline
                await asyncio.sleep(0.05)
            started = asyncio.get_running_loop().time()
            await conn.cancel(session_id=session.session_id)
            response = await asyncio.wait_for(prompt, 5)
            took = asyncio.get_running_loop().time() - started
        finally:
            await stop(proc, conn)
    assert response.stop_reason == "cancelled" and took < 1.5


async def test_a_background_agent_and_its_follow_up_reach_the_editor(project, base_env):
    """A sub-agent runs in the background (as 2.1.330 runs it); the prompt ends with the launch, and the
    follow-up query its completion notice starts reaches the editor as session updates."""
    from tests.agents.test_background_wait import quick_router

    router = quick_router()
    client = RecordingClient("allow_once")
    with ScriptedServer(default_turn=router) as srv:
        proc, conn = await start(client, _env(base_env, srv), project)
        try:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            response = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("delegate")])
            assert response.stop_reason == "end_turn"
            deadline = asyncio.get_running_loop().time() + 30
            while "after the notice" not in "".join(u.content.text for u in client.of("agent_message_chunk")):
                assert asyncio.get_running_loop().time() < deadline, "no follow-up reached the editor"
                await asyncio.sleep(0.05)
        finally:
            await stop(proc, conn)
    assert "quick answer" in str(router.seen["delegate"][-1]["messages"][-1])
