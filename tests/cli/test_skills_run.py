"""Skills, custom commands, built-in commands and output styles, through the real `yoke` command against the
scripted server: what the model receives is checked in the request bodies."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

TEXT = {"content": [{"type": "text", "text": "done"}]}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def sample_claude_folder(project: Path, home: Path) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    write(
        project / ".claude/skills/release-notes/SKILL.md",
        "---\nname: release-notes\ndescription: Writes release notes from the git log\n"
        "argument-hint: '[version]'\narguments: [version]\nparameters:\n  branch: ${param.branch|main}\n---\n"
        "Write notes for $version on ${param.branch} (first arg $0, all: $ARGUMENTS).\n"
        "Skill dir: ${CLAUDE_SKILL_DIR}. Session: ${CLAUDE_SESSION_ID}.\n",
    )
    write(project / ".claude/skills/release-notes/template.md", "## Changes\n")
    write(
        project / ".claude/skills/secret-deploy/SKILL.md",
        "---\ndescription: Deploys\ndisable-model-invocation: true\n---\nDeploy now.\n",
    )
    write(
        project / ".claude/commands/frontend/component.md",
        "---\ndescription: Scaffold a component\n---\nCreate the component.\nBranch: !`git branch --show-current`\n"
        "See @notes.txt\n",
    )
    write(project / "notes.txt", "remember the tests\n")
    write(home / ".claude/commands/hello.md", "Say hello to the user.\n")
    write(project / ".claude/skills/broken/SKILL.md", "---\ndescription: [unclosed\n---\nbody\n")


def test_slash_skill_expands_into_the_message_claude_code_sends(yoke, project, home):
    sample_claude_folder(project, home)
    with ScriptedServer([TEXT]) as srv:
        run = yoke("-p", "/release-notes 1.2 branch=dev", "--output-format", "json", env=anthropic_env(srv))
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    blocks = body["messages"][0]["content"]
    assert blocks[0]["text"] == (
        "<command-message>release-notes</command-message>\n<command-name>/release-notes</command-name>\n"
        "<command-args>1.2 branch=dev</command-args>"
    )
    text = blocks[1]["text"]
    skill_dir = project.resolve() / ".claude/skills/release-notes"
    assert text.startswith(f"Base directory for this skill: {skill_dir}\n\n")
    assert "Write notes for 1.2 on dev (first arg 1.2, all: 1.2 branch=dev)." in text
    session_id = json.loads(run.stdout)["session_id"]
    assert f"Skill dir: {skill_dir}. Session: {session_id}." in text
    # YAML cannot read its frontmatter as written: Claude Code quotes the value and loads the skill quietly
    assert "broken/SKILL.md" not in run.stderr
    assert "- broken: [unclosed" in json.dumps(body)


def test_command_runs_shell_blocks_and_inlines_files(yoke, project, home):
    sample_claude_folder(project, home)
    with ScriptedServer([TEXT, TEXT]) as srv:
        run = yoke("-p", "/component Button", env=anthropic_env(srv))
        alias = yoke("-p", "/frontend:component Card", env=anthropic_env(srv))
        bodies = [r.body for r in srv.requests]
    assert run.code == 0 and alias.code == 0, run.stderr + alias.stderr
    text = bodies[0]["messages"][0]["content"][1]["text"]
    branch = subprocess.run(
        ["git", "branch", "--show-current"], cwd=project, capture_output=True, text=True
    ).stdout.strip()
    assert f"Branch: {branch}" in text and "!`" not in text
    assert "remember the tests" in text and "ARGUMENTS: Button" in text
    assert "ARGUMENTS: Card" in bodies[1]["messages"][0]["content"][1]["text"]


def test_shell_block_denied_when_nobody_can_approve(yoke, project, home):
    write(project / ".claude/commands/danger.md", "Run: !`touch pwned.txt`\n")
    with ScriptedServer([TEXT]) as srv:
        run = yoke("-p", "/danger", "--output-format", "json", env=anthropic_env(srv))
        assert srv.requests == []  # nothing was sent to the model
    assert run.code == 1
    result = json.loads(run.stdout)
    assert result["is_error"] and "touch pwned.txt" in result["result"] and "not allowed" in result["result"]
    assert not (project / "pwned.txt").exists()


def test_unknown_slash_word_goes_to_the_model_as_text(yoke, project):
    with ScriptedServer([TEXT]) as srv:
        run = yoke("-p", "/nosuchthing please", env=anthropic_env(srv))
        message = srv.requests[0].body["messages"][0]
    assert run.code == 0
    texts = message["content"] if isinstance(message["content"], str) else message["content"][0]["text"]
    assert texts == "/nosuchthing please"


def test_model_invokes_a_skill_through_the_skill_tool(yoke, project, home):
    sample_claude_folder(project, home)
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_s",
                    "name": "Skill",
                    "input": {"skill": "release-notes", "args": "2.0"},
                }
            ]
        },
        {
            "content": [
                {"type": "tool_use", "id": "toolu_c", "name": "SlashCommand", "input": {"command": "/hello"}}
            ]
        },
        {
            "content": [
                {"type": "tool_use", "id": "toolu_d", "name": "Skill", "input": {"skill": "secret-deploy"}}
            ]
        },
        TEXT,
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "write the release notes", env=anthropic_env(srv))
        bodies = [r.body for r in srv.requests]
    assert run.code == 0, run.stderr
    skill_tool = next(t for t in bodies[0]["tools"] if t["name"] == "Skill")
    assert skill_tool["input_schema"]["required"] == ["skill"]
    listing = skill_tool["description"]
    assert "- release-notes: Writes release notes from the git log" in listing
    assert "- hello: Say hello to the user." in listing
    assert "secret-deploy" not in listing  # disable-model-invocation
    results = [b for b in bodies[1]["messages"][-1]["content"] if b["type"] == "tool_result"]
    text = (
        results[0]["content"] if isinstance(results[0]["content"], str) else results[0]["content"][0]["text"]
    )
    assert text.startswith("Launching skill: release-notes") and "Write notes for 2.0 on main" in text
    legacy = [b for b in bodies[2]["messages"][-1]["content"] if b["type"] == "tool_result"][0]
    assert "Say hello to the user." in json.dumps(legacy)
    refused = [b for b in bodies[3]["messages"][-1]["content"] if b["type"] == "tool_result"][0]
    assert refused.get("is_error") and "only be invoked by the user" in json.dumps(refused)


def test_nested_skills_come_into_play_when_a_file_under_them_is_read(yoke, project):
    write(
        project / "apps/web/.claude/skills/web-deploy/SKILL.md",
        "---\ndescription: Deploy the web app\n---\nGo.\n",
    )
    write(project / "apps/web/index.js", "console.log(1)\n")
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_r",
                    "name": "Read",
                    "input": {"file_path": str(project / "apps/web/index.js")},
                }
            ]
        },
        TEXT,
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "look at the web app", env=anthropic_env(srv))
        bodies = [r.body for r in srv.requests]
    assert run.code == 0, run.stderr
    assert "Skill" not in [t["name"] for t in bodies[0]["tools"]]
    assert "web-deploy: Deploy the web app" in json.dumps(bodies[1]["messages"][-1])
    assert "Skill" in [t["name"] for t in bodies[1]["tools"]]


def test_headless_builtins_cost_context_memory(yoke, project):
    write(project / "CLAUDE.md", "Use tabs.\n")
    with ScriptedServer([]) as srv:
        cost = yoke("-p", "/cost", env=anthropic_env(srv))
        context = yoke("-p", "/context", env=anthropic_env(srv))
        memory = yoke("-p", "/memory", env=anthropic_env(srv))
        assert srv.requests == []
    assert cost.code == 0 and "Total cost:" in cost.stdout
    assert (
        context.code == 0 and "System prompt:" in context.stdout and "Conversation so far" in context.stdout
    )
    assert memory.code == 0 and str(project.resolve() / "CLAUDE.md") in memory.stdout


def test_init_writes_claude_md_with_read_only_tools_and_keeps_the_old_one(yoke, project):
    write(project / "CLAUDE.md", "old notes\n")
    answer = {"content": [{"type": "text", "text": "# CLAUDE.md\n\nRun `make test`.\n"}]}
    with ScriptedServer([answer]) as srv:
        run = yoke("-p", "/init", env=anthropic_env(srv))
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    tools = {t["name"] for t in body["tools"]}
    assert {"Read", "Glob", "Grep"} <= tools and not tools & {"Bash", "Write", "Edit"}
    assert "old notes" in body["messages"][0]["content"][0]["text"]
    assert (project / "CLAUDE.md").read_text() == "# CLAUDE.md\n\nRun `make test`.\n"
    assert (project / "CLAUDE.md.bak").read_text() == "old notes\n"
    assert "CLAUDE.md.bak" in run.stdout


def test_output_style_changes_the_system_prompt(yoke, project):
    write(
        project / ".claude/output-styles/pirate.md",
        "---\nname: Pirate\ndescription: Talks like a pirate\n---\nAnswer like a pirate.\n",
    )
    with ScriptedServer([TEXT, TEXT, TEXT]) as srv:
        plain = yoke("-p", "hi", env=anthropic_env(srv))
        write(project / ".claude/settings.json", json.dumps({"outputStyle": "Pirate"}))
        styled = yoke("-p", "hi", env=anthropic_env(srv))
        write(project / ".claude/settings.json", json.dumps({"outputStyle": "Explanatory"}))
        explanatory = yoke("-p", "hi", env=anthropic_env(srv))
        systems = ["\n".join(b["text"] for b in r.body["system"]) for r in srv.requests]
    assert plain.code == styled.code == explanatory.code == 0
    assert "# How to work" in systems[0] and "pirate" not in systems[0]
    assert "Answer like a pirate." in systems[1] and "# How to work" not in systems[1]
    assert "Explanatory output style" in systems[2] and "# How to work" in systems[2]


def test_setting_sources_without_project_leaves_project_skills_out(yoke, project, home):
    sample_claude_folder(project, home)
    with ScriptedServer([TEXT, TEXT]) as srv:
        yoke("-p", "/release-notes 1", "--setting-sources", "user", env=anthropic_env(srv))
        yoke("-p", "/hello", "--setting-sources", "user", env=anthropic_env(srv))
        first, second = (r.body["messages"][0]["content"] for r in srv.requests)
    assert json.dumps(first).count("/release-notes 1") == 1 and "command-name" not in json.dumps(first)
    assert "<command-name>/hello</command-name>" in json.dumps(second)
