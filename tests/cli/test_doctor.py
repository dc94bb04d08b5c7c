"""`yoke doctor` as a new user runs it: against a provider (the scripted server) whose model list lacks the
configured model, with settings files it reads without a trust question."""

from __future__ import annotations

import json

from tests.conftest import anthropic_env, openai_env

from yoke.testing import ScriptedServer


def settings(project, data) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(data))


def test_doctor_says_the_configured_model_is_not_served(yoke, project):
    settings(project, {"model": "claude-opus-5-5", "fallbackModel": "claude-sonnet-5-5"})
    with ScriptedServer(models=["claude-sonnet-5-5", "claude-haiku-5-5"]) as srv:
        run = yoke("doctor", env=anthropic_env(srv))
        asked = [r.path for r in srv.requests]
    assert asked == ["/v1/models"]
    assert run.code == 1, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    missing = [line for line in lines if "claude-opus-5-5" in line and "✗" in line]
    assert len(missing) == 1 and "the configured model is not served by anthropic" in missing[0]
    assert "claude-sonnet-5-5, claude-haiku-5-5" in missing[0]
    assert any("claude-sonnet-5-5: the fallback model, served by anthropic" in line for line in lines)
    assert str(project / ".claude" / "settings.json") in run.stdout  # the file it read, no trust question
    assert lines[-1] == "1 problem, 0 warnings" or lines[-1].startswith("1 problem")


def test_doctor_names_an_unpriced_and_a_retired_model(yoke, project):
    settings(project, {"model": "acme-coder-2"})
    with ScriptedServer(models=["acme-coder-2", "grok-4"]) as srv:
        run = yoke("doctor", env={**openai_env(srv), "CLAUDE_CODE_SUBAGENT_MODEL": "grok-4"})
    assert run.code == 1
    assert "acme-coder-2: the configured model, served by openai" in run.stdout
    assert "acme-coder-2: the configured model has no price" in run.stdout
    assert "grok-4: the vendor retired it on 2026-05-15; use grok-4.3" in run.stdout


def test_doctor_with_a_served_priced_model_finds_no_problem_there(yoke, project):
    with ScriptedServer(models=["claude-opus-5-5"]) as srv:
        run = yoke("doctor", env=anthropic_env(srv))
    assert "claude-opus-5-5: the default model, served by anthropic" in run.stdout
    assert "✗" not in run.stdout.split("Provider", 1)[1]


def test_doctor_with_a_provider_that_cannot_be_reached_says_so_in_one_line(yoke, project):
    env = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": "x"}
    run = yoke("doctor", env=env)
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "✗ model list: cannot reach http://127.0.0.1:9/v1/models" in run.stdout


def test_doctor_bad_argument_is_one_line(yoke):
    run = yoke("doctor", "--frobnicate")
    assert run.code == 2 and run.stderr.count("\n") == 1 and "unknown argument --frobnicate" in run.stderr


def test_doctor_asks_each_configured_provider(yoke, project):
    with ScriptedServer(models=["claude-opus-5-5"]) as claude, ScriptedServer(models=["llama3"]) as local:
        env = {**anthropic_env(claude), "OPENAI_BASE_URL": local.openai_url}
        run = yoke("doctor", env=env)
        asked = ([r.path for r in claude.requests], [r.path for r in local.requests])
    assert asked == (["/v1/models"], ["/v1/models"])
    assert "claude-opus-5-5: the default model, served by anthropic" in run.stdout
    assert "Provider openai" in run.stdout
    assert "gpt-5.5: the default model is not served by openai; it serves: llama3" in run.stdout


def test_doctor_names_a_retired_claude_4_model_and_its_replacement(yoke, project):
    settings(project, {"model": "claude-opus-4-1-20250805"})
    with ScriptedServer(models=["claude-opus-4-1-20250805"]) as srv:
        run = yoke("doctor", env=anthropic_env(srv))
    assert run.code == 1
    assert "claude-opus-4-1-20250805: the vendor retired it on 2026-08-05; use claude-opus-4-8" in run.stdout
