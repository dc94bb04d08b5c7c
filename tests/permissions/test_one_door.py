"""Issue 38's doors beside the Bash tool, as a user meets them: a headless session (an ask is a denial) in
each permission mode, with bubblewrap and without it (the `kernel` fixture), in an untrusted clone (the
project has no trust entry: its `.claude/commands` and skills are the repository's, not the user's). Each
test is one class of the issue (numbered as in the brief): a process the model or a project can start that
used to run with no judgement or no confinement. Auto mode is covered at the gate (it needs a classifier
model in a session); the confinement tests need bubblewrap and skip, with that reason, without it."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.permissions.sessions import make_project, run_calls, session_env

from yoke import events as ev
from yoke.permissions import bash_analysis, bash_readonly
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer

MODES = ["default", "plan", "dontAsk", "acceptEdits", "bypassPermissions"]


@pytest.fixture
def mislabel(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(bash_readonly, "MISLABELLED_READ_ONLY", frozenset({"touch", "rm"}))
    bash_analysis.analyze.cache_clear()
    yield
    bash_analysis.analyze.cache_clear()


def monitor(command: str) -> tuple[str, dict[str, Any]]:
    return ("Monitor", {"command": command, "description": "watch"})


# ---- 3. Monitor's command is a Bash call ----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_monitor_cannot_remove_the_working_directory_in_any_mode(
    tmp_path: Path, kernel: str, mode: str
) -> None:
    home, project = make_project(tmp_path)
    results = await run_calls(
        project, home, [monitor(f"rm -rf {project}"), monitor("rm -rf ~")], permission_mode=mode
    )
    assert [r.behavior for r in results] == ["deny", "deny"]
    assert (project / "data.txt").exists() and (home / ".ssh" / "id_rsa").exists()


@pytest.mark.parametrize("mode", MODES)
async def test_bash_deny_rules_hold_for_monitor_in_every_mode(tmp_path: Path, kernel: str, mode: str) -> None:
    home, project = make_project(tmp_path)
    denied = await run_calls(
        project, home, [monitor("rm data.txt")], permission_mode=mode, disallowed_tools=["Bash(rm:*)"]
    )
    assert denied[0].behavior == "deny" and denied[0].source == "deny:Bash(rm:*)"
    assert (project / "data.txt").exists()


@pytest.mark.parametrize("mode", ["default", "dontAsk", "acceptEdits"])
async def test_bash_allow_rules_approve_monitor_and_monitor_rules_do_not_approve_bash(
    tmp_path: Path, kernel: str, mode: str
) -> None:
    home, project = make_project(tmp_path)
    results = await run_calls(
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
    results = await run_calls(
        project,
        home,
        [monitor("touch created.txt"), monitor("rm data.txt")],
        wait_s=1.0,
        permission_mode=mode,
    )
    assert [r.source for r in results] == ["read-only", "read-only"]  # the analyser was fooled
    assert not (project / "created.txt").exists()
    assert (project / "data.txt").read_text() == "keep me\n"


def test_disallowing_bash_hides_monitor_as_2_1_332_does(tmp_path: Path) -> None:
    """2.1.332 with `--disallowedTools Bash` answers a Monitor call "No such tool available: Monitor"."""
    from tests.permissions.helpers import make_world

    gate = make_world(tmp_path).gate(deny=["Bash"])
    assert gate.hidden_tools(["Bash", "Monitor", "Read"]) == {"Bash", "Monitor"}
    assert make_world(tmp_path / "b").gate(deny=["Monitor"]).hidden_tools(["Bash", "Monitor"]) == {"Monitor"}


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


# ---- 5. auto mode's edits and mixed lines are never unconfined -------------------------------------------


@pytest.fixture
def world(tmp_path: Path):
    from tests.permissions.helpers import make_world

    return make_world(tmp_path)


async def decide(world: Any, command: str, **gate: Any) -> Any:
    from tests.permissions.helpers import TOOLS

    return await world.gate(**gate).decide(TOOLS["Bash"], {"command": command}, world.ctx())


@pytest.mark.parametrize("mode", ["acceptEdits", "auto"])
async def test_edits_the_mode_allowed_run_confined_to_the_working_directories(world: Any, mode: str) -> None:
    from yoke.sandbox.confine import WORKDIRS

    decision = await decide(world, "mkdir src/y && touch src/y/new.py", mode=mode)
    assert decision.behavior == "allow" and decision.source == f"mode:{mode}"
    assert decision.confinement is not None and decision.confinement.kind == WORKDIRS


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "auto", "dontAsk"])
async def test_a_mixed_line_runs_under_the_tightest_confinement_its_rule_parts_allow(
    world: Any, mode: str
) -> None:
    from yoke.sandbox.confine import READ_ONLY, WORKDIRS

    # a rule-approved reader beside a fast-path reader: read-only
    reader = await decide(world, "cat README.md | sort", mode=mode, allow=["Bash(sort)"])
    assert reader.behavior == "allow" and reader.confinement is not None
    assert reader.confinement.kind == READ_ONLY
    # a rule-approved edit inside the project beside a fast-path command: the working directories
    editor = await decide(world, "touch src/a.py && date", mode=mode, allow=["Bash(touch src/a.py)"])
    assert editor.behavior == "allow" and editor.confinement is not None
    assert editor.confinement.kind == WORKDIRS
    # a rule-approved program whose needs the analyser cannot show (the network, say) beside a program the
    # fast path judged: confining it would break it, so the line asks
    unknown = await decide(world, "npm test; sleep 1", mode=mode, allow=["Bash(npm test)"])
    assert unknown.behavior in ("ask", "deny")
    # beside builtins that run no program it runs as the rule says
    built = await decide(world, "cd src && npm test; echo done", mode=mode, allow=["Bash(npm test)"])
    assert built.behavior == "allow" and built.confinement is None
    # a line that rules allowed in every part runs as the rules say
    ruled = await decide(
        world, "npm test && npm run lint", mode=mode, allow=["Bash(npm test)", "Bash(npm run lint)"]
    )
    assert ruled.behavior == "allow" and ruled.confinement is None


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
async def test_a_mislabelled_part_of_a_mixed_line_is_confined(tmp_path: Path, mislabel: None) -> None:
    """`sort` is approved by a rule, the fooled analyser approves `rm` as read-only: the line runs confined
    read-only, so `rm` cannot delete."""
    home, project = make_project(tmp_path)
    results = await run_calls(
        project, home, [("Bash", {"command": "rm data.txt; echo x | sort"})], allowed_tools=["Bash(sort)"]
    )
    assert results[0].behavior == "allow" and "read-only" in results[0].source
    assert (project / "data.txt").read_text() == "keep me\n"


# ---- 6. Yoke's own git never runs a submodule's programs; a plain submodule is no reason to ask ------------


def _git(repo: Path, *args: str) -> None:
    import subprocess

    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        env={**os.environ, "PATH": "/usr/local/bin:/usr/bin:/bin"},  # `git submodule` needs the basics
    )


def repo_with_submodule(tmp_path: Path, project: Path, evil: bool) -> Path:
    """`project` as a repository with a submodule `mod`; with `evil`, the submodule's own configuration
    names a clean filter (a program writing `marker`) and a stat-dirty file makes git want to run it."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    _git(upstream, "init", "-q")
    (upstream / "f.txt").write_text("data\n")
    (upstream / ".gitattributes").write_text("* filter=evil\n")
    _git(upstream, "add", ".")
    _git(upstream, "commit", "-qm", "x")
    _git(project, "init", "-q")
    _git(project, "add", "data.txt")
    _git(project, "commit", "-qm", "x")
    _git(project, "submodule", "add", "-q", str(upstream), "mod")
    _git(project, "commit", "-qm", "sub")
    marker = tmp_path / "RAN"
    if evil:
        script = tmp_path / "evil.sh"
        script.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
        script.chmod(0o755)
        _git(project / "mod", "config", "filter.evil.clean", str(script))
        (project / "mod" / "f.txt").write_text("dat2\n")  # same size: only the content tells
        os.utime(project / "mod" / "f.txt", (1_000_000_000, 1_000_000_000))
    return marker


async def test_yokes_own_git_runs_no_program_of_a_submodule(tmp_path: Path) -> None:
    from yoke.context.git import git_context
    from yoke.skills.daily_commands import branch_changes

    home, project = make_project(tmp_path)
    marker = repo_with_submodule(tmp_path, project, evil=True)
    (project / "data.txt").write_text("changed\n")
    context = await git_context(project)  # start-up's questions
    assert context is not None and "data.txt" in context.status
    assert "data.txt" in branch_changes(project, "/review")  # /review's and /security-review's diff
    assert not marker.exists()


@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk", "acceptEdits"])
async def test_a_plain_git_status_runs_in_a_repository_with_a_submodule(
    tmp_path: Path, kernel: str, mode: str
) -> None:
    from tests.permissions.sessions import run_commands

    home, project = make_project(tmp_path)
    repo_with_submodule(tmp_path, project, evil=False)
    (project / "data.txt").write_text("changed\n")
    results = await run_commands(project, home, ["git status --short"], mode)
    assert results[0].behavior == "allow" and results[0].source == "read-only"
    assert "data.txt" in results[0].text


@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk", "acceptEdits"])
async def test_a_submodule_naming_a_program_still_stops_the_fast_path(
    tmp_path: Path, kernel: str, mode: str
) -> None:
    from tests.permissions.sessions import run_commands

    home, project = make_project(tmp_path)
    marker = repo_with_submodule(tmp_path, project, evil=True)
    results = await run_commands(project, home, ["git status --short"], mode)
    assert results[0].behavior == "deny"  # headless: the question is a no
    assert not marker.exists()


# ---- 7. the fast path judges the program, not the name ---------------------------------------------------


def plant_on_path(project: Path, name: str, marker: Path) -> str:
    """A project folder holding its own `name`, put first on PATH (a `node_modules/.bin`, a `bin/`)."""
    folder = project / "bin"
    folder.mkdir()
    (folder / name).write_text(f"#!/bin/sh\ntouch {marker}\necho PLANTED\n")
    (folder / name).chmod(0o755)
    return f"{folder}:{os.environ['PATH']}"


@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk", "acceptEdits"])
async def test_a_project_folder_on_path_does_not_choose_the_fast_paths_program(
    tmp_path: Path, kernel: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = make_project(tmp_path)
    marker = tmp_path / "RAN"
    monkeypatch.setenv("PATH", plant_on_path(project, "ls", marker))
    results = await run_calls(
        project, home, [("Bash", {"command": "ls"}), monitor("ls")], wait_s=1.0, permission_mode=mode
    )
    assert [r.source for r in results] == ["read-only", "read-only"]
    assert "data.txt" in results[0].text and "PLANTED" not in results[0].text
    assert not marker.exists()


async def test_a_project_folder_on_path_still_serves_what_a_rule_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the fast paths drop it: a command the user's rule allows runs with PATH as it is."""
    home, project = make_project(tmp_path)
    marker = tmp_path / "RAN"
    monkeypatch.setenv("PATH", plant_on_path(project, "ls", marker))
    results = await run_calls(project, home, [("Bash", {"command": "ls"})], allowed_tools=["Bash(ls)"])
    assert results[0].source == "allow:Bash(ls)" and "PLANTED" in results[0].text
