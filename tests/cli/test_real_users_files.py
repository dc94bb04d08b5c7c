"""Files the way real users write them, loaded as Claude Code 2.1.330 loads them: through the `yoke` command
against the scripted server, checking what `system/init` lists and what the model receives.

Each behaviour here was read off the bundled Claude Code CLI on the same kind of files (docs/compatibility.md,
"Real users' files")."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

TEXT = {"content": [{"type": "text", "text": "done"}]}
HI = ("-p", "hi", "--output-format", "stream-json", "--verbose")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def init_line(stdout: str) -> dict[str, Any]:
    return next(
        json.loads(line) for line in stdout.splitlines() if '"subtype": "init"' in line or '"init"' in line
    )


def listed(body: dict[str, Any]) -> dict[str, str]:
    """`- name: description` lines the model reads (tool descriptions, system prompt, messages)."""
    parts = [t.get("description") or "" for t in body.get("tools", [])]
    system = body.get("system") or []
    parts += [system] if isinstance(system, str) else [b.get("text", "") for b in system]
    for message in body["messages"]:
        content = message["content"]
        parts += [content] if isinstance(content, str) else [b.get("text", "") for b in content]
    text = "\n".join(parts)
    return {m.group(1): m.group(2) for m in re.finditer(r"^- ([^\s:]+(?::[^\s:]+)*): (.*)$", text, re.M)}


def users_folder(project: Path) -> None:
    """Commands, skills and agents as people publish them: list hints, hints YAML cannot read, agent
    descriptions with `: ` and inline examples, names with dots and capitals."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    claude = project / ".claude"
    write(
        claude / "commands/new-page.md",
        "---\ndescription: Scaffold a page\nargument-hint: [page-name]\n---\nCreate the page $ARGUMENTS.\n",
    )
    write(
        claude / "commands/pipeline.md",
        "---\nallowed-tools: Bash(make:*)\nargument-hint: [pipeline-name] | setup | status\n"
        "description: Run or inspect a build pipeline\n---\nPipeline command for $1 (all: $ARGUMENTS).\n",
    )
    write(
        claude / "commands/standup.md",
        "---\ndescription: Collect notes: yesterday, today\nmodel: sonnet\n---\nWrite the standup for $ARGUMENTS.\n",
    )
    write(
        claude / "commands/beyond-repair.md",
        "---\nname: x\n  nested: [\n- item\n---\n# Tidy the changelog\n\nSort entries by date.\n",
    )
    write(
        claude / "skills/tour/SKILL.md",
        "---\ndescription: Give a tour of the code\nwhen_to_use: a newcomer asks where things are\n"
        "argument-hint: [area] [depth]\nuser-invocable: yes\n---\nShow the main folders.\n",
    )
    write(
        claude / "agents/mentor.md",
        "---\nname: mentor\ndescription: Use this agent for reviews. Examples: <example>Context: a PR is "
        "ready. user: review it</example>\ntools: [Read, Grep]\n---\nYou mentor people.\n",
    )
    write(
        claude / "agents/beast.md",
        "---\nname: 4.1-Beast\ndescription: Relentless autonomous coder\nmodel: haiku\n---\nYou keep going.\n",
    )
    write(claude / "agents/notes.md", "Just some notes kept beside the agents, with no frontmatter.\n")


def test_frontmatter_claude_code_tolerates_loads_without_a_warning(yoke, project):
    users_folder(project)
    with ScriptedServer([TEXT]) as srv:
        run = yoke(*HI, env=anthropic_env(srv))
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    assert "warning" not in run.stderr
    init = init_line(run.stdout)
    for name in ("new-page", "pipeline", "standup", "beyond-repair", "tour"):
        assert name in init["slash_commands"]
    assert "tour" in init["skills"]
    # every agent the session can start, built-in ones too, sorted without regard to case
    assert init["agents"] == sorted(init["agents"], key=str.casefold)
    assert {"4.1-Beast", "mentor", "general-purpose", "Explore", "Plan"} <= set(init["agents"])
    seen = listed(body)
    assert seen["new-page"] == "Scaffold a page"
    assert seen["standup"] == "Collect notes: yesterday, today"
    # a frontmatter YAML cannot read even quoted: no frontmatter, the body's first line describes it
    assert seen["beyond-repair"] == "Tidy the changelog"
    assert seen["tour"] == "Give a tour of the code - a newcomer asks where things are"
    assert seen["mentor"].startswith("Use this agent for reviews. Examples: <example>Context: a PR")
    assert seen["4.1-Beast"].startswith("Relentless autonomous coder")


def test_a_hint_yaml_cannot_read_still_expands_the_arguments(yoke, project):
    users_folder(project)
    with ScriptedServer([TEXT]) as srv:
        run = yoke("-p", "/pipeline nightly --dry", "--output-format", "json", env=anthropic_env(srv))
        blocks = srv.requests[0].body["messages"][0]["content"]
    assert run.code == 0, run.stderr
    assert blocks[1]["text"] == "Pipeline command for --dry (all: nightly --dry)."  # $1: the second


def call(id_: str, tool: str, **input: Any) -> dict:
    return {"type": "tool_use", "id": id_, "name": tool, "input": input}


def test_an_agent_named_with_dots_and_capitals_runs_on_its_resolved_model(yoke, project):
    users_folder(project)

    def answer(body: dict[str, Any]) -> dict:
        first = json.dumps(body["messages"][0]["content"])
        if "BEAST job" in first:
            return TEXT
        if any(m["role"] == "assistant" for m in body["messages"]):
            return TEXT
        return {
            "content": [
                call(
                    "a1",
                    "Agent",
                    run_in_background=False,
                    description="go",
                    prompt="BEAST job",
                    subagent_type="4.1-Beast",
                ),
                call(
                    "a2",
                    "Agent",
                    run_in_background=False,
                    description="look",
                    prompt="MENTOR job",
                    subagent_type="mentor",
                ),
            ]
        }

    with ScriptedServer(default_turn=answer) as srv:
        run = yoke("-p", "go", "--model", "sonnet", env=anthropic_env(srv))
        bodies = [r.body for r in srv.requests]
    assert run.code == 0, run.stderr
    beast = next(b for b in bodies if "BEAST job" in json.dumps(b["messages"][0]))
    mentor = next(b for b in bodies if "MENTOR job" in json.dumps(b["messages"][0]))
    main = bodies[0]
    # `model: haiku` goes through the aliases `--model haiku` goes through: never "haiku" on the wire
    assert beast["model"].startswith("claude-haiku-") and main["model"].startswith("claude-sonnet-")
    assert "You keep going." in json.dumps(beast["system"])
    assert {t["name"] for t in mentor["tools"]} == {"Read", "Grep"}


def plugin(root: Path, manifest: dict[str, Any]) -> Path:
    write(root / ".claude-plugin/plugin.json", json.dumps(manifest))
    return root


def test_a_plugin_loads_as_claude_code_loads_it(yoke, project, tmp_path):
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    kit = plugin(tmp_path / "kit", {"name": "kit", "version": "1.2.0"})
    write(kit / "agents/hunter.md", "---\nname: hunter\ndescription: Hunts silent failures\n---\nHunt.\n")
    write(kit / "agents/unnamed.md", "---\ndescription: [left open\n---\nNo name field at all.\n")
    write(kit / "agents/review/deep.md", "---\nname: deep\ndescription: Deep review\n---\nDeep.\n")
    write(kit / "skills/sql/SKILL.md", "---\nname: sql-table-design\ndescription: Design tables\n---\nX\n")
    write(kit / "commands/setup.md", "---\ndescription: Set up\ndisable-model-invocation: true\n---\nS\n")
    write(kit / "commands/check.md", "---\ndescription: Check it\n---\nC\n")
    write(kit / "commands/release/cut/SKILL.md", "---\ndescription: Cut a release\n---\nR\n")
    write(kit / "commands/release/cut/notes.md", "Notes the release skill reads.\n")
    write(kit / "skills/lint.v2/SKILL.md", "---\ndescription: Lint\n---\nL\n")
    write(
        kit / "workflows/audit.js",
        "// audits the repository\nexport const meta = {\n  name: 'audit',\n  description: 'Audit the repo',\n"
        "  whenToUse: 'before a release',\n  phases: [{ title: 'Scan' }],\n}\nawait phase('Scan')\n",
    )
    write(kit / "workflows/late.js", "const x = 1\nexport const meta = { name: 'late', description: 'x' }\n")
    refused = plugin(tmp_path / "refused", {"name": "refused", "agents": "./agents/"})
    write(refused / "agents/a.md", "---\nname: a\ndescription: d\n---\nA\n")
    dirs = ("--plugin-dir", str(kit), "--plugin-dir", str(refused))
    with ScriptedServer([TEXT]) as srv:
        run = yoke(*HI, *dirs, env=anthropic_env(srv))
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    init = init_line(run.stdout)
    assert [p["name"] for p in init["plugins"]] == ["kit"]
    # the whole plugin is refused over its manifest, in one line naming the field
    refusal = [line for line in run.stderr.splitlines() if "refused" in line]
    assert len(refusal) == 1 and "`agents` must be the path of a .md file" in refusal[0]
    kit_agents = [a for a in init["agents"] if a.startswith("kit:")]
    assert kit_agents == ["kit:hunter", "kit:review:deep", "kit:unnamed"]
    # skills by folder name; commands the model may not invoke and workflows count as skills
    # a skill folder among the commands is one command named by its folder; `.` in a skill folder's name is -
    assert [s for s in init["skills"] if s.startswith("kit:")] == [
        "kit:audit",
        "kit:lint-v2",
        "kit:release:cut",
        "kit:setup",
        "kit:sql",
    ]
    assert {"kit:check", "kit:setup", "kit:sql", "kit:audit"} <= set(init["slash_commands"])
    assert not [c for c in init["slash_commands"] if "notes" in c or "SKILL" in c]
    assert "kit:late" not in init["slash_commands"]
    seen = listed(body)
    assert seen["kit:unnamed"].startswith("[left open")
    assert seen["kit:audit"] == "Audit the repo - before a release"
    with ScriptedServer([TEXT]) as srv:
        run = yoke("-p", "/kit:audit now", "--plugin-dir", str(kit), env=anthropic_env(srv))
        assert srv.requests == []
    said = (run.stdout + run.stderr).strip().splitlines()
    assert run.code == 1 and len(said) == 1 and "Yoke cannot run workflow scripts" in said[0]


def test_a_name_that_looks_like_a_path_never_leaves_the_memory_folder(yoke, project, tmp_path):
    """Names are any text now, as in Claude Code; the agent's memory folder still stays where it belongs."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    write(
        project / ".claude/agents/odd.md",
        "---\nname: ../../outside\ndescription: Oddly named\nmemory: project\n---\nYou keep notes.\n",
    )

    def answer(body: dict[str, Any]) -> dict:
        if "ODD job" in json.dumps(body["messages"][0]["content"]) or len(body["messages"]) > 1:
            return TEXT
        return {
            "content": [
                call(
                    "a1",
                    "Agent",
                    run_in_background=False,
                    description="d",
                    prompt="ODD job",
                    subagent_type="../../outside",
                )
            ]
        }

    with ScriptedServer(default_turn=answer) as srv:
        run = yoke("-p", "go", "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert not (tmp_path / "outside").exists() and not (project.parent / "outside").exists()
    assert [p.name for p in (project / ".claude/agent-memory").iterdir()] == ["-..-outside"]
