"""Property-style, issue 38: lines generated from the bash grammar's pieces (tests/permissions/
test_bash_grammar.py), joined with commands a rule allows, judged by the real gate as a Bash call, as a
Monitor call and as a skill's `!` line, in every mode, in repositories with submodules (plain and naming a
program) and embedded bare repositories; and PATHs generated with project folders in them. Properties:

- the three doors give the same verdict and the same confinement (one judgement for every shell line);
- no line a fast path took part in allowing is unconfined (mixed lines, auto mode's edits);
- a line with `git` is never allowed by a fast path where a nested repository names a program;
- a fast-path call's PATH keeps no folder inside the working directories, nor a relative one.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from tests.permissions.helpers import TOOLS, make_world
from tests.permissions.test_bash_grammar import JOINERS, SAFE, _compose, _flatten
from tests.permissions.test_one_door import _git

from yoke.permissions.approval import FAST_PATHS, NO_PROGRAM
from yoke.permissions.bash_analysis import analyze
from yoke.skills.runtime import SkillRuntime
from yoke.tools.base import Tool

SEED = 38
COUNT = 120
MODES = ["default", "plan", "dontAsk", "acceptEdits", "auto", "bypassPermissions"]
RULED = ["npm test", "make lint", "sort", "touch src/ruled.py"]  # commands the user's rules allow
ALLOW = [f"Bash({c})" for c in RULED]


class _Monitor(BaseModel):
    command: str
    description: str = ""


MONITOR = type("MonitorStub", (Tool,), {"name": "Monitor", "description": "m", "input_model": _Monitor})()


def generate(rng: random.Random) -> str:
    pieces = []
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if roll < 0.4:
            pieces.append(_compose(rng, rng.choice(SAFE)))
        elif roll < 0.7:
            pieces.append(rng.choice(RULED))
        else:
            pieces.append(_compose(rng, rng.choice(_flatten())[1]))
    line = pieces[0]
    for piece in pieces[1:]:
        line += rng.choice(JOINERS) + piece
    return line


@pytest.fixture(scope="module", params=["submodule", "evil-submodule", "bare"])
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp(request.param)
    w = make_world(root)
    (w.project / "data.json").write_text("{}\n")
    for name in (".git/config", ".git/hooks"):  # make_world's stand-in .git: make it a real repository
        target = w.project / name
        if target.is_dir():
            target.rmdir()
        else:
            target.unlink()
    (w.project / ".git").rmdir()
    _git(w.project, "init", "-q")
    _git(w.project, "add", "README.md")
    _git(w.project, "commit", "-qm", "x")
    if request.param == "bare":
        _git(w.project / "src", "init", "-q", "--bare", "vendored.git")
        (w.project / "src" / "vendored.git" / "config").write_text("[core]\n\tfsmonitor = ./evil\n")
    else:
        upstream = root / "upstream"
        upstream.mkdir()
        _git(upstream, "init", "-q")
        _git(upstream, "commit", "-q", "--allow-empty", "-m", "x")
        _git(w.project, "submodule", "add", "-q", str(upstream), "mod")
        if request.param == "evil-submodule":
            _git(w.project / "mod", "config", "core.pager", "./evil")
    w.kind = request.param  # type: ignore[attr-defined]
    return w


async def _three_doors(world: Any, mode: str, line: str) -> list[Any]:
    gate = world.gate(mode=mode, allow=ALLOW, interactive=False)
    bash = await gate.decide(TOOLS["Bash"], {"command": line}, world.ctx())
    monitor = await gate.decide(MONITOR, {"command": line, "description": "d"}, world.ctx())
    runtime = SkillRuntime(
        None,  # type: ignore[arg-type]
        world.project,
        "s",
        {},
        registry={"Bash": TOOLS["Bash"]},
        gate=gate,
        context=world.ctx,
    )
    verdict = await runtime.permit_for(None)("Bash", {"command": line})
    return [bash, monitor, verdict]


@pytest.mark.parametrize("mode", MODES)
async def test_every_door_judges_a_line_alike_and_no_fast_path_line_runs_unconfined(
    world: Any, mode: str
) -> None:
    rng = random.Random(f"{SEED}-{mode}-{world.kind}")
    fast_allowed = 0
    for _ in range(COUNT):
        line = generate(rng)
        bash, monitor, skill = await _three_doors(world, mode, line)
        assert (bash.behavior, bash.source) == (monitor.behavior, monitor.source), line
        assert bash.confinement == monitor.confinement, line
        assert skill.allowed == (bash.behavior == "allow") and skill.confinement == bash.confinement, line
        sources = set((bash.source or "").split(","))
        if bash.behavior == "allow" and sources & FAST_PATHS:
            fast_allowed += 1
            if bash.confinement is None:  # only beside rules, and only builtins that run no program
                heads = [inv.words[0].text for inv in analyze(line).invocations if inv.words]
                ruled = {r.split()[0] for r in RULED}
                assert all(h in NO_PROGRAM or h in ruled for h in heads), (
                    f"{line!r} unconfined ({bash.source})"
                )
            if world.kind != "submodule" and "git" in line.split():
                pytest.fail(f"{line!r} ran git on the fast path beside a repository naming a program")
    if mode in ("default", "plan", "acceptEdits", "dontAsk") and world.kind == "submodule":
        assert fast_allowed > 0  # not vacuous: the fast paths still allow lines here


@pytest.mark.parametrize("seed", range(20))
def test_a_fast_path_calls_path_keeps_no_working_directory(tmp_path: Path, seed: int) -> None:
    from types import SimpleNamespace

    from yoke.sandbox.confine import READ_ONLY, Confinement
    from yoke.tools.shell.script import fast_path_env

    rng = random.Random(seed)
    project, extra, outside = tmp_path / "p", tmp_path / "extra", tmp_path / "o"
    for folder in (project / "node_modules" / ".bin", project / "bin", extra / "bin", outside / "bin"):
        folder.mkdir(parents=True)
    (tmp_path / "link").symlink_to(project / "bin")
    choices = [
        str(project / "node_modules" / ".bin"),
        str(project / "bin"),
        str(project),
        str(extra / "bin"),
        str(tmp_path / "link"),  # a link into the project
        f"{project}/../p/bin",
        "bin",
        ".",
        "",
        str(outside / "bin"),
        "/usr/bin",
        "/bin",
    ]
    entries = [rng.choice(choices) for _ in range(rng.randint(1, 8))]
    ctx = SimpleNamespace(confinement=Confinement(READ_ONLY), all_dirs=lambda: [project, extra])
    env = {"PATH": os.pathsep.join(entries)}
    kept = fast_path_env(ctx, env)  # type: ignore[arg-type]
    assert kept is not None and env["PATH"] == kept
    for entry in kept.split(os.pathsep) if kept else []:
        assert os.path.isabs(entry)
        real = os.path.realpath(entry)
        assert not real.startswith(str(project)) and not real.startswith(str(extra)), entry
    trusted = [e for e in entries if e in (str(outside / "bin"), "/usr/bin", "/bin")]
    assert (kept.split(os.pathsep) if kept else []) == list(dict.fromkeys(trusted))
    ctx.confinement = None
    assert fast_path_env(ctx, {"PATH": os.pathsep.join(entries)}) is None  # a rule's call: PATH as it is
