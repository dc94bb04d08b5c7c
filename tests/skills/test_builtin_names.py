"""A project skill named like a built-in command or a bundled skill: in 2.1.332 the project's wins, both in
what `/name` runs and in what is listed (each name below checked on the bundled CLI against the scripted
server: its body was sent, `system/init` listed the name once, the skill listing carried its description)."""

from __future__ import annotations

import json
import sys

import pytest

from yoke.skills.expand import BUILTINS
from yoke.testing.side_by_side import run_scenario

NAMES = sorted({*BUILTINS, "verify", "simplify", "claude-api"})


def _skill(name: str) -> dict[str, str]:
    text = f"---\nname: {name}\ndescription: PROJ-{name} the project's own\n---\nPROJBODY-{name} $ARGUMENTS\n"
    return {f".claude/skills/{name}/SKILL.md": text}


@pytest.mark.parametrize("name", NAMES)
def test_a_project_skill_of_a_built_in_name_runs_and_is_listed_once(name):
    scenario = {
        "argv": ["-p", f"/{name} now", "--output-format", "stream-json", "--verbose"],
        "files": _skill(name),
        "turns": [{"content": [{"type": "text", "text": "done"}]}],
    }
    run = run_scenario(f"{sys.executable} -m yoke", scenario)
    assert run["code"] == 0, run["stderr"]
    init = next(json.loads(line) for line in run["stdout"].splitlines() if '"subtype": "init"' in line)
    assert init["slash_commands"].count(name) == 1 and init["skills"].count(name) == 1
    assert len(run["requests"]) == 1
    sent = json.dumps(run["requests"][0])
    assert f"PROJBODY-{name} now" in sent and f"PROJ-{name} the project" in sent


def test_without_a_project_skill_the_built_in_runs():
    scenario = {
        "argv": ["-p", "/cost", "--output-format", "stream-json", "--verbose"],
        "turns": [{"content": [{"type": "text", "text": "never"}]}],
    }
    run = run_scenario(f"{sys.executable} -m yoke", scenario)
    assert run["code"] == 0 and not run["requests"] and "Total cost" in run["stdout"]
