"""Choosing the provider and model for a run, and constructing the provider.

Precedence, highest first: the `--provider` / `--model` (and `--replay`) flags; the environment (YOKE_PROVIDER,
YOKE_MODEL, YOKE_REPLAY, Claude Code's CLAUDE_CODE_USE_{BEDROCK,VERTEX,FOUNDRY,OPENAI,GEMINI,GROK} switches,
the provider's model variable such as ANTHROPIC_MODEL, OPENAI_MODEL, GEMINI_MODEL or GROK_MODEL, and OpenAI
variables alone meaning OpenAI); then settings (`provider`, `model`). The settings' own `env` block has
already been merged into `env` by the caller.

Model names are mapped per vendor: `sonnet` / `opus` / `haiku` / `best` (and `default`) become that provider's
model from `models.json`, overridable with `<VENDOR>_DEFAULT_<ALIAS>_MODEL` (then, as Claude Code honours
it, `ANTHROPIC_DEFAULT_<ALIAS>_MODEL`). A Claude model id on a vendor that does not serve Claude (a Claude
Code settings file saying `"model": "claude-opus-4-7"`) is mapped by its family the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from yoke.providers.base import Provider, ProviderError
from yoke.records import Record

PROVIDERS = (
    "anthropic",
    "openai",
    "openai-responses",
    "gemini",
    "grok",
    "bedrock",
    "vertex",
    "foundry",
    "replay",
)
CLAUDE_PLATFORMS = ("anthropic", "bedrock", "vertex", "foundry", "replay")
# Claude Code's switches, in the order they are checked.
PLATFORM_SWITCHES = (
    ("CLAUDE_CODE_USE_BEDROCK", "bedrock"),
    ("CLAUDE_CODE_USE_VERTEX", "vertex"),
    ("CLAUDE_CODE_USE_FOUNDRY", "foundry"),
    ("ANTHROPIC_CODE_USE_FOUNDRY", "foundry"),
    ("CLAUDE_CODE_USE_GEMINI", "gemini"),
    ("CLAUDE_CODE_USE_GROK", "grok"),
    ("CLAUDE_CODE_USE_OPENAI", "openai"),
)
MODEL_VARIABLES = {
    "openai": ("OPENAI_MODEL",),
    "openai-responses": ("OPENAI_MODEL",),
    "gemini": ("GEMINI_MODEL",),
    "grok": ("GROK_MODEL", "XAI_MODEL"),
}
VENDOR_PREFIX = {"gemini": "GEMINI", "grok": "GROK", "openai": "OPENAI", "openai-responses": "OPENAI"}
ALIAS_NAMES = ("sonnet", "opus", "haiku", "fable", "best")
_CLAUDE_FAMILY = re.compile(r"^claude-(?:[\d.-]+-)?(opus|sonnet|haiku)\b")


def _provider_table(provider: str) -> dict[str, Any]:
    from yoke.providers.pricing import model_data

    table = model_data()["providers"]
    return table.get("anthropic" if provider == "replay" else provider) or table["anthropic"]


def __getattr__(name: str) -> Any:
    # DEFAULT_MODELS / ALIASES are views of models.json, kept for callers that read them directly.
    if name == "DEFAULT_MODELS":
        return {p: _provider_table(p)["default"] for p in PROVIDERS}
    if name == "ALIASES":
        return {p: dict(_provider_table(p)["aliases"]) for p in PROVIDERS}
    raise AttributeError(name)


class ProviderConfig(Record):
    __slots__ = ("provider", "model", "base_url", "replay_path", "env")

    def __init__(
        self,
        provider: str,  # one of PROVIDERS
        model: str,
        base_url: str | None = None,
        replay_path: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.base_url = base_url
        self.replay_path = replay_path
        self.env = {} if env is None else env


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
        or provider_model_variable(provider, env)
        or _str_setting(settings, "model")
        or "default"
    )
    model = resolve_model_alias(provider, model.strip(), env)
    base_url = base_url_for(provider, env)
    if provider == "openai" and _is_openai_api(base_url):
        from yoke.providers.pricing import responses_only

        if responses_only(model):  # OpenAI serves these models through the Responses API only
            provider = "openai-responses"
    return ProviderConfig(provider, model, base_url, replay_path if provider == "replay" else None, env)


def base_url_for(provider: str, env: Mapping[str, str]) -> str | None:
    if provider in ("anthropic", "replay"):
        return env.get("ANTHROPIC_BASE_URL") or None
    if provider in ("openai", "openai-responses"):
        return env.get("OPENAI_BASE_URL") or None
    if provider == "gemini":
        return env.get("GEMINI_BASE_URL") or None
    if provider == "grok":
        return env.get("GROK_BASE_URL") or env.get("XAI_BASE_URL") or None
    if provider == "foundry":
        return env.get("ANTHROPIC_FOUNDRY_BASE_URL") or None
    return None


def make_provider(config: ProviderConfig, transport: Any = None) -> Provider:
    """Construct the configured provider. `transport` (see providers/transport.py) replaces the network for
    the HTTP providers, e.g. with a recording transport."""
    env = config.env
    kind = config.provider
    if kind == "anthropic":
        from yoke.providers.anthropic import AnthropicProvider

        return AnthropicProvider.from_env(env, base_url=config.base_url, transport=transport)
    if kind == "foundry":
        from yoke.providers.foundry import foundry_provider

        return foundry_provider(env, transport=transport)
    if kind in ("openai", "grok"):
        from yoke.providers.openai import OpenAIProvider

        if kind == "grok":
            return OpenAIProvider.for_grok(env, base_url=config.base_url, transport=transport)
        return OpenAIProvider.from_env(env, base_url=config.base_url, transport=transport)
    if kind == "openai-responses":
        from yoke.providers.responses import ResponsesProvider

        return ResponsesProvider.from_env(env, base_url=config.base_url, transport=transport)
    if kind == "gemini":
        from yoke.providers.gemini import GeminiProvider

        return GeminiProvider.from_env(env, base_url=config.base_url, transport=transport)
    if kind in ("bedrock", "vertex"):
        from yoke.providers.cloud import CloudProvider

        return CloudProvider.from_env("bedrock" if kind == "bedrock" else "vertex", env)
    if kind == "replay":
        from pathlib import Path

        from yoke.providers.replay import ReplayProvider

        if not config.replay_path:
            raise ProviderError(
                "config", "the replay provider needs a cassette: pass --replay FILE or set YOKE_REPLAY"
            )
        return ReplayProvider(Path(config.replay_path))
    raise _unknown(kind)


def resolve_model_alias(provider: str, model: str, env: Mapping[str, str]) -> str:
    """`sonnet` / `opus` / `haiku` / `fable` / `best` (optionally with Claude Code's `[1m]` suffix) and `default`
    become this provider's ids; on a vendor that does not serve Claude, a Claude id maps by its family."""
    table = _provider_table(provider)
    name = model.lower()
    if name == "default":
        return table["default"]
    base = name.removesuffix("[1m]")
    if base not in ALIAS_NAMES and provider not in CLAUDE_PLATFORMS:
        family = _CLAUDE_FAMILY.match(base)
        if family is None or family.group(1) not in table["aliases"]:
            return model
        base = family.group(1)
    if base not in ALIAS_NAMES:
        return model
    vendor = VENDOR_PREFIX.get(provider)
    for variable in (f"{vendor}_DEFAULT_{base.upper()}_MODEL" if vendor else None, _anthropic_var(base)):
        if variable and env.get(variable):
            return env[variable]
    return table["aliases"].get(base, model)


def _anthropic_var(alias: str) -> str | None:
    return None if alias == "best" else f"ANTHROPIC_DEFAULT_{alias.upper()}_MODEL"


def _pick_provider(
    flag_provider: str | None, flag_replay: str | None, settings: Mapping[str, Any], env: Mapping[str, str]
) -> str:
    chosen = flag_provider or ("replay" if flag_replay else None) or env.get("YOKE_PROVIDER")
    if not chosen and env.get("YOKE_REPLAY"):
        chosen = "replay"
    if not chosen:
        chosen = _provider_from_platform_env(env) or _str_setting(settings, "provider") or "anthropic"
    name = chosen.strip().lower()
    name = {"responses": "openai-responses", "xai": "grok", "azure": "foundry"}.get(name, name)
    if name not in PROVIDERS:
        raise _unknown(chosen)
    return name


def _provider_from_platform_env(env: Mapping[str, str]) -> str | None:
    for variable, provider in PLATFORM_SWITCHES:
        if _truthy(env.get(variable)):
            return provider
    anthropic_vars = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")
    openai_vars = ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    if any(env.get(v) for v in openai_vars) and not any(env.get(v) for v in anthropic_vars):
        return "openai"
    return None


def provider_model_variable(provider: str, env: Mapping[str, str]) -> str | None:
    for name in MODEL_VARIABLES.get(provider, ("ANTHROPIC_MODEL",)):
        if env.get(name):
            return env[name]
    return None


def _is_openai_api(base_url: str | None) -> bool:
    from urllib.parse import urlsplit

    return base_url is None or urlsplit(base_url).hostname == "api.openai.com"


def _str_setting(settings: Mapping[str, Any], key: str) -> str | None:
    value = settings.get(key)
    return value if isinstance(value, str) and value.strip() else None


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _unknown(name: str) -> ProviderError:
    choices = ", ".join(PROVIDERS)
    return ProviderError("config", f"unknown provider '{name}' (choose {choices})")
