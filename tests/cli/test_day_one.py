"""Issue 27's small `-p` items, as a user meets them: a missing key, `-w` in a repository with no commits."""

from __future__ import annotations

import subprocess

from yoke.testing import ScriptedServer

UNAUTHORIZED = {
    "content": "never",
    "fault": {"status": 401, "times": "always", "message": "invalid x-api-key"},
}


def test_a_missing_key_is_not_called_invalid(yoke):
    with ScriptedServer([UNAUTHORIZED]) as srv:
        missing = yoke("-p", "hi", env={"ANTHROPIC_BASE_URL": srv.url})
        wrong = yoke("-p", "hi", env={"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-wrong"})
    assert missing.code == 1
    assert "Not logged in · no API key is set: set ANTHROPIC_API_KEY" in missing.stdout + missing.stderr
    assert "Invalid API key" not in missing.stdout + missing.stderr
    assert "Invalid API key · check ANTHROPIC_API_KEY" in wrong.stdout + wrong.stderr


def test_no_key_for_the_default_endpoint_is_not_logged_in_not_invalid(yoke):
    """No key and no base URL: nothing is sent, and the line says why, as Claude Code's `Not logged in`."""
    for env in ({}, {"YOKE_PROVIDER": "gemini"}):
        run = yoke("-p", "hi", env=env)
        said = run.stdout + run.stderr
        assert run.code == 1 and said.startswith("Not logged in · No "), said
        assert "Invalid API key" not in said


def test_a_missing_openai_key_is_not_called_invalid(yoke):
    with ScriptedServer([UNAUTHORIZED]) as srv:
        run = yoke("-p", "hi", env={"OPENAI_BASE_URL": srv.openai_url, "YOKE_PROVIDER": "openai"})
    assert "Not logged in · no API key is set: set OPENAI_API_KEY" in run.stdout + run.stderr


def test_worktree_in_a_repository_without_commits_is_one_clear_line(yoke, project):
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    run = yoke("-p", "hi", "-w", env={"ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": "x"})
    assert run.code != 0
    assert run.stderr.count("\n") == 1, run.stderr
    assert "no commits yet" in run.stderr and "git commit" in run.stderr
    assert "fatal:" not in run.stderr and "invalid reference" not in run.stderr
