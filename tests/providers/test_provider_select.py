"""Choosing provider and model from flags, environment and settings; constructing the provider."""

from __future__ import annotations

import json

import pytest

from yoke.providers.anthropic import AnthropicProvider
from yoke.providers.base import ProviderError
from yoke.providers.cloud import CloudProvider
from yoke.providers.openai import OpenAIProvider
from yoke.providers.select import make_provider, resolve_provider


def resolve(flag_provider=None, flag_model=None, settings=None, **env):
    return resolve_provider(flag_provider, flag_model, settings or {}, env)


def test_defaults_are_anthropic_and_opus():
    # Claude Code 2.1.330's default model (its request read against the scripted server)
    config = resolve()
    assert (config.provider, config.model, config.base_url) == ("anthropic", "claude-opus-5-5", None)


def test_flags_beat_environment_beats_settings():
    settings = {"model": "claude-haiku-4-5"}
    assert resolve(settings=settings).model == "claude-haiku-4-5"
    assert resolve(settings=settings, ANTHROPIC_MODEL="claude-opus-4-1").model == "claude-opus-4-1"
    assert resolve(settings=settings, ANTHROPIC_MODEL="a", YOKE_MODEL="b").model == "b"
    assert resolve(None, "c", settings, ANTHROPIC_MODEL="a", YOKE_MODEL="b").model == "c"
    assert resolve("openai", None, YOKE_PROVIDER="anthropic").provider == "openai"


def test_aliases_map_to_ids_and_env_overrides_them():
    # as Claude Code's current release resolves them on the Anthropic API
    assert resolve(flag_model="opus").model == "claude-opus-5-5"
    assert resolve(flag_model="haiku").model == "claude-haiku-5-5"
    assert resolve(flag_model="fable").model == "claude-fable-5-2"
    assert resolve(flag_model="sonnet[1m]").model == "claude-sonnet-5-5"
    assert resolve(flag_model="best").model == "claude-opus-5-5"
    assert resolve(flag_model="sonnet", ANTHROPIC_DEFAULT_SONNET_MODEL="my-sonnet").model == "my-sonnet"
    assert resolve(flag_model="default").model == "claude-opus-5-5"
    assert resolve(flag_model="claude-custom-7").model == "claude-custom-7"


def test_openai_variables_alone_mean_openai():
    config = resolve(OPENAI_BASE_URL="http://localhost:11434/v1")
    assert (config.provider, config.model, config.base_url) == (
        "openai",
        "gpt-5.5",  # a current family (models.json: gpt-5.1 shuts down 2027-04-01)
        "http://localhost:11434/v1",
    )
    assert resolve(OPENAI_API_KEY="k", OPENAI_MODEL="gpt-4o").model == "gpt-4o"
    # with an Anthropic key present the default stays Anthropic
    assert resolve(OPENAI_API_KEY="k", ANTHROPIC_API_KEY="a").provider == "anthropic"


def test_cloud_platform_variables_pick_bedrock_and_vertex():
    bedrock = resolve(CLAUDE_CODE_USE_BEDROCK="1", flag_model="haiku")
    assert bedrock.provider == "bedrock" and bedrock.model.startswith("us.anthropic.claude-haiku-4-5")
    vertex = resolve(CLAUDE_CODE_USE_VERTEX="true")
    # Claude Code 2.1.330's defaults on the cloud platforms, read from its requests
    assert vertex.provider == "vertex" and vertex.model == "claude-opus-5-5"
    assert resolve(CLAUDE_CODE_USE_BEDROCK="1").model == "us.anthropic.claude-opus-5-5"
    assert resolve(CLAUDE_CODE_USE_VERTEX="1", flag_model="fable").model == "claude-fable-5-2"
    assert resolve(CLAUDE_CODE_USE_FOUNDRY="1").model == "claude-sonnet-5-5"
    assert resolve(CLAUDE_CODE_USE_BEDROCK="0").provider == "anthropic"


def test_settings_may_name_the_provider():
    assert resolve(settings={"provider": "openai"}).provider == "openai"


def test_unknown_provider_is_a_config_error_listing_choices():
    with pytest.raises(ProviderError) as info:
        resolve("palm")
    assert info.value.kind == "config"
    assert str(info.value) == (
        "unknown provider 'palm' (choose anthropic, openai, openai-responses, gemini, grok, bedrock, vertex, "
        "foundry, replay)"
    )


def test_replay_from_flag_or_environment_and_requires_a_file():
    config = resolve_provider(None, None, {}, {}, flag_replay="run.jsonl")
    assert (config.provider, config.replay_path) == ("replay", "run.jsonl")
    assert resolve(YOKE_REPLAY="x.jsonl").provider == "replay"
    bare = resolve("replay")  # the cassette may come from elsewhere; only constructing needs it
    assert (bare.provider, bare.replay_path) == ("replay", None)
    with pytest.raises(ProviderError) as info:
        make_provider(bare)
    assert info.value.kind == "config" and "--replay" in str(info.value)


def test_make_provider_builds_each_kind_from_its_environment():
    anthropic = make_provider(
        resolve(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL="http://a.test", YOKE_MAX_RETRIES="2")
    )
    assert isinstance(anthropic, AnthropicProvider)
    assert (anthropic.base_url, anthropic.api_key, anthropic.retry.max_retries) == ("http://a.test", "k", 2)
    openai = make_provider(resolve("openai", OPENAI_BASE_URL="http://o.test/v1/"))
    assert isinstance(openai, OpenAIProvider) and openai.base_url == "http://o.test/v1"
    bedrock = make_provider(resolve(CLAUDE_CODE_USE_BEDROCK="1", AWS_REGION="eu-west-1"))
    assert isinstance(bedrock, CloudProvider) and bedrock.region == "eu-west-1"


def test_make_provider_replay_reads_the_cassette(tmp_path):
    cassette = tmp_path / "run.jsonl"
    cassette.write_text(
        json.dumps({"type": "cassette", "version": 1, "provider": "anthropic", "model": "m"}) + "\n"
    )
    provider = make_provider(resolve_provider(None, None, {}, {}, flag_replay=str(cassette)))
    assert provider.name == "replay"


def test_claude_code_switches_pick_each_vendor():
    assert resolve(CLAUDE_CODE_USE_GEMINI="1", GEMINI_API_KEY="g").provider == "gemini"
    assert resolve(CLAUDE_CODE_USE_GROK="1").provider == "grok"
    assert resolve(CLAUDE_CODE_USE_OPENAI="1").provider == "openai"
    assert resolve(CLAUDE_CODE_USE_FOUNDRY="1").provider == "foundry"
    assert resolve("responses").provider == "openai-responses"


def test_model_mapping_per_vendor():
    # GEMINI_MODEL, then GEMINI_DEFAULT_*, then ANTHROPIC_DEFAULT_* (deprecated), then the built-in table
    # gemini-2.5-pro shuts down 2026-12-01 and gemini-3-pro-preview did on 2026-03-09: neither is a default
    assert resolve("gemini").model == "gemini-3.1-pro-preview"
    assert resolve("gemini", GEMINI_MODEL="gemini-3-flash-preview").model == "gemini-3-flash-preview"
    assert resolve("gemini", "opus").model == "gemini-3.1-pro-preview"
    assert resolve("gemini", "haiku", GEMINI_DEFAULT_HAIKU_MODEL="gemini-2.5-flash-lite").model == (
        "gemini-2.5-flash-lite"
    )
    assert resolve("gemini", "sonnet", ANTHROPIC_DEFAULT_SONNET_MODEL="x-sonnet").model == "x-sonnet"
    # a Claude Code settings file naming a Claude model still works on another vendor
    assert resolve("gemini", settings={"model": "claude-opus-4-7"}).model == "gemini-3.1-pro-preview"
    assert resolve("grok", "claude-sonnet-4-6").model == "grok-4.3"  # xAI retired grok-code-fast-1 2026-05-15
    assert resolve("grok", GROK_MODEL="grok-4.6").model == "grok-4.6"
    # where the vendor has no mapping the name passes through (OpenRouter serves Claude itself)
    assert resolve("openai", "claude-sonnet-4-6").model == "claude-sonnet-4-6"
    assert resolve("gemini", "gemini-2.5-flash").model == "gemini-2.5-flash"


def test_models_openai_serves_only_through_responses_pick_that_api():
    assert resolve("openai", "gpt-5.1-codex").provider == "openai-responses"
    assert resolve("openai", "gpt-5-pro").provider == "openai-responses"
    assert resolve("openai", "gpt-5.1").provider == "openai"
    # a compatible server is not OpenAI: keep Chat Completions
    assert resolve("openai", "gpt-5.1-codex", OPENAI_BASE_URL="http://localhost:8000/v1").provider == "openai"


def test_make_provider_builds_the_new_vendors():
    from yoke.providers.foundry import FoundryProvider
    from yoke.providers.gemini import GeminiProvider
    from yoke.providers.responses import ResponsesProvider

    gemini = make_provider(resolve("gemini", GEMINI_API_KEY="g"))
    assert isinstance(gemini, GeminiProvider)
    assert gemini.base_url == "https://generativelanguage.googleapis.com/v1beta"
    grok = make_provider(resolve("grok", XAI_API_KEY="x"))
    assert isinstance(grok, OpenAIProvider) and grok.base_url == "https://api.x.ai/v1" and grok.name == "grok"
    responses = make_provider(resolve("openai-responses", OPENAI_API_KEY="o"))
    assert isinstance(responses, ResponsesProvider)
    foundry = make_provider(resolve(CLAUDE_CODE_USE_FOUNDRY="1", ANTHROPIC_FOUNDRY_RESOURCE="acme"))
    assert isinstance(foundry, FoundryProvider)
    assert foundry.base_url == "https://acme.services.ai.azure.com/anthropic"
    explicit = make_provider(resolve("foundry", ANTHROPIC_FOUNDRY_BASE_URL="https://gw.test/anthropic/"))
    assert explicit.base_url == "https://gw.test/anthropic"
    with pytest.raises(ProviderError) as info:
        make_provider(resolve("foundry"))
    assert info.value.kind == "config" and "ANTHROPIC_FOUNDRY_RESOURCE" in str(info.value)
    with pytest.raises(ProviderError) as info:
        make_provider(resolve("grok"))
    assert info.value.kind == "authentication" and "XAI_API_KEY" in str(info.value)
