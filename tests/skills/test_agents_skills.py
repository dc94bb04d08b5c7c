"""`.agents/skills` (the folder Codex and opencode read for skills shared across agents) is read beside
`.claude/skills`: a skill there is listed and runs; where both define a name the documented precedence holds
(same level: `.claude/skills` wins; personal beats project, whichever folder)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

TEXT = {"content": [{"type": "text", "text": "done"}]}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def skill(folder: Path, name: str, body: str) -> None:
    write(folder / name / "SKILL.md", f"---\nname: {name}\ndescription: {name} from {folder}\n---\n{body}\n")


def _run(yoke, prompt: str) -> tuple[dict, list[dict]]:
    with ScriptedServer([TEXT]) as srv:
        run = yoke("-p", prompt, "--output-format", "stream-json", "--verbose", env=anthropic_env(srv))
        assert run.code == 0, run.stderr
        body = srv.requests[0].body
    init = next(line for line in run.lines() if line.get("subtype") == "init")
    return init, body["messages"]


def test_a_skill_in_agents_skills_is_listed_and_runs(yoke, project):
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    skill(project / ".agents" / "skills", "shared-review", "Review with the SHARED checklist.")
    init, messages = _run(yoke, "/shared-review now")
    assert "shared-review" in init["skills"] and "shared-review" in init["slash_commands"]
    assert "Review with the SHARED checklist." in json.dumps(messages[0])


def test_agents_skills_from_a_parent_folder_up_to_the_repository_root(yoke, project):
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    skill(project / ".agents" / "skills", "from-root", "ROOT body.")
    sub = project / "pkg" / "inner"
    sub.mkdir(parents=True)
    with ScriptedServer([TEXT]) as srv:
        run = yoke("-p", "/from-root", env=anthropic_env(srv), cwd=sub)
        assert run.code == 0, run.stderr
        assert "ROOT body." in json.dumps(srv.requests[0].body["messages"])


def test_same_level_claude_skills_wins_over_agents_skills(yoke, project):
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    skill(project / ".agents" / "skills", "deploy", "AGENTS deploy body.")
    skill(project / ".claude" / "skills", "deploy", "CLAUDE deploy body.")
    _, messages = _run(yoke, "/deploy")
    text = json.dumps(messages)
    assert "CLAUDE deploy body." in text and "AGENTS deploy body." not in text


def test_personal_agents_skill_beats_a_project_claude_skill(yoke, project, home):
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    skill(home / ".agents" / "skills", "lint", "PERSONAL agents lint.")
    skill(project / ".claude" / "skills", "lint", "PROJECT claude lint.")
    _, messages = _run(yoke, "/lint")
    text = json.dumps(messages)
    assert "PERSONAL agents lint." in text and "PROJECT claude lint." not in text


def test_closer_project_agents_skill_beats_the_root_claude_skill(yoke, project):
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    skill(project / ".claude" / "skills", "fmt", "ROOT claude fmt.")
    sub = project / "pkg"
    skill(sub / ".agents" / "skills", "fmt", "CLOSE agents fmt.")
    with ScriptedServer([TEXT]) as srv:
        run = yoke("-p", "/fmt", env=anthropic_env(srv), cwd=sub)
        assert run.code == 0, run.stderr
        text = json.dumps(srv.requests[0].body["messages"])
    assert "CLOSE agents fmt." in text and "ROOT claude fmt." not in text


def test_a_project_agents_skill_gets_the_same_trust_as_claude_skills(yoke, project):
    """Its allowed-tools pre-approve nothing until the folder is trusted, as a project `.claude` skill's."""
    write(
        project / ".agents" / "skills" / "mk" / "SKILL.md",
        "---\nname: mk\ndescription: make a file\nallowed-tools: Bash(touch:*)\n---\nMake the file.\n",
    )
    call = {"type": "tool_use", "id": "toolu_0", "name": "Bash", "input": {"command": "touch made.txt"}}
    with ScriptedServer([{"content": [call]}, TEXT]) as srv:
        run = yoke("-p", "/mk", "--output-format", "stream-json", "--verbose", env=anthropic_env(srv))
    notices = [o for o in run.lines() if o.get("subtype") == "informational"]
    assert any("ignored until this folder is trusted" in o["content"] for o in notices)
    assert not (project / "made.txt").exists()
