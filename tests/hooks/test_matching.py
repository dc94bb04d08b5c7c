"""Matchers, `if` conditions, parallel runs and de-duplication."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tests.hooks.conftest import make

from yoke.hooks.matching import IfCondition, match_value, matcher_matches


@pytest.mark.parametrize(
    ("matcher", "value", "expected"),
    [
        ("", "Bash", True),
        ("*", "anything", True),
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),  # exact, not a prefix
        ("Edit|Write", "Write", True),
        ("Edit, Write", "Write", True),
        ("Edit|Write", "NotebookEdit", False),
        ("Edit.*", "NotebookEdit", True),  # a regex is unanchored, as in Claude Code
        ("^Edit$", "NotebookEdit", False),
        ("mcp__memory__.*", "mcp__memory__create", True),
        ("mcp__memory", "mcp__memory__create", False),  # an exact string
        ("my-tool", "my-tool", True),
        ("([", "([", False),  # a broken regex matches nothing
    ],
)
def test_matcher_semantics(matcher: str, value: str, expected: bool):
    assert matcher_matches(matcher, "PreToolUse", value) is expected


def test_each_event_matches_its_own_field():
    assert match_value("SessionStart", {"source": "resume"}) == "resume"
    assert match_value("PreCompact", {"trigger": "auto"}) == "auto"
    assert match_value("Notification", {"notification_type": "idle_prompt"}) == "idle_prompt"
    assert match_value("SessionEnd", {"reason": "clear"}) == "clear"
    assert match_value("SubagentStop", {"agent_type": "Explore"}) == "Explore"
    assert match_value("FileChanged", {"file_path": "/p/.envrc"}) == ".envrc"
    assert match_value("UserPromptSubmit", {"prompt": "x"}) is None  # no matcher support
    assert matcher_matches("Bash", "UserPromptSubmit", None)  # a matcher there is ignored
    assert matcher_matches(".envrc|.env", "FileChanged", ".env")
    assert not matcher_matches(".envrc|.env", "FileChanged", "x.env")


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        ("Bash(git push:*)", "git push origin main", True),
        ("Bash(git push:*)", "cd repo && git push", True),  # any sub-command
        ("Bash(git push:*)", "git status", False),
        ("Bash(git *)", "echo $(git rev-parse HEAD)", True),
        ("Bash(rm *)", "FOO=1 rm -rf x", True),
        ("Read", "ls", False),  # another tool
    ],
)
def test_if_condition_uses_permission_rules(tmp_path: Path, rule: str, command: str, expected: bool):
    cond = IfCondition(tmp_path, tmp_path)
    payload = {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": str(tmp_path)}
    assert cond.holds(rule, "PreToolUse", payload) is expected


def test_if_condition_on_paths_and_non_tool_events(tmp_path: Path):
    cond = IfCondition(tmp_path, tmp_path)
    edit = {
        "tool_name": "Edit",
        "tool_input": {"file_path": str(tmp_path / "src" / "a.ts")},
        "cwd": str(tmp_path),
    }
    assert cond.holds("Edit(*.ts)", "PostToolUse", edit)
    assert not cond.holds("Edit(*.py)", "PostToolUse", edit)
    assert not cond.holds("Bash", "UserPromptSubmit", {"prompt": "x"})  # `if` never runs off tool events


async def test_if_gates_the_handler(project: Path):
    hooks = {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "echo ran >> ran.log", "if": "Bash(git push:*)"}],
            }
        ]
    }
    lifecycle, _ = make(project, hooks)
    await lifecycle.announce(
        "PreToolUse", tool_name="Bash", tool_input={"command": "git status"}, tool_use_id="a"
    )
    assert not (project / "ran.log").exists()
    await lifecycle.announce(
        "PreToolUse", tool_name="Bash", tool_input={"command": "git push"}, tool_use_id="b"
    )
    assert (project / "ran.log").read_text() == "ran\n"


async def test_matching_hooks_run_in_parallel_and_identical_ones_once(project: Path):
    slow = "sleep 1; echo x >> {}.log"
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": slow.format("a")}]},
            {"matcher": "*", "hooks": [{"type": "command", "command": slow.format("b")}]},
            {
                "matcher": "Bash|Read",
                "hooks": [{"type": "command", "command": slow.format("a")}],
            },  # duplicate
        ]
    }
    lifecycle, _ = make(project, hooks)
    start = time.monotonic()
    await lifecycle.announce("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="a")
    elapsed = time.monotonic() - start
    assert elapsed < 1.8, elapsed
    assert (project / "a.log").read_text() == "x\n"
    assert (project / "b.log").read_text() == "x\n"


async def test_strictest_decision_wins(project: Path):
    def answer(verdict: str) -> str:
        return (
            'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
            f'"permissionDecision": "{verdict}", "permissionDecisionReason": "{verdict} says so"}}}}\''
        )

    hooks = {
        "PreToolUse": [
            {"hooks": [{"type": "command", "command": answer(v)} for v in ("allow", "ask", "deny")]}
        ]
    }
    lifecycle, _ = make(project, hooks)
    out = await lifecycle.announce(
        "PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="a"
    )
    assert (out.decision, out.reason) == ("deny", "deny says so")


async def test_a_legacy_name_in_a_matcher_reaches_the_tool(project: Path):
    class Agent:
        name = "Agent"
        aliases = ("Task",)

    hooks = {
        "PreToolUse": [{"matcher": "Task", "hooks": [{"type": "command", "command": "echo ran > task.log"}]}]
    }
    lifecycle, _ = make(project, hooks, tool_lookup=lambda name: Agent() if name == "Agent" else None)
    await lifecycle.announce("PreToolUse", tool_name="Agent", tool_input={"prompt": "x"}, tool_use_id="a")
    assert (project / "task.log").read_text() == "ran\n"
