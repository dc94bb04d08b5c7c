"""The ACP client's terminals, over a real `yoke acp` subprocess: a foreground Bash command the sandbox does
not cover runs in a client terminal embedded in its tool call (working directory carried as locally); with
the sandbox on, or without the offer, commands run locally."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from pathlib import Path

from acp import schema
from tests.protocols.test_acp_fs import EditorClient, call, run_prompt, tool_results

from yoke.testing import ScriptedServer

TERMINAL = schema.ClientCapabilities(terminal=True)


class TerminalClient(EditorClient):
    """An editor whose terminals are real processes (stdout and stderr together, like a terminal)."""

    def __init__(self) -> None:
        super().__init__({})
        self.created: list[dict] = []
        self.released: list[str] = []
        self.procs: dict[str, asyncio.subprocess.Process] = {}
        self.outputs: dict[str, asyncio.Task] = {}

    async def create_terminal(self, session_id, command, args=None, env=None, cwd=None, **kwargs):
        terminal_id = f"term-{len(self.created) + 1}"
        extra = {e.name: e.value for e in env or []}
        self.created.append({"id": terminal_id, "command": command, "cwd": cwd, "env": extra})
        proc = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            env=dict(os.environ, **extra),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        self.procs[terminal_id] = proc
        self.outputs[terminal_id] = asyncio.ensure_future(proc.stdout.read())
        return schema.CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(self, session_id, terminal_id, **kwargs):
        code = await self.procs[terminal_id].wait()
        return schema.WaitForTerminalExitResponse(exit_code=code if code >= 0 else None)

    async def terminal_output(self, session_id, terminal_id, **kwargs):
        output = (await self.outputs[terminal_id]).decode()
        return schema.TerminalOutputResponse(output=output, truncated=False)

    async def kill_terminal(self, session_id, terminal_id, **kwargs):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.procs[terminal_id].pid, signal.SIGKILL)  # the command's whole process group
        await self.procs[terminal_id].wait()
        await self.outputs[terminal_id]

    async def release_terminal(self, session_id, terminal_id, **kwargs):
        self.released.append(terminal_id)


def bash_turns() -> list[dict]:
    # Commands a rule or bypassPermissions allowed (an expansion keeps them off the read-only fast path):
    # a read-only `ls` runs confined, so locally (see test_commands_run_in_the_client_terminal).
    return [
        call("b1", "Bash", command="mkdir -p sub && cd sub && echo hello from $CLAUDECODE; exit 3"),
        call("b2", "Bash", command="echo $PWD"),
        call("b3", "Bash", command="ls"),
        {"content": [{"type": "text", "text": "Done."}]},
    ]


async def test_commands_run_in_the_client_terminal(project, base_env):
    client = TerminalClient()
    with ScriptedServer(bash_turns()) as srv:
        await run_prompt(client, srv, base_env, project, TERMINAL)
        results = tool_results(srv)
    # b3 (`ls`) was allowed as read-only: it runs confined by the kernel, hence locally, not in the editor
    assert [t["id"] for t in client.created] == ["term-1", "term-2"] == client.released
    assert client.created[0]["cwd"] == str(project)
    assert client.created[1]["cwd"] == str((project / "sub").resolve())  # carried as a local run carries it
    assert client.created[0]["env"]["PAGER"] == "cat"
    assert "hello from 1" in results["b1"] and "Exit code 3" in results["b1"]
    assert str(project / "sub") in json.loads(results["b2"])
    shown = [
        c.terminal_id
        for u in client.of("tool_call_update")
        if u.tool_call_id == "b1"
        for c in u.content or []
        if getattr(c, "type", "") == "terminal"
    ]
    assert shown and set(shown) == {"term-1"}  # while running, and kept in the final update


async def test_sandboxed_commands_stay_local(project, base_env):
    settings = Path(base_env["CLAUDE_CONFIG_DIR"]) / "settings.json"  # user settings: trusted
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"sandbox": {"enabled": True}}))
    client = TerminalClient()
    with ScriptedServer(bash_turns()) as srv:
        await run_prompt(client, srv, base_env, project, TERMINAL)
        results = tool_results(srv)
    assert client.created == []
    assert "hello from 1" in results["b1"]


async def test_without_the_offer_commands_run_locally(project, base_env):
    client = TerminalClient()
    with ScriptedServer(bash_turns()) as srv:
        await run_prompt(client, srv, base_env, project, None)
        results = tool_results(srv)
    assert client.created == []
    assert "hello from 1" in results["b1"] and str(Path(project, "sub")) in results["b2"]


async def test_cancel_kills_the_client_terminal(project, base_env):
    import acp
    from tests.protocols.test_acp import _env, stop
    from tests.protocols.test_acp_fs import start

    class KillRecording(TerminalClient):
        killed: list[str] = []

        async def kill_terminal(self, session_id, terminal_id, **kwargs):
            self.killed.append(terminal_id)
            await super().kill_terminal(session_id, terminal_id)

    client = KillRecording()
    with ScriptedServer([call("b1", "Bash", command="sleep 30 $CLAUDECODE")]) as srv:  # not read-only
        proc, conn = await start(client, _env(base_env, srv), project, TERMINAL)
        try:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            prompt = asyncio.create_task(
                conn.prompt(session_id=session.session_id, prompt=[acp.text_block("wait")])
            )
            deadline = asyncio.get_running_loop().time() + 20
            while not client.created:
                assert asyncio.get_running_loop().time() < deadline
                await asyncio.sleep(0.05)
            await conn.cancel(session_id=session.session_id)
            response = await asyncio.wait_for(prompt, 5)
            for _ in range(100):
                if client.released and client.killed:
                    break
                await asyncio.sleep(0.05)
        finally:
            await stop(proc, conn)
    assert response.stop_reason == "cancelled"
    assert client.killed == ["term-1"] == client.released
    assert client.procs["term-1"].returncode is not None


async def test_a_client_taking_terminal_output_in_meta_sees_local_runs_as_terminals(project, base_env):
    capabilities = schema.ClientCapabilities.model_validate(
        {"terminal": True, "_meta": {"terminal_output": True}}
    )
    client = TerminalClient()
    with ScriptedServer(bash_turns()) as srv:
        await run_prompt(client, srv, base_env, project, capabilities)
        results = tool_results(srv)
    assert client.created == []  # run locally (sandbox kept), shown through `_meta`
    assert "hello from 1" in results["b1"]
    start = next(u for u in client.of("tool_call") if u.tool_call_id == "b1")
    assert start.field_meta == {"terminal_info": {"terminal_id": "b1"}}
    assert [c.terminal_id for c in start.content] == ["b1"]
    metas = [u.field_meta for u in client.of("tool_call_update") if u.tool_call_id == "b1" and u.field_meta]
    assert metas[0]["terminal_output"]["terminal_id"] == "b1"
    assert "hello from 1" in metas[0]["terminal_output"]["data"]
    assert metas[-1]["terminal_exit"] == {"terminal_id": "b1", "exit_code": 3, "signal": None}
    final = [u for u in client.of("tool_call_update") if u.tool_call_id == "b1" and u.status == "failed"]
    assert [c.terminal_id for c in final[0].content] == ["b1"]
