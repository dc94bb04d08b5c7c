"""Issue 17's new adversarial corpus, judged by the real gate against real files (see corpus17.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from permissions.corpus import Case
from permissions.corpus17 import CORPUS17
from permissions.helpers import TOOLS, make_world


def _fill(text: str, fill: dict[str, str]) -> str:
    for key, value in fill.items():
        text = text.replace("{" + key + "}", value)
    return text


def test_corpus_ids_unique() -> None:
    assert len({c.id for c in CORPUS17}) == len(CORPUS17) >= 120


@pytest.mark.parametrize("case", CORPUS17, ids=[c.id for c in CORPUS17])
async def test_case(case: Case, tmp_path: Path) -> None:
    world = make_world(tmp_path)
    fill = {"P": str(world.project), "H": str(world.home), "O": str(world.other)}
    if isinstance(case.input, str):
        tool_input = {"command": _fill(case.input, fill)}
    else:
        tool_input = {k: _fill(v, fill) if isinstance(v, str) else v for k, v in case.input.items()}
    gate = world.gate(allow=list(case.allow), deny=list(case.deny), ask=list(case.ask), mode=case.mode)
    decision = await gate.decide(TOOLS[case.tool], tool_input, world.ctx())
    if case.expect != "allow":
        assert decision.behavior != "allow", f"WRONG ALLOW ({decision.source})"
    assert decision.behavior == case.expect, f"{decision.behavior} via {decision.source}: {decision.reason}"
