"""A file tool opens exactly the file the gate judged: a symlink swapped in between approval and open (say by a
background command) is refused, for reads and for writes. And the gate judges the input the tool runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from permissions.helpers import make_world
from yoke.paths import is_secret
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


async def test_a_link_put_in_place_of_the_working_directory_does_not_move_the_boundary(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    gate, ctx = world.gate(), world.ctx()
    inside = world.project / "notes.txt"
    inside.write_text("notes\n")
    assert (await gate.decide(ReadTool(), {"file_path": str(inside)}, ctx)).behavior == "allow"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "private.txt").write_text("private\n")
    world.project.rename(tmp_path / "moved")
    os.symlink(elsewhere, world.project)  # the working directory's path now leads somewhere else
    decision = await gate.decide(ReadTool(), {"file_path": str(world.project / "private.txt")}, ctx)
    assert decision.behavior != "allow"  # judged against where the working directory was


def test_secrets_under_home_are_found_by_either_path(tmp_path: Path) -> None:
    real_home = tmp_path / "real-home"
    real_home.mkdir()
    home = tmp_path / "home"
    os.symlink(real_home, home)
    # one list with the kernel's: ~/.kube whole, ~/.npmrc, ~/.config/gh, ~/.vault-token (issue 38)
    secrets = (".ssh", ".ssh/config", ".aws/credentials", ".kube", ".kube/cache/x", ".config/gcloud/creds.json",
               ".npmrc", ".config/gh/hosts.yml", ".vault-token", ".cargo/credentials.toml")  # fmt: skip
    for rel in secrets:
        assert is_secret(f"{home}/{rel}", home), rel
        assert is_secret(f"{real_home}/{rel}", home), rel
    for rel in (".sshx", ".ssh-notes/a", ".kubex", ".cargo/bin/x", "notes.txt", ".config/gcloudx"):
        assert not is_secret(f"{home}/{rel}", home), rel
        assert not is_secret(f"{real_home}/{rel}", home), rel


def test_secret_paths_under_home_agree_with_the_plain_rule_on_generated_paths(tmp_path: Path) -> None:
    """The precomputed prefixes say what "the path is a secret folder under home, or below one" says."""
    import itertools

    from yoke.paths import SECRET_HOME_PATHS

    real_home = tmp_path / "real"
    real_home.mkdir()
    home = tmp_path / "home"
    os.symlink(real_home, home)
    secret_dirs = [f"{h}/{rel}" for h in (str(home), str(real_home)) for rel in SECRET_HOME_PATHS]

    def plain_rule(path: str) -> bool:
        return any(path == d or path.startswith(d + "/") for d in secret_dirs)

    pieces = [".ssh", ".sshx", ".aws", ".kube", "config", "configs", ".config", "gcloud", "x", ".gnupg"]
    checked = 0
    for base in (str(home), str(real_home), str(tmp_path)):
        for depth in (1, 2, 3):
            for parts in itertools.product(pieces, repeat=depth):
                path = "/".join([base, *parts])  # no name here is one the basename rule decides
                assert is_secret(path, home) == plain_rule(path), path
                checked += 1
    assert checked == 3 * (10 + 100 + 1000)
