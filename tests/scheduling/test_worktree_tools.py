"""EnterWorktree / ExitWorktree in a session against the scripted server, with real git: the shell moves into
a new worktree; `remove` refuses while a file there is uncommitted and lists it; with `discard_changes` the
worktree and its branch are gone and the shell is back. The schemas are 2.1.332's."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

from tests.agents.test_subagents import call, text
from tests.conftest import anthropic_env

from yoke import events as ev
from yoke.events import port
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer

FIXTURE = json.loads((Path(__file__).parent / "cc_2_1_332_tools.json").read_text())


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


async def test_exit_worktree_remove_refuses_with_changes_and_discards_when_told(project, base_env):
    _git(project, "init", "-q")
    (project / "a.txt").write_text("a\n")
    _git(project, "add", "-A")
    _git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    turns = [
        {"content": [call("e1", "EnterWorktree", name="fix")]},
        {"content": [call("b1", "Bash", command="echo new > new.txt && pwd")]},
        {"content": [call("x1", "ExitWorktree", action="remove")]},
        {"content": [call("x2", "ExitWorktree", action="remove", discard_changes=True)]},
        {"content": [call("b2", "Bash", command="pwd")]},
        text("done"),
    ]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv), ENABLE_TOOL_SEARCH="false")
        session = await open_session(
            SessionOptions(cwd=project, env=env, permission_mode="bypassPermissions")
        )
        try:
            stream = session.events()
            await session.submit(port.Prompt("work in a worktree"))
            results = {}
            async with asyncio.timeout(60):
                async for event in stream:
                    if isinstance(event, ev.ToolResultEvent):
                        results[event.tool_use_id] = event
                    if isinstance(event, ev.Result):
                        break
            offered = {t["name"]: t["input_schema"] for t in srv.requests[0].body["tools"]}
        finally:
            await session.close()
    worktrees = list((project / ".claude" / "worktrees").iterdir())
    assert worktrees == []  # removed
    assert "/.claude/worktrees/fix-" in _text(results["b1"])
    refused = results["x1"]
    assert refused.is_error and "new.txt" in _text(refused) and "discard_changes" in _text(refused)
    assert not results["x2"].is_error
    assert _text(results["b2"]).strip().splitlines()[0] == str(project.resolve())
    assert "worktree/fix-" not in _git(project, "branch", "--list")
    for name in ("EnterWorktree", "ExitWorktree"):
        theirs = FIXTURE["tools"][name]
        assert set(offered[name]["properties"]) == set(theirs["properties"])
        assert offered[name].get("required", []) == theirs.get("required", [])
    assert offered["ExitWorktree"]["properties"]["action"]["enum"] == ["keep", "remove"]


def _text(result) -> str:
    content = result.block.get("content", "")
    return content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content)
