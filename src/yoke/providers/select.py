"""Choosing the provider and model for a run, and constructing the provider.

Precedence, highest first: the `--provider` / `--model` (and `--replay`) flags; the environment (YOKE_PROVIDER,
YOKE_MODEL, YOKE_REPLAY, CLAUDE_CODE_USE_BEDROCK / _VERTEX, ANTHROPIC_MODEL or OPENAI_MODEL, and OpenAI
variables alone meaning OpenAI); then settings (`provider`, `model`). The settings' own `env` block has
already been merged into `env` by the caller.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from yoke.providers.base import Provider, ProviderError

PROVIDERS = ("anthropic", "openai", "bedrock", "vertex", "replay")
DEFAULT_MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai": "gpt-4.1",
    "bedrock": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "vertex": "claude-sonnet-4-5@20250929",
    "replay": "claude-sonnet-4-5",
}
# Aliases as Claude Code spells them; each platform names the same models differently.
ALIASES = {
    "anthropic": {"sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-1", "haiku": "claude-haiku-4-5"},
    "bedrock": {
        "sonnet": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "opus": "us.anthropic.claude-opus-4-1-20250805-v1:0",
        "haiku": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    },
    "vertex": {
        "sonnet": "claude-sonnet-4-5@20250929",
        "opus": "claude-opus-4-1@20250805",
        "haiku": "claude-haiku-4-5@20251001",
    },
}
ALIASES["replay"] = ALIASES["anthropic"]


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    provider: str  # one of PROVIDERS
    model: str
    base_url: str | None = None
    replay_path: str | None = None
    env: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)


def resolve_provider(
    flag_provider: str | None,
    flag_model: str | None,
    settings: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    flag_replay: str | None = None,
) -> ProviderConfig:
    replay_path = flag_replay or env.get("YOKE_REPLAY") or None
    provider = _pick_provider(flag_provider, flag_replay, settings, env)
    model = (
        flag_model
        or env.get("YOKE_MODEL")
        or _provider_model_variable(provider, env)
        or _str_setting(settings, "model")
        or "default"
    )
    model = resolve_model_alias(provider, model.strip(), env)
    base_url = None
    if provider in ("anthropic", "replay"):
        base_url = env.get("ANTHROPIC_BASE_URL") or None
    elif provider == "openai":
        base_url = env.get("OPENAI_BASE_URL") or None
    return ProviderConfig(provider, model, base_url, replay_path if provider == "replay" else None, env)


def make_provider(config: ProviderConfig, transport: Any = None) -> Provider:
    """Construct the configured provider. `transport` (see providers/transport.py) replaces the network for
    the HTTP providers, e.g. with a recording transport."""
    env = config.env
    if config.provider == "anthropic":
        from yoke.providers.anthropic import AnthropicProvider

        return AnthropicProvider.from_env(env, base_url=config.base_url, transport=transport)
    if config.provider == "openai":
        from yoke.providers.openai import OpenAIProvider

        return OpenAIProvider.from_env(env, base_url=config.base_url, transport=transport)
    if config.provider in ("bedrock", "vertex"):
        from yoke.providers.cloud import CloudProvider

        return CloudProvider.from_env(config.provider, env)  # type: ignore[arg-type]
    if config.provider == "replay":
        from pathlib import Path

        from yoke.providers.replay import ReplayProvider

        if not config.replay_path:
            raise ProviderError(
                "config", "the replay provider needs a cassette: pass --replay FILE or set YOKE_REPLAY"
            )
        return ReplayProvider(Path(config.replay_path))
    raise _unknown(config.provider)


def resolve_model_alias(provider: str, model: str, env: Mapping[str, str]) -> str:
    """`sonnet` / `opus` / `haiku` (optionally with Claude Code's `[1m]` suffix) and `default` become ids;
    ANTHROPIC_DEFAULT_{SONNET,OPUS,HAIKU}_MODEL override the built-in choices."""
    name = model.lower()
    if name == "default":
        return DEFAULT_MODELS.get(provider, DEFAULT_MODELS["anthropic"])
    base = name.removesuffix("[1m]")
    table = ALIASES.get(provider)
    if table is None or base not in table:
        return model
    override = env.get(f"ANTHROPIC_DEFAULT_{base.upper()}_MODEL")
    return override or table[base]


def _pick_provider(
    flag_provider: str | None, flag_replay: str | None, settings: Mapping[str, Any], env: Mapping[str, str]
) -> str:
    chosen = flag_provider or ("replay" if flag_replay else None) or env.get("YOKE_PROVIDER")
    if not chosen and env.get("YOKE_REPLAY"):
        chosen = "replay"
    if not chosen:
        chosen = _provider_from_platform_env(env) or _str_setting(settings, "provider") or "anthropic"
    name = chosen.strip().lower()
    if name not in PROVIDERS:
        raise _unknown(chosen)
    return name


def _provider_from_platform_env(env: Mapping[str, str]) -> str | None:
    if _truthy(env.get("CLAUDE_CODE_USE_BEDROCK")):
        return "bedrock"
    if _truthy(env.get("CLAUDE_CODE_USE_VERTEX")):
        return "vertex"
    anthropic_vars = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")
    openai_vars = ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    if any(env.get(v) for v in openai_vars) and not any(env.get(v) for v in anthropic_vars):
        return "openai"
    return None


def _provider_model_variable(provider: str, env: Mapping[str, str]) -> str | None:
    name = "OPENAI_MODEL" if provider == "openai" else "ANTHROPIC_MODEL"
    return env.get(name) or None


def _str_setting(settings: Mapping[str, Any], key: str) -> str | None:
    value = settings.get(key)
    return value if isinstance(value, str) and value.strip() else None


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _unknown(name: str) -> ProviderError:
    choices = ", ".join(PROVIDERS)
    return ProviderError("config", f"unknown provider '{name}' (choose {choices})")
