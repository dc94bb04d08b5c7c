"""models.json as data a user relies on: every fact names where it was read and when, price tiers count long
prompts at their own price, `behavesAs` lends a known model's handling, and Gemini 3 gets a thinking level."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.conftest import anthropic_env

from yoke.providers import pricing
from yoke.providers.base import ModelRequest, Usage
from yoke.providers.gemini import build_request_body
from yoke.testing import ScriptedServer

DATA = json.loads((Path(pricing.__file__).with_name("models.json")).read_text())


def _keys(entry):
    source = entry.get("source")
    return [source] if isinstance(source, str) else list(source or [])


def test_every_entry_names_a_dated_source():
    for name, source in DATA["sources"].items():
        assert source.get("url"), name
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", source.get("checked", "")), name
    for table in ("providers", "models"):
        for name, entry in DATA[table].items():
            keys = _keys(entry)
            assert keys, f"{table}.{name} has no source"
            assert all(k in DATA["sources"] for k in keys), f"{table}.{name}: unknown source {keys}"


def test_no_default_or_alias_names_a_retired_model():
    for name, provider in DATA["providers"].items():
        for model in [provider["default"], *provider["aliases"].values()]:
            # on its own platform: Bedrock keeps its own retirement dates (models.json `retirement_platforms`)
            assert pricing.retirement(model, name) is None, (name, model)


def test_haiku_5_5_long_prompts_cost_their_own_tier():
    short = pricing.cost_usd("claude-haiku-5-5", Usage(100_000, 1_000, 0, 0))
    long = pricing.cost_usd(
        "claude-haiku-5-5", Usage(60_000, 1_000, 50_000, 0)
    )  # 110K prompt with cache reads
    assert short == pytest.approx((100_000 * 0.10 + 1_000 * 0.50) / 1e6)
    assert long == pytest.approx((60_000 * 0.50 + 1_000 * 2.50 + 50_000 * 0.05) / 1e6)


def test_corrected_prices():
    assert pricing.price_of("claude-opus-5-5").cache_read == 0.20
    assert pricing.price_of("claude-fable-5-1").cache_read == 0.25
    assert pricing.price_of("claude-fable-5-2-20261109") is not None
    assert pricing.known_model("gpt-6-sol") and pricing.known_model("gpt-5.6-terra")


def test_gemini_3_takes_a_thinking_level_and_2_5_a_budget():
    def config(model, **kw):
        request = ModelRequest(
            model=model, messages=[{"role": "user", "content": "hi"}], max_tokens=100, **kw
        )
        return build_request_body(request)["generationConfig"].get("thinkingConfig")

    assert config("gemini-3.1-pro-preview", effort="medium") == {"thinkingLevel": "medium"}
    assert config("gemini-3-pro-preview", effort="medium") == {"thinkingLevel": "low"}  # it has low and high
    assert config("gemini-3.1-pro-preview", thinking_budget=2000) == {
        "thinkingLevel": "high",
        "includeThoughts": True,
    }
    assert config("gemini-2.5-pro", thinking_budget=2000) == {"thinkingBudget": 2000, "includeThoughts": True}
    assert config("gemini-2.5-pro", effort="high") is None


def test_behaves_as_in_settings_lends_a_known_models_handling(yoke, project):
    (project / ".claude").mkdir(exist_ok=True)
    picker = {"options": [{"model": "acme-gateway-model", "behavesAs": "claude-opus-5-5"}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"modelPicker": picker}))
    with ScriptedServer([{"content": [{"type": "text", "text": "done"}]}]) as srv:
        run = yoke(
            "-p", "--model", "acme-gateway-model", "--output-format", "json", "hi", env=anthropic_env(srv)
        )
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    assert body["model"] == "acme-gateway-model"  # the id sent is the user's
    assert body["output_config"] == {"effort": "medium"} and body["max_tokens"] == 128000
    assert json.loads(run.stdout)["total_cost_usd"] == 0  # capabilities are lent, a price is not


def test_gemini_3_in_a_run_gets_the_effort_as_its_thinking_level(yoke):
    with ScriptedServer([{"content": [{"type": "text", "text": "done"}]}]) as srv:
        env = {"GEMINI_BASE_URL": srv.gemini_url, "GEMINI_API_KEY": "k", "YOKE_PROVIDER": "gemini"}
        run = yoke("-p", "--effort", "medium", "hi", env=env)
        body = srv.requests[0].body
        path = srv.requests[0].path
    assert run.code == 0, run.stderr
    assert "gemini-3.1-pro-preview" in path  # the default, now that 2.5 Pro closes
    assert body["generationConfig"]["thinkingConfig"] == {"thinkingLevel": "medium"}
    assert "thinkingBudget" not in json.dumps(body)
