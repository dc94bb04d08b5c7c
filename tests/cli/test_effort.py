"""Reasoning effort, as a program sets it: `--effort`, `CLAUDE_CODE_EFFORT_LEVEL`, the `effortLevel` setting
and an agent's `effort` frontmatter reach the wire in each API's own field, only for models that take one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import anthropic_env, openai_env

from yoke.testing import ScriptedServer

DONE = {"content": [{"type": "text", "text": "done"}]}


def run_anthropic(yoke, *flags: str, env: dict[str, str] | None = None) -> tuple[Any, list[dict]]:
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", *flags, "--", "say hi", env={**anthropic_env(srv), **(env or {})})
        bodies = [r.body for r in srv.requests]
    return run, bodies


@pytest.mark.parametrize(
    ("model", "asked", "sent"),
    [
        ("claude-opus-4-7", "low", "low"),
        ("claude-opus-4-7", "xhigh", "xhigh"),
        ("claude-opus-4-7", "max", "max"),
        ("claude-opus-4-6-20260101", "xhigh", "high"),  # no xhigh on 4.6: the highest level below
        ("claude-sonnet-4-6", "max", "max"),
        ("claude-opus-4-5-20251101", "max", "high"),  # 4.5 predates max
        ("us.anthropic.claude-opus-4-7-v1", "medium", "medium"),
    ],
)
def test_effort_goes_out_as_output_config(yoke, model, asked, sent):
    run, bodies = run_anthropic(yoke, "--model", model, "--effort", asked)
    assert run.code == 0, run.stderr
    assert run.stdout == "done\n"
    assert bodies[0]["output_config"] == {"effort": sent}
    assert "effort" not in json.dumps(bodies[0]["messages"])


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-sonnet-4-5", "my-local-model"])
def test_a_model_without_effort_gets_no_field(yoke, model):
    run, bodies = run_anthropic(yoke, "--model", model, "--effort", "high")
    assert run.code == 0, run.stderr
    assert "output_config" not in bodies[0]


@pytest.mark.parametrize(
    ("model", "sent", "max_tokens"),
    [  # what Claude Code 2.1.330 sends for each when no level is asked (read from its requests)
        ("claude-opus-5-5", "medium", 128000),
        ("claude-haiku-5-5", "medium", 128000),
        ("claude-opus-4-7", "xhigh", 64000),
        ("claude-fable-5-1", "high", 64000),
        ("claude-sonnet-4-6", "high", 32000),
        ("claude-sonnet-4-5", None, 32000),
        ("my-local-model", None, 32000),
    ],
)
def test_no_effort_asked_sends_claude_codes_default_for_the_model(yoke, model, sent, max_tokens):
    run, bodies = run_anthropic(yoke, "--model", model)
    assert run.code == 0, run.stderr
    assert bodies[0].get("output_config") == ({"effort": sent} if sent else None)
    assert bodies[0]["max_tokens"] == max_tokens


def test_the_output_limit_variable_beats_the_models_default(yoke):
    run, bodies = run_anthropic(yoke, env={"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "4000"})
    assert run.code == 0, run.stderr
    assert bodies[0]["max_tokens"] == 4000


def test_the_environment_variable_beats_the_flag(yoke):
    run, bodies = run_anthropic(
        yoke, "--model", "claude-opus-4-7", "--effort", "max", env={"CLAUDE_CODE_EFFORT_LEVEL": "medium"}
    )
    assert run.code == 0, run.stderr
    assert bodies[0]["output_config"] == {"effort": "medium"}


def test_auto_in_the_environment_means_the_model_default(yoke):
    run, bodies = run_anthropic(
        yoke, "--model", "claude-opus-4-7", "--effort", "max", env={"CLAUDE_CODE_EFFORT_LEVEL": "auto"}
    )
    assert run.code == 0, run.stderr
    assert "output_config" not in bodies[0]


def write_settings(project: Path, data: dict) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(data))


def test_the_effort_level_setting_applies_and_the_flag_beats_it(yoke, project):
    write_settings(project, {"effortLevel": "low", "model": "claude-opus-4-7"})
    run, bodies = run_anthropic(yoke)
    assert run.code == 0, run.stderr
    assert bodies[0]["output_config"] == {"effort": "low"}
    run, bodies = run_anthropic(yoke, "--effort", "xhigh")
    assert bodies[0]["output_config"] == {"effort": "xhigh"}


@pytest.mark.parametrize(
    ("setting", "env", "line"),
    [
        (
            "extreme",
            {},
            "the effortLevel setting must be one of low, medium, high, xhigh, max (got 'extreme')",
        ),
        (None, {"CLAUDE_CODE_EFFORT_LEVEL": "hgih"}, "CLAUDE_CODE_EFFORT_LEVEL must be one of"),
    ],
)
def test_a_bad_level_is_one_line_before_any_request(yoke, project, setting, env, line):
    if setting:
        write_settings(project, {"effortLevel": setting})
    run, bodies = run_anthropic(yoke, env=env)
    assert run.code == 1
    assert bodies == []
    assert line in run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_a_bad_flag_value_is_refused_like_claude_code(yoke):
    run, bodies = run_anthropic(yoke, "--effort", "huge")
    assert run.code == 1 and bodies == []
    assert "error: option '--effort <level>' argument 'huge' is invalid" in run.stderr


@pytest.mark.parametrize(
    ("model", "asked", "sent"),
    [
        ("gpt-5.2", "xhigh", "xhigh"),
        ("gpt-5.2", "max", "xhigh"),  # OpenAI has no max: the model's highest level
        ("gpt-5.1", "xhigh", "high"),
        ("gpt-5.1", "max", "high"),
        ("o4-mini", "low", "low"),
        ("gpt-4.1", "high", None),  # not a reasoning model
    ],
)
def test_chat_completions_get_reasoning_effort(yoke, model, asked, sent):
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", "--model", model, "--effort", asked, "say hi", env=openai_env(srv))
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    assert body.get("reasoning_effort") == sent


@pytest.mark.parametrize(
    ("model", "asked", "sent"),
    [("gpt-5.1", "low", "low"), ("gpt-5.1-codex-max", "max", "xhigh"), ("o3", "xhigh", "high")],
)
def test_the_responses_api_gets_reasoning_effort(yoke, model, asked, sent):
    with ScriptedServer([DONE]) as srv:
        env = {"YOKE_PROVIDER": "openai-responses", "OPENAI_BASE_URL": srv.openai_url, "OPENAI_API_KEY": "o"}
        run = yoke("-p", "--model", model, "--effort", asked, "say hi", env=env)
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    assert body["reasoning"]["effort"] == sent


def test_an_agent_runs_at_its_own_effort(yoke, project):
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "quick.md").write_text(
        "---\nname: quick\ndescription: Quick looks\neffort: low\n---\nLook quickly.\n"
    )

    def answer(body: dict[str, Any]) -> dict:
        first = body["messages"][0]["content"]
        first = first if isinstance(first, str) else " ".join(b.get("text", "") for b in first)
        if "QUICK job" in first:
            return {"content": [{"type": "text", "text": "looked"}]}
        if any(m["role"] == "assistant" for m in body["messages"]):
            return DONE
        call = {"type": "tool_use", "id": "a1", "name": "Agent"}
        call["input"] = {"description": "look", "prompt": "QUICK job", "subagent_type": "quick"}
        return {"content": [call]}

    with ScriptedServer(default_turn=answer) as srv:
        run = yoke("-p", "--model", "claude-opus-4-7", "--effort", "high", "go", env=anthropic_env(srv))
        bodies = [r.body for r in srv.requests]
    assert run.code == 0, run.stderr
    efforts = {
        "QUICK job" in json.dumps(b["messages"][0]): b.get("output_config", {}).get("effort") for b in bodies
    }
    assert efforts == {True: "low", False: "high"}


ADAPTIVE = {"type": "adaptive", "display": "updates"}


@pytest.mark.parametrize(
    ("model", "thinking", "effort"),
    [
        ("claude-opus-4-7", ADAPTIVE, {"effort": "low"}),  # takes no budget: a budget would be a 400
        ("claude-sonnet-5-5", ADAPTIVE, {"effort": "low"}),
        ("claude-sonnet-4-6", ADAPTIVE, {"effort": "low"}),  # adaptive by 2.1.330's choice, budget or not
        ("claude-sonnet-4-5", {"type": "enabled", "budget_tokens": 4000, "display": "updates"}, None),
    ],
)
def test_thinking_is_adaptive_where_claude_code_sends_it_so(yoke, model, thinking, effort):
    run, bodies = run_anthropic(yoke, "--model", model, "--max-thinking-tokens", "4000", "--effort", "low")
    assert run.code == 0, run.stderr
    assert bodies[0]["thinking"] == thinking
    assert bodies[0].get("output_config") == effort


def test_the_aliases_and_default_are_claude_codes(yoke):
    run, bodies = run_anthropic(yoke)
    assert run.code == 0, run.stderr
    assert bodies[0]["model"] == "claude-opus-5-5"
    assert bodies[0]["output_config"] == {"effort": "medium"} and bodies[0]["max_tokens"] == 128000
    for alias, model in (
        ("opus", "claude-opus-5-5"),
        ("haiku", "claude-haiku-5-5"),
        ("fable", "claude-fable-5-2"),
        ("sonnet", "claude-sonnet-5-5"),
    ):
        run, bodies = run_anthropic(yoke, "--model", alias)
        assert bodies[0]["model"] == model
