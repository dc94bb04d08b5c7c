"""Things found trying Yoke as a new user would: each gets a clear line, before any work when it can."""

from __future__ import annotations

import json

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

DONE = {"content": [{"type": "text", "text": "ok"}]}


def test_missing_settings_file_is_fatal(yoke, project):
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", "hi", "--settings", str(project / "nope.json"), env=anthropic_env(srv))
        requests = srv.requests
    assert run.code == 1 and requests == []
    assert "nope.json" in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_invalid_settings_file_is_fatal(yoke, project):
    (project / "bad.json").write_text("{not json")
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", "hi", "--settings", "bad.json", env=anthropic_env(srv))
        requests = srv.requests
    assert run.code == 1 and requests == []
    assert "bad.json" in run.stderr and "invalid JSON" in run.stderr


def test_mistyped_model_and_env_are_reported(yoke, project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"model": 42, "env": ["A=1"]}))
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", "hi", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert "`model` must be a model name" in run.stderr and "`env` must be an object" in run.stderr


def test_untrusted_folder_warning_names_yoke_trust(yoke, project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", "hi", env=anthropic_env(srv))
    assert "yoke trust" in run.stderr


def test_huge_stdin_prompt_is_refused_locally(yoke):
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", input="word " * 2_000_000, env=anthropic_env(srv))
        requests = srv.requests
    assert run.code != 0 and requests == []
    assert "Prompt is too long" in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_rewind_without_an_id_lists_the_messages(yoke):
    with ScriptedServer([DONE]) as srv:
        first = yoke("-p", "first prompt", "--output-format", "json", env=anthropic_env(srv))
    assert first.code == 0, first.stderr
    run = yoke("rewind")
    assert run.code == 0, run.stderr
    assert "first prompt" in run.stdout


def test_rewind_with_a_bad_id_is_one_clear_line(yoke):
    with ScriptedServer([DONE]) as srv:
        yoke("-p", "first prompt", env=anthropic_env(srv))
    run = yoke("rewind", "BADID")
    assert run.code == 1
    assert len(run.stderr.strip().splitlines()) == 1 and "BADID" in run.stderr
