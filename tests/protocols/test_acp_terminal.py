"""The ACP client's terminals, over a real `yoke acp` subprocess: a foreground Bash command the sandbox does
not cover runs in a client terminal embedded in its tool call (working directory carried as locally); with
the sandbox on, or without the offer, commands run locally."""

from __future__ import annotations

import asyncio
import json
import os
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
        self.procs[terminal_id].kill()

    async def release_terminal(self, session_id, terminal_id, **kwargs):
        self.released.append(terminal_id)


def bash_turns() -> list[dict]:
    return [
        call("b1", "Bash", command="mkdir -p sub && cd sub && echo hello from $CLAUDECODE; exit 3"),
        call("b2", "Bash", command="pwd"),
        {"content": [{"type": "text", "text": "Done."}]},
    ]


async def test_commands_run_in_the_client_terminal(project, base_env):
    client = TerminalClient()
    with ScriptedServer(bash_turns()) as srv:
        await run_prompt(client, srv, base_env, project, TERMINAL)
        results = tool_results(srv)
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
