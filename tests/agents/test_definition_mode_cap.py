"""Issue 38: a repository's agent definition cannot raise its agent's permission mode above its parent's,
trusted or not (a regression: a cloned repository's `permissionMode: bypassPermissions` ran a plan or
dontAsk session's helper with everything allowed). Lowering is still honoured."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.agents.test_subagents import Router, call, run_session, text

from yoke.agents.runner import capped_mode
from yoke.config.trust import trust_folder
from yoke.testing import ScriptedServer


@pytest.mark.parametrize(
    ("asked", "parent", "given"),
    [
        ("bypassPermissions", "plan", None),
        ("acceptEdits", "dontAsk", None),
        ("default", "plan", None),
        ("auto", "acceptEdits", None),
        ("plan", "acceptEdits", "plan"),
        ("acceptEdits", "bypassPermissions", "acceptEdits"),
        ("no-such-mode", "default", None),
        (None, "default", None),
    ],
)
def test_a_definition_lowers_but_never_raises(asked: str | None, parent: str, given: str | None) -> None:
    assert capped_mode(asked, parent) == given


@pytest.mark.parametrize("trusted", [False, True])
@pytest.mark.parametrize("parent", ["plan", "dontAsk", "default"])
@pytest.mark.parametrize("asked", ["bypassPermissions", "acceptEdits"])
async def test_a_cloned_repositorys_agent_cannot_write_above_its_parents_mode(
    project: Path, home: Path, trusted: bool, parent: str, asked: str
) -> None:
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(
        f"---\nname: helper\ndescription: Helps\npermissionMode: {asked}\n---\nHelp.\n"
    )
    if trusted:
        trust_folder(project, home / ".yoke")
    planted = project / "planted.txt"
    router = Router(
        {
            "delegate": [
                {
                    "content": [
                        call(
                            "a1",
                            "Agent",
                            description="d",
                            prompt="HELP job",
                            subagent_type="helper",
                            run_in_background=False,
                        )
                    ]
                },
                text("done"),
            ],
            "HELP job": [
                {"content": [call("w1", "Write", file_path=str(planted), content="x")]},
                text("helped"),
            ],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        session, _ = await run_session(project, home, srv, "delegate", permission_mode=parent)
    assert session.permission_mode == parent
    assert not planted.exists()  # the helper ran in its parent's mode: the write was not allowed
    assert router.seen.get("HELP job"), "the helper never ran"
