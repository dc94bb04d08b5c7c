"""A sub-agent is a session built by the same assembly stages as its parent, with the parent's records as
inherited inputs: it gets the parent's hooks, MCP servers, permission rules and sandbox exactly as the
stages gave them to the parent, and each stage's record is frozen once returned."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from tests.agents.test_subagents import Router, call, run_session, text, tool_names
from tests.conftest import anthropic_env
from tests.mcp_support.helpers import stdio_entry

from yoke.agents.child_options import ChildOptions
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer

# Blocks any Bash command that mentions "forbidden" (exit 2: the reason goes back to the model).
HOOK = "grep -q forbidden && { echo 'the policy hook says no' >&2; exit 2; }; exit 0"


def _settings(home: Path) -> None:
    """User settings (no trust needed): a PreToolUse hook on Bash, a deny rule, the kernel sandbox."""
    (home / ".claude").mkdir(exist_ok=True)
    settings = {
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": HOOK}]}]},
        "permissions": {"deny": ["Bash(rm:*)"]},
        "sandbox": {"enabled": True},
    }
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))


def _probe_calls(prefix: str, outside: Path) -> list[dict[str, Any]]:
    """One call for each thing the stages give a session: hooks, rules, MCP servers, the sandbox."""
    return [
        call(f"{prefix}_hook", "Bash", command=f"echo forbidden > {prefix}-hooked.txt"),
        call(f"{prefix}_rule", "Bash", command=f"rm -f {prefix}-keep.txt"),
        call(f"{prefix}_mcp", "mcp__calc__add", a=2, b=3),
        call(
            f"{prefix}_box",
            "Bash",
            command=f"echo in > {prefix}-inside.txt; echo out > {outside}; echo rc=$?",
        ),
    ]


def _results(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tool results the last user message of a request carries, by the call they answer."""
    blocks = body["messages"][-1]["content"]
    return {b["tool_use_id"].split("_", 1)[1]: b for b in blocks if b.get("type") == "tool_result"}


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_sub_agent_gets_the_parents_hooks_rules_mcp_servers_and_sandbox(yoke, project, home):
    _settings(home)
    outside = Path("/var/tmp") / f"yoke-child-{uuid.uuid4().hex}.txt"  # the sandbox's / is read-only
    for who in ("parent", "child"):
        (project / f"{who}-keep.txt").write_text("keep")
    router = Router(
        {
            "probe both": [
                {"content": _probe_calls("parent", outside)},
                {"content": [call("toolu_agent", "Agent", description="probe", prompt="CHILD probe")]},
                text("both probed"),
            ],
            "CHILD probe": [{"content": _probe_calls("child", outside)}, text("child probed")],
        }
    )
    mcp = json.dumps({"mcpServers": {"calc": stdio_entry()}})
    with ScriptedServer(default_turn=router) as srv:
        run = yoke(
            "-p",
            "probe both",
            "--mcp-config",
            mcp,
            "--permission-mode",
            "bypassPermissions",
            env=anthropic_env(srv),
        )
    assert run.code == 0, run.stderr
    assert "mcp__calc__add" in tool_names(router.seen["CHILD probe"][0])
    parent, child = _results(router.seen["probe both"][1]), _results(router.seen["CHILD probe"][1])
    assert set(parent) == set(child) == {"hook", "rule", "mcp", "box"}
    for name in parent:  # the same verdicts and outcomes, call by call
        assert bool(parent[name].get("is_error")) == bool(child[name].get("is_error")), name
    for who, results in (("parent", parent), ("child", child)):
        assert "the policy hook says no" in json.dumps(results["hook"]), who
        assert not (project / f"{who}-hooked.txt").exists()
        assert results["rule"].get("is_error") and (project / f"{who}-keep.txt").exists(), who
        assert "5" in json.dumps(results["mcp"]) and not results["mcp"].get("is_error"), who
        assert (project / f"{who}-inside.txt").read_text() == "in\n"
        assert "rc=0" not in json.dumps(results["box"]), who
    assert not outside.exists()


async def test_a_child_is_built_from_the_parents_frozen_stage_records(project, home):
    with ScriptedServer(default_turn=Router({"CHILD": [text("hi")]})) as srv:
        env = {
            "HOME": str(home),
            "YOKE_HOME": str(home / ".yoke"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        }
        env.update({"PATH": __import__("os").environ["PATH"], **anthropic_env(srv)})
        session = await open_session(SessionOptions(cwd=project, env=env))
        try:
            stages = session.stages
            assert stages is not None
            for record in (stages, stages.environment, stages.model, stages.capabilities):
                field = type(record).__slots__[0]
                with pytest.raises(AttributeError, match="frozen"):
                    setattr(record, field, None)
            child = await session.child(
                ChildOptions(agent_type="probe", permission_mode="acceptEdits"), "toolu_1"
            )
            events = [e async for e in child.query("CHILD job")]
            assert events[-1].text == "hi"
            inherited = child.stages
            assert inherited is not None and inherited is not stages
            assert inherited.environment.settings is stages.environment.settings
            assert inherited.environment.env is stages.environment.env
            assert inherited.model.ledger is session.agent.ledger  # one budget
            assert inherited.model.provider is session.agent.provider
            assert inherited.model.loaded.chain.is_sidechain
            assert child.services.sandbox is session.services.sandbox
            assert child.services.task_list is session.services.task_list
            assert child.services.agents is None  # started with no agent depth: no sub-agents of its own
            # Monitor's events reach the loop: each session's services carry its own agent's inbox
            assert session.services.inbox is session.agent.inbox
            assert child.services.inbox is child.agent.inbox and child.agent.inbox is not session.agent.inbox
            assert set(session.agent.lifecycle.listeners()) <= set(child.agent.lifecycle.listeners())
            # its own mode is its gate copy's; the rules and the session's answers stay shared
            assert child.permission_mode == "acceptEdits" and session.permission_mode == "default"
            assert child.gate.session_rules is session.gate.session_rules
            assert child.transcript_path.parent == session.session_dir / "subagents"
        finally:
            await session.close()


async def test_a_sub_agents_own_mode_leaves_the_parents_alone(project, home):
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "planner.md").write_text(
        "---\nname: planner\ndescription: Plans\npermissionMode: plan\n---\nPlan.\n"
    )
    router = Router(
        {
            "delegate": [
                {
                    "content": [
                        call("a1", "Agent", description="d", prompt="PLAN job", subagent_type="planner")
                    ]
                },
                {"content": [call("w1", "Write", file_path=str(project / "after.txt"), content="x")]},
                text("done"),
            ],
            "PLAN job": [text("planned")],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        session, events = await run_session(project, home, srv, "delegate", permission_mode="acceptEdits")
    assert events[-1].text == "done"
    assert session.permission_mode == "acceptEdits"
    assert (project / "after.txt").read_text() == "x"  # still acceptEdits after the planning agent ran
