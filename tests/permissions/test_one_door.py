"""Issue 38's doors beside the Bash tool, as a user meets them: a headless session (an ask is a denial) in
each permission mode, with bubblewrap and without it. Each test is one class of the issue: a process the
model or a project can start that used to run with no judgement or no confinement."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.permissions.sessions import Call, hide_bwrap, make_project, session_env

from yoke import events as ev
from yoke.permissions import bash_analysis, bash_readonly
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer

MODES = ["default", "plan", "dontAsk", "acceptEdits", "bypassPermissions"]


@pytest.fixture(params=["bwrap", "no-sandbox"])
def kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    if request.param == "no-sandbox":
        return hide_bwrap(monkeypatch, tmp_path / "bin")
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    return os.environ["PATH"]


@pytest.fixture
def mislabel(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(bash_readonly, "MISLABELLED_READ_ONLY", frozenset({"touch", "rm"}))
    bash_analysis.analyze.cache_clear()
    yield
    bash_analysis.analyze.cache_clear()


async def run_calls_then_wait(
    project: Path, home: Path, calls: list[tuple[str, dict[str, Any]]], wait_s: float = 0.0, **options: Any
) -> list[Call]:
    """Like `sessions.run_calls`, but the last answer comes `wait_s` later, so what a background call
    (Monitor) started has time to act before the session closes."""
    blocks = [{"type": "tool_use", "id": f"t{i}", "name": n, "input": d} for i, (n, d) in enumerate(calls)]
    turns: list[dict[str, Any]] = [{"content": [b]} for b in blocks]
    turns.append({"content": [{"type": "text", "text": "done"}], "delay": wait_s})
    with ScriptedServer(turns) as srv:
        session = await open_session(
            SessionOptions(cwd=project, env=session_env(home, srv), persist=False, **options)
        )
        try:
            events = [e async for e in session.query("go")]
        finally:
            await session.close()
    decided = [e for e in events if isinstance(e, ev.PermissionDecided)]
    texts = [json.dumps(e.block.get("content") if isinstance(e.block, dict) else str(e.block))
             for e in events if isinstance(e, ev.ToolResultEvent)]  # fmt: skip
    return [Call(d.behavior, d.source, t) for d, t in zip(decided, texts, strict=True)]


def monitor(command: str) -> tuple[str, dict[str, Any]]:
    return ("Monitor", {"command": command, "description": "watch"})


# ---- 3. Monitor's command is a Bash call ----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_monitor_cannot_remove_the_working_directory_in_any_mode(
    tmp_path: Path, kernel: str, mode: str
) -> None:
    home, project = make_project(tmp_path)
    results = await run_calls_then_wait(
        project, home, [monitor(f"rm -rf {project}"), monitor("rm -rf ~")], permission_mode=mode
    )
    assert [r.behavior for r in results] == ["deny", "deny"]
    assert (project / "data.txt").exists() and (home / ".ssh" / "id_rsa").exists()


@pytest.mark.parametrize("mode", MODES)
async def test_bash_deny_rules_and_disallowed_bash_hold_for_monitor(
    tmp_path: Path, kernel: str, mode: str
) -> None:
    home, project = make_project(tmp_path)
    denied = await run_calls_then_wait(
        project, home, [monitor("rm data.txt")], permission_mode=mode, disallowed_tools=["Bash(rm:*)"]
    )
    assert denied[0].behavior == "deny" and denied[0].source == "deny:Bash(rm:*)"
    no_bash = await run_calls_then_wait(
        project, home, [monitor("ls")], permission_mode=mode, disallowed_tools=["Bash"]
    )
    assert no_bash[0].behavior == "deny" and no_bash[0].source == "deny:Bash"
    assert (project / "data.txt").exists()


@pytest.mark.parametrize("mode", ["default", "dontAsk", "acceptEdits"])
async def test_bash_allow_rules_approve_monitor_and_monitor_rules_do_not_approve_bash(
    tmp_path: Path, kernel: str, mode: str
) -> None:
    home, project = make_project(tmp_path)
    results = await run_calls_then_wait(
        project,
        home,
        [monitor("touch by-monitor.txt"), ("Bash", {"command": "touch by-bash.txt"})],
        wait_s=1.0,
        permission_mode=mode,
        allowed_tools=["Bash(touch by-monitor.txt)", "Monitor(touch by-bash.txt)"],
    )
    assert results[0].behavior == "allow" and (project / "by-monitor.txt").exists()
    if mode != "acceptEdits":  # acceptEdits allows the touch in the project anyway
        assert results[1].behavior == "deny" and not (project / "by-bash.txt").exists()


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk", "acceptEdits"])
async def test_a_monitor_command_the_fast_path_allowed_runs_confined(
    tmp_path: Path, mislabel: None, mode: str
) -> None:
    """The analyser is fooled into calling `touch`/`rm` read-only; the kernel still holds Monitor's command
    to what was judged, as it holds Bash's."""
    home, project = make_project(tmp_path)
    results = await run_calls_then_wait(
        project,
        home,
        [monitor("touch created.txt"), monitor("rm data.txt")],
        wait_s=1.0,
        permission_mode=mode,
    )
    assert [r.source for r in results] == ["read-only", "read-only"]  # the analyser was fooled
    assert not (project / "created.txt").exists()
    assert (project / "data.txt").read_text() == "keep me\n"


# ---- 4. skill and command `!` lines keep the gate's confinement --------------------------------------------


async def run_prompt(project: Path, home: Path, prompt: str, **options: Any) -> list:
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}] * 2) as srv:
        session = await open_session(
            SessionOptions(cwd=project, env=session_env(home, srv), persist=False, **options)
        )
        try:
            return [e async for e in session.query(prompt)]
        finally:
            await session.close()


def plant_lines(project: Path, lines: str) -> None:
    """The same `!` lines as a project command and as a project skill (an untrusted clone's files)."""
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "lines.md").write_text(f"Ran: {lines}\n")
    skill = project / ".claude" / "skills" / "liner"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: liner\ndescription: runs lines\n---\nRan: {lines}\n")


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk", "acceptEdits"])
@pytest.mark.parametrize("prompt", ["/lines", "/liner"])
async def test_a_skill_line_the_fast_path_allowed_runs_confined(
    tmp_path: Path, mislabel: None, mode: str, prompt: str
) -> None:
    """The analyser is fooled into calling `touch`/`rm` read-only; the command's and the skill's `!` lines
    are allowed by the fast path, and the kernel still holds them to reading."""
    home, project = make_project(tmp_path)
    plant_lines(project, "!`touch created.txt` and !`rm data.txt`")
    events = await run_prompt(project, home, prompt, permission_mode=mode)
    assert any(isinstance(e, ev.Result) for e in events)
    assert not (project / "created.txt").exists()
    assert (project / "data.txt").read_text() == "keep me\n"


@pytest.mark.parametrize("mode", MODES)
async def test_a_skill_line_is_judged_in_every_mode(tmp_path: Path, kernel: str, mode: str) -> None:
    """Outside the fast paths a `!` line is judged as the Bash call it is: a deny rule and the critical-rm
    guard hold in every mode, bypassPermissions included."""
    home, project = make_project(tmp_path)
    plant_lines(project, f"!`rm data.txt` !`rm -rf {project}`")
    for prompt in ("/lines", "/liner"):
        events = await run_prompt(
            project, home, prompt, permission_mode=mode, disallowed_tools=["Bash(rm:*)"]
        )
        result = next(e for e in events if isinstance(e, ev.Result))
        assert result.is_error or "not allowed" in json.dumps(str(events))
    assert (project / "data.txt").read_text() == "keep me\n"
