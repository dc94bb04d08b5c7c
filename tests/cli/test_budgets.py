"""Budgets a new user trips over: a model without a known price under --max-budget-usd, and an
OpenAI-compatible server whose window is smaller than the output budget asked for."""

from __future__ import annotations

import json

from tests.conftest import openai_env

from yoke.providers.openai_budget import window_from_models
from yoke.testing import ScriptedServer

DONE = {"content": [{"type": "text", "text": "fine"}]}
VLLM_400 = (
    "This model's maximum context length is 32768 tokens. However, you requested 34000 tokens "
    "(2000 in the messages, 32000 in the completion). Please reduce the length of the messages or completion."
)


def test_budget_with_an_unpriced_model_refuses_to_start(yoke):
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", "hi", "--model", "my-local-llm", "--max-budget-usd", "1", env=openai_env(srv))
        requests = srv.requests
    assert run.code == 1 and requests == []
    line = run.stderr.strip()
    assert len(line.splitlines()) == 1 and "my-local-llm" in line and "modelPrices" in line


def test_prices_from_settings_make_the_budget_work(yoke, project):
    (project / "prices.json").write_text(
        json.dumps({"modelPrices": {"my-local-llm": {"input": 1000000, "output": 1000000}}})
    )
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {"pattern": "*"}}]},
        DONE,
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "hi", "--model", "my-local-llm", "--max-budget-usd", "0.5", "--settings", "prices.json",
            "--output-format", "json", env=openai_env(srv),
        )  # fmt: skip
    result = json.loads(run.stdout)
    assert run.code == 1, run.stderr
    assert result["subtype"] == "error_max_budget_usd" and result["total_cost_usd"] > 0.5


def test_output_budget_is_lowered_to_fit_the_window(yoke):
    glob = {"content": [{"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {"pattern": "*"}}]}
    rejected = dict(glob, fault={"status": 400, "message": VLLM_400, "type": "invalid_request_error"})
    with ScriptedServer([rejected, DONE]) as srv:
        run = yoke("-p", "hi", "--model", "local-32k", "--output-format", "json", env=openai_env(srv))
        budgets = [r.body.get("max_tokens") for r in srv.requests]
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["result"] == "fine"
    assert budgets[0] == 32000 and budgets[1] <= 32768 - 2000 and budgets[1] >= 30000
    assert 1024 <= budgets[2] < 32000  # the window learnt sizes the next request from the start


def test_window_is_read_from_a_models_listing():
    vllm = {"data": [{"id": "qwen", "max_model_len": 32768}]}
    llama = {"data": [{"id": "model.gguf", "meta": {"n_ctx_train": 8192}}]}
    lmstudio = {"data": [{"id": "a", "max_context_length": 4096}, {"id": "b"}]}
    assert window_from_models(vllm, "qwen") == 32768
    assert window_from_models(llama, "whatever") == 8192  # a one-model server
    assert window_from_models(lmstudio, "a") == 4096 and window_from_models(lmstudio, "b") is None
