"""A file tool opens exactly the file the gate judged: a symlink swapped in between approval and open (say by a
background command) is refused, for reads and for writes. And the gate judges the input the tool runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from permissions.helpers import make_world
from yoke.tools.base import ToolError
from yoke.tools.builtin.read import ReadInput, ReadTool
from yoke.tools.builtin.write import WriteInput, WriteTool


async def test_a_symlink_swapped_in_after_approval_is_refused(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    gate, ctx = world.gate(mode="acceptEdits"), world.ctx()
    target = world.project / "notes.txt"
    target.write_text("notes\n")
    decision = await gate.decide(ReadTool(), {"file_path": str(target)}, ctx)
    assert decision.behavior == "allow"
    target.unlink()
    os.symlink(world.home / ".ssh" / "id_rsa", target)  # the swap
    with pytest.raises(ToolError, match="changed after it was approved"):
        await ReadTool().run(ReadInput(file_path=str(target)), ctx)

    out = world.project / "out.txt"
    decision = await gate.decide(WriteTool(), {"file_path": str(out), "content": "x"}, ctx)
    assert decision.behavior == "allow"
    os.symlink(world.home / ".bashrc", out)
    with pytest.raises(ToolError, match="changed after it was approved"):
        await WriteTool().run(WriteInput(file_path=str(out), content="pwned\n"), ctx)
    assert (world.home / ".bashrc").read_text() == "# rc\n"


async def test_unchanged_paths_still_work_and_whitespace_is_judged_as_run(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    gate, ctx = world.gate(mode="acceptEdits"), world.ctx()
    decision = await gate.decide(
        WriteTool(), {"file_path": f" {world.project}/new.txt ", "content": "x"}, ctx
    )
    assert decision.behavior == "allow"
    assert decision.updated_input == {"file_path": f"{world.project}/new.txt", "content": "x"}
    await WriteTool().run(WriteInput(**decision.updated_input), ctx)
    assert (world.project / "new.txt").read_text() == "x"
    decision = await gate.decide(WriteTool(), {"file_path": f"{world.project}/.envrc\n", "content": "x"}, ctx)
    assert decision.behavior == "ask" and decision.source == "protected-path"
