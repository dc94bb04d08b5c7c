"""A skill's `!`command`` blocks are asked about as tool calls are: PreToolUse listeners (the hooks seam)
see them and can block or rewrite them, before the permission gate."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import anthropic_env

from yoke import events as ev
from yoke.loop.lifecycle import LifecycleOutcome
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer


class Guard:
    """Blocks any command with `rm`; rewrites `echo one` into `echo two`."""

    def __init__(self) -> None:
        self.seen: list[dict] = []

    def wants(self, event: str) -> bool:
        return event == "PreToolUse"

    async def announce(self, event: str, payload: dict) -> LifecycleOutcome:
        self.seen.append(payload)
        command = payload["tool_input"].get("command", "")
        if "rm " in command:
            return LifecycleOutcome(decision="deny", reason="no deleting from skills")
        if command == "echo one":
            return LifecycleOutcome(updated_input={"command": "echo two"})
        return LifecycleOutcome()


async def run(project: Path, home: Path, srv: ScriptedServer, guard: Guard, prompt: str) -> list:
    env = {
        "HOME": str(home),
        "YOKE_HOME": str(home / ".yoke"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "PATH": "/usr/bin:/bin",
        **anthropic_env(srv),
    }
    session = await open_session(SessionOptions(cwd=project, env=env, listeners=[guard], persist=False))
    try:
        return [e async for e in session.query(prompt)]
    finally:
        await session.close()


async def test_pre_tool_use_sees_blocks_and_rewrites_them(project, home):
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "wipe.md").write_text("Wiped: !`rm -f keep.txt`\n")
    (commands / "say.md").write_text("Said: !`echo one`\n")
    (project / "keep.txt").write_text("data")
    guard = Guard()
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        wiped = await run(project, home, srv, guard, "/wipe")
        said = await run(project, home, srv, guard, "/say")
        bodies = [r.body for r in srv.requests]
    result = next(e for e in wiped if isinstance(e, ev.Result))
    assert result.is_error and "no deleting from skills" in result.text
    assert (project / "keep.txt").read_text() == "data"
    assert guard.seen[0]["tool_name"] == "Bash" and guard.seen[0]["tool_input"] == {
        "command": "rm -f keep.txt"
    }
    assert guard.seen[0]["hook_event_name"] == "PreToolUse"
    assert len(bodies) == 1 and bodies[0]["messages"][0]["content"][1]["text"].startswith("Said: two")
    assert next(e for e in said if isinstance(e, ev.Result)).is_error is False
