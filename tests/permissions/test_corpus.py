"""Every corpus case judged by the real gate against real files; a wrong allow is the worst failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from permissions.corpus import CORPUS, Case
from permissions.helpers import TOOLS, make_world


def test_corpus_is_large_and_ids_unique() -> None:
    assert len(CORPUS) >= 150
    assert len({c.id for c in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[c.id for c in CORPUS])
async def test_case(case: Case, tmp_path: Path) -> None:
    world = make_world(tmp_path)
    fill = {"P": str(world.project), "H": str(world.home), "O": str(world.other)}
    if isinstance(case.input, str):
        tool_input = {"command": case.input.format(**fill) if "{P}" in case.input else case.input}
    else:
        tool_input = {k: v.format(**fill) if isinstance(v, str) else v for k, v in case.input.items()}
    gate = world.gate(
        allow=list(case.allow),
        deny=list(case.deny),
        ask=list(case.ask),
        mode=case.mode,
        settings=case.settings or None,
        add_dirs=[world.other] if case.add_other else [],
    )
    decision = await gate.decide(TOOLS[case.tool], tool_input, world.ctx())
    if case.expect != "allow":
        assert decision.behavior != "allow", f"WRONG ALLOW ({decision.source})"
    assert decision.behavior == case.expect, f"{decision.behavior} via {decision.source}: {decision.reason}"
    assert decision.source.startswith(case.source), decision.source
