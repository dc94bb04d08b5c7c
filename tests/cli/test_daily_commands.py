"""`/review`, `/security-review`, `/debug` and `/usage` in `-p`, against a real git repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

ANSWER = {"content": [{"type": "text", "text": "Found one bug in app.py line 2."}]}
WRITING_TOOLS = {"Bash", "Edit", "Write", "MultiEdit", "NotebookEdit", "Skill"}


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)


def repository(project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.email", "t@example.com")
    git(project, "config", "user.name", "T")
    (project / "app.py").write_text("def total(xs):\n    return sum(xs)\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first")


def test_review_sends_the_uncommitted_diff_with_read_only_tools(yoke, project):
    repository(project)
    (project / "app.py").write_text("def total(xs):\n    return sum(xs[1:])\n")
    with ScriptedServer([ANSWER]) as srv:
        run = yoke("-p", "/review off-by-one", env=anthropic_env(srv))
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "Found one bug in app.py line 2."
    prompt = json.dumps(body["messages"][-1])
    assert "return sum(xs[1:])" in prompt and "uncommitted-diff" in prompt and "off-by-one" in prompt
    tools = {t["name"] for t in body["tools"]}
    assert "Read" in tools and not tools & WRITING_TOOLS


def test_security_review_sends_the_branch_against_its_base(yoke, project):
    repository(project)
    git(project, "checkout", "-q", "-b", "feature")
    (project / "run.py").write_text("import os\ndef run(name):\n    os.system('ls ' + name)\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "run a command")
    with ScriptedServer([ANSWER]) as srv:
        run = yoke("-p", "/security-review", env=anthropic_env(srv))
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    prompt = json.dumps(body["messages"][-1])
    assert 'branch-diff base=\\"main\\"' in prompt and "os.system" in prompt and "run a command" in prompt
    assert not {t["name"] for t in body["tools"]} & WRITING_TOOLS


def test_review_with_nothing_to_review_or_no_repository_asks_no_model(yoke, project):
    with ScriptedServer([]) as srv:
        outside = yoke("-p", "/review", env=anthropic_env(srv))
        repository(project)
        clean = yoke("-p", "/review", "--output-format", "json", env=anthropic_env(srv))
        assert srv.requests == []
    assert outside.code == 1 and "not in a git repository" in outside.stdout + outside.stderr
    result = json.loads(clean.stdout)
    assert result["is_error"] and "nothing to review" in result["result"]


def test_usage_is_local(yoke, project):
    with ScriptedServer([]) as srv:
        run = yoke("-p", "/usage", env=anthropic_env(srv))
        assert srv.requests == []
    assert run.code == 0, run.stderr
    assert "Total cost:" in run.stdout and "Context:" in run.stdout and "Activity:" in run.stdout


def test_debug_turns_on_debug_lines_and_asks_with_read_only_tools(yoke, project):
    with ScriptedServer([ANSWER]) as srv:
        run = yoke("-p", "/debug the hook never fires", env=anthropic_env(srv))
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    prompt = json.dumps(body["messages"][-1])
    assert "the hook never fires" in prompt and "debug.txt" in prompt
    logs = list(Path(project).parent.rglob("debug.txt"))
    assert len(logs) == 1 and "[debug] result" in logs[0].read_text()
    assert not {t["name"] for t in body["tools"]} & WRITING_TOOLS
