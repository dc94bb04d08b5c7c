"""Permission modes and rules through the real `yoke -p` (headless: anything that would ask is denied)."""

from __future__ import annotations

import json

import pytest
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer


def write_then_bash(project):
    return [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_w",
                    "name": "Write",
                    "input": {"file_path": str(project / "new.txt"), "content": "x\n"},
                }
            ]
        },
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_b",
                    "name": "Bash",
                    "input": {"command": "python3 -c \"open('ran.txt', 'w')\""},
                }
            ]
        },
        {"content": [{"type": "text", "text": "end"}]},
    ]


@pytest.mark.parametrize(
    ("mode", "wrote", "ran"),
    [
        ("default", False, False),
        ("acceptEdits", True, False),
        ("plan", False, False),
        ("dontAsk", False, False),
        ("bypassPermissions", True, True),
    ],
)
def test_modes(yoke, project, mode, wrote, ran):
    with ScriptedServer(write_then_bash(project)) as srv:
        run = yoke("-p", "go", "--output-format", "json", "--permission-mode", mode, env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    result = json.loads(run.stdout)
    assert (project / "new.txt").exists() is wrote
    assert (project / "ran.txt").exists() is ran
    denied = {d["tool_use_id"] for d in result["permission_denials"]}
    assert denied == {i for i, ok in (("toolu_w", wrote), ("toolu_b", ran)) if not ok}


def test_deny_rule_in_project_settings_beats_flag_allow(yoke, project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash(echo:*)"]}})
    )
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": "echo hi"}}]},
        {"content": [{"type": "text", "text": "end"}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "go", "--output-format", "json", "--allowedTools", "Bash", env=anthropic_env(srv))
    result = json.loads(run.stdout)
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"]


def test_allowed_tools_rule_allows_exact_command_only(yoke, project):
    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "touch one.txt"}}
            ]
        },
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "Bash",
                    "input": {"command": "touch one.txt; touch two.txt"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "end"}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "go",
            "--output-format",
            "json",
            "--allowedTools",
            "Bash(touch one.txt)",
            env=anthropic_env(srv),
        )
    result = json.loads(run.stdout)
    assert (project / "one.txt").exists() and not (project / "two.txt").exists()
    assert [d["tool_use_id"] for d in result["permission_denials"]] == ["toolu_2"]


def test_disallowed_tool_is_hidden_from_the_model(yoke):
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        run = yoke("-p", "go", "--disallowedTools", "Bash", "WebFetch", env=anthropic_env(srv))
        tools = [t["name"] for t in srv.requests[0].body["tools"]]
    assert run.code == 0
    assert "Bash" not in tools and "WebFetch" not in tools and "Read" in tools


def test_project_allow_rules_apply_only_once_the_folder_is_trusted(yoke, project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(touch made.txt)"]}})
    )
    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": "touch made.txt"}}
            ]
        },
        {"content": [{"type": "text", "text": "end"}]},
    ]
    with ScriptedServer(turns) as srv:
        untrusted = yoke("-p", "go", "--output-format", "json", env=anthropic_env(srv))
    assert not (project / "made.txt").exists()
    assert "trust" in untrusted.stderr.lower()
    assert json.loads(untrusted.stdout)["permission_denials"]

    assert yoke("trust").code == 0
    with ScriptedServer(turns) as srv:
        trusted = yoke("-p", "go", "--output-format", "json", env=anthropic_env(srv))
    assert (project / "made.txt").exists(), trusted.stderr
    assert json.loads(trusted.stdout)["permission_denials"] == []
