"""What invoking a skill changes for the query that invokes it, and only that query: `allowed-tools`
pre-approves, `disallowed-tools` removes, `model` overrides; `context: fork` is reported as not supported."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

TEXT = {"content": [{"type": "text", "text": "done"}]}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def touch(name: str, tid: str) -> dict:
    return {
        "content": [{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": f"touch {name}"}}]
    }


def user(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n"


def test_grants_last_for_the_invoking_query_only(yoke, project):
    write(
        project / ".claude/commands/mk.md",
        "---\nallowed-tools: Bash(touch:*)\ndisallowed-tools: WebFetch\nmodel: claude-haiku-4-5\n"
        "context: fork\n---\nMake the file.\n",
    )
    turns = [touch("untrusted.txt", "toolu_0"), TEXT]
    turns += [touch("granted.txt", "toolu_1"), TEXT, touch("later.txt", "toolu_2"), TEXT]
    stream = ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
    with ScriptedServer(turns) as srv:
        # a project's command grants nothing until the folder is trusted, and says so
        untrusted = yoke("-p", "/mk", *stream[2:], env=anthropic_env(srv))
        assert not (project / "untrusted.txt").exists()
        notices = [o for o in untrusted.lines() if o.get("subtype") == "informational"]
        assert any("ignored until this folder is trusted" in o["content"] for o in notices)
        assert yoke("trust").code == 0
        skip = len(srv.requests)
        run = yoke(
            "-p",
            *stream,
            "--model",
            "claude-sonnet-4-5",
            input=user("/mk") + user("again"),
            env={**anthropic_env(srv), "ENABLE_TOOL_SEARCH": "false"},  # every tool sent in full
        )
        bodies = [r.body for r in srv.requests][skip:]
    assert run.code in (0, 1), run.stderr
    assert (project / "granted.txt").exists()
    assert not (project / "later.txt").exists()  # the grant ended with the first query
    assert [b["model"] for b in bodies] == ["claude-haiku-4-5"] * 2 + ["claude-sonnet-4-5"] * 2
    tools = [{t["name"] for t in b["tools"]} for b in bodies]
    assert "WebFetch" not in tools[0] and "WebFetch" in tools[2]
    lines = run.lines()
    init = next(o for o in lines if o.get("subtype") == "init")
    assert "mk" in init["slash_commands"] and "compact" in init["slash_commands"]
    assert any("context: fork" in json.dumps(o) for o in lines) or "context: fork" in run.stderr


def test_model_invoked_skill_with_grants_needs_approval(yoke, project):
    write(
        project / ".claude/skills/ship/SKILL.md",
        "---\ndescription: Ships\nallowed-tools: Bash(touch:*)\n---\nShip.\n",
    )
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_s", "name": "Skill", "input": {"skill": "ship"}}]},
        TEXT,
    ]
    with ScriptedServer(turns * 2) as srv:
        denied = yoke("-p", "ship it", "--output-format", "json", env=anthropic_env(srv))
        allowed = yoke("-p", "ship it", "--allowedTools", "Skill", env=anthropic_env(srv))
        bodies = [r.body for r in srv.requests]
    assert json.loads(denied.stdout)["permission_denials"][0]["tool_name"] == "Skill"
    assert allowed.code == 0
    assert "Launching skill: ship" in json.dumps(bodies[3]["messages"][-1])
