"""Yoke sessions driven in-process by the scripted server, for tests of what a user meets: each command one
Bash call, the gate's source and the result text returned. `no_sandbox` hides bubblewrap from PATH."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from tests.conftest import anthropic_env

from yoke import events as ev
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer

BACKGROUND_CAP_S = 30.0  # the longest the last answer waits for background calls to end

BASICS = ("bash", "sh", "cat", "ls", "git", "wc", "od", "tail", "strings", "jq", "cp", "mkdir", "touch", "rm",
          "echo", "env", "head", "grep", "xargs", "rg", "find", "sort", "date", "id", "python3", "rev")  # fmt: skip


def hide_bwrap(monkeypatch: pytest.MonkeyPatch, folder: Path) -> str:
    """A PATH with the basics but no bubblewrap (set for this process); returned for subprocesses."""
    folder.mkdir(exist_ok=True)
    for tool in BASICS:
        found = shutil.which(tool)
        if found and not (folder / tool).exists():
            (folder / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(folder))
    return str(folder)


def session_env(home: Path, srv: ScriptedServer) -> dict[str, str]:
    return {
        "HOME": str(home),
        "YOKE_HOME": str(home / ".yoke"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "PATH": os.environ["PATH"],
        **anthropic_env(srv),
    }


async def run_calls(
    project: Path,
    home: Path,
    calls: list[tuple[str, dict[str, Any]]],
    wait_s: float = 0.0,
    extra_env: dict[str, str] | None = None,
    classifier: bool = False,
    **options: Any,
) -> list:
    """Each (tool, input) as one call of a headless session; what the gate and the tool said of each. With
    `wait_s`, the last answer comes once the background calls (Monitor) have ended, and at least `wait_s`
    late, so what they started has acted (bounded by progress: at most BACKGROUND_CAP_S, on a loaded
    machine); `extra_env` joins the session's environment."""
    blocks = [{"type": "tool_use", "id": f"t{i}", "name": name, "input": data}
              for i, (name, data) in enumerate(calls)]  # fmt: skip
    opened: list[Any] = []

    def done(body: dict[str, Any]) -> dict[str, Any]:  # on the server's thread, while the session waits
        if wait_s:
            time.sleep(wait_s)
            deadline = time.monotonic() + BACKGROUND_CAP_S
            while opened and opened[0].background_tasks() and time.monotonic() < deadline:
                time.sleep(0.05)
        return {"content": [{"type": "text", "text": "done"}]}

    # with `classifier`, the scripted server also answers auto mode's classifier (ALLOW) after each call
    verdict = [{"content": [{"type": "text", "text": "ALLOW"}]}] if classifier else []
    turns = [t for block in blocks for t in [{"content": [block]}, *verdict]] + [done]
    with ScriptedServer(turns) as srv:
        session = await open_session(
            SessionOptions(
                cwd=project, env={**session_env(home, srv), **(extra_env or {})}, persist=False, **options
            )
        )
        opened.append(session)
        try:
            events = [e async for e in session.query("go")]
        finally:
            await session.close()
    decided = [e for e in events if isinstance(e, ev.PermissionDecided)]
    texts = [json.dumps(e.block.get("content") if isinstance(e.block, dict) else str(e.block))
             for e in events if isinstance(e, ev.ToolResultEvent)]  # fmt: skip
    return [Call(d.behavior, d.source, t) for d, t in zip(decided, texts, strict=True)]


class Call(NamedTuple):
    behavior: str  # allow or deny (headless: an ask is a denial)
    source: str
    text: str


async def run_commands(
    project: Path, home: Path, commands: list[str], mode: str = "default", **options: Any
) -> list:
    """Each command as one Bash call of a headless session."""
    calls: list[tuple[str, dict[str, Any]]] = [("Bash", {"command": c}) for c in commands]
    return await run_calls(project, home, calls, permission_mode=mode, **options)


def make_project(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE-KEY-BYTES\n")
    (project / "sub").mkdir(parents=True)
    (project / "data.txt").write_text("keep me\n")
    (project / ".env").write_text("TOKEN=top-secret-value\n")
    (project / "sub" / "server.pem").write_text("PEM-SECRET\n")
    return home, project
