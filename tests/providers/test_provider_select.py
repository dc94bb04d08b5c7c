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


def test_defaults_are_anthropic_and_sonnet():
    config = resolve()
    assert (config.provider, config.model, config.base_url) == ("anthropic", "claude-sonnet-4-5", None)


def test_flags_beat_environment_beats_settings():
    settings = {"model": "claude-haiku-4-5"}
    assert resolve(settings=settings).model == "claude-haiku-4-5"
    assert resolve(settings=settings, ANTHROPIC_MODEL="claude-opus-4-1").model == "claude-opus-4-1"
    assert resolve(settings=settings, ANTHROPIC_MODEL="a", YOKE_MODEL="b").model == "b"
    assert resolve(None, "c", settings, ANTHROPIC_MODEL="a", YOKE_MODEL="b").model == "c"
    assert resolve("openai", None, YOKE_PROVIDER="anthropic").provider == "openai"


def test_aliases_map_to_ids_and_env_overrides_them():
    assert resolve(flag_model="opus").model == "claude-opus-4-1"
    assert resolve(flag_model="haiku").model == "claude-haiku-4-5"
    assert resolve(flag_model="sonnet[1m]").model == "claude-sonnet-4-5"
    assert resolve(flag_model="sonnet", ANTHROPIC_DEFAULT_SONNET_MODEL="my-sonnet").model == "my-sonnet"
    assert resolve(flag_model="default").model == "claude-sonnet-4-5"
    assert resolve(flag_model="claude-custom-7").model == "claude-custom-7"


def test_openai_variables_alone_mean_openai():
    config = resolve(OPENAI_BASE_URL="http://localhost:11434/v1")
    assert (config.provider, config.model, config.base_url) == (
        "openai",
        "gpt-4.1",
        "http://localhost:11434/v1",
    )
    assert resolve(OPENAI_API_KEY="k", OPENAI_MODEL="gpt-4o").model == "gpt-4o"
    # with an Anthropic key present the default stays Anthropic
    assert resolve(OPENAI_API_KEY="k", ANTHROPIC_API_KEY="a").provider == "anthropic"


def test_cloud_platform_variables_pick_bedrock_and_vertex():
    bedrock = resolve(CLAUDE_CODE_USE_BEDROCK="1", flag_model="haiku")
    assert bedrock.provider == "bedrock" and bedrock.model.startswith("us.anthropic.claude-haiku-4-5")
    vertex = resolve(CLAUDE_CODE_USE_VERTEX="true")
    assert vertex.provider == "vertex" and vertex.model == "claude-sonnet-4-5@20250929"
    assert resolve(CLAUDE_CODE_USE_BEDROCK="0").provider == "anthropic"


def test_settings_may_name_the_provider():
    assert resolve(settings={"provider": "openai"}).provider == "openai"


def test_unknown_provider_is_a_config_error_listing_choices():
    with pytest.raises(ProviderError) as info:
        resolve("gemini")
    assert info.value.kind == "config"
    assert str(info.value) == "unknown provider 'gemini' (choose anthropic, openai, bedrock, vertex, replay)"


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
