"""Planning a mid-session model switch (`set_model`, `/model`): which provider, which model, and the history
converted for it. The session applies the plan on its next request.

    plan = plan_model_switch("gemini-2.5-pro", current_provider="anthropic",
                             current_model="claude-sonnet-4-6", messages=history, env=os.environ)
    # plan.provider is a new provider object when the vendor changes (None: keep the current one),
    # plan.messages the converted history, plan.notice the line to show, plan.context_window the new window

A spec is an alias (`opus`, resolved for the current provider), a model id (its vendor inferred from the
name: `gemini-…`, `gpt-…`/`o3…`, `grok-…`, `claude-…`), or `provider:model` to say the vendor outright.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from yoke.messages import Message
from yoke.providers.history import switch_provider
from yoke.providers.select import (
    ALIAS_NAMES,
    CLAUDE_PLATFORMS,
    PROVIDERS,
    _provider_table,
    make_provider,
    resolve_model_alias,
    resolve_provider,
)

VENDOR_PREFIXES = (
    ("gemini-", "gemini"),
    ("models/gemini-", "gemini"),
    ("grok-", "grok"),
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("codex-", "openai"),
    ("claude-", "anthropic"),
)


@dataclass(frozen=True, slots=True)
class ModelSwitchPlan:
    provider_name: str
    model: str
    provider: Any  # a new provider when the vendor changes, else None
    messages: list[Message]
    notice: str
    context_window: int


def plan_model_switch(
    spec: str,
    *,
    current_provider: str,
    current_model: str,
    messages: list[Message],
    env: Mapping[str, str],
    settings: Mapping[str, Any] | None = None,
) -> ModelSwitchPlan:
    """Raises ProviderError (one line) when the new vendor cannot be set up (e.g. its key is missing)."""
    from yoke.providers.tokens import context_window

    target_provider, name = _split(spec.strip(), current_provider, env)
    config = resolve_provider(target_provider, name, settings or {}, env)
    provider = None
    if config.provider != current_provider:
        provider = make_provider(config)
    switch = switch_provider(
        messages,
        from_model=current_model,
        to_model=config.model,
        from_provider=current_provider,
        to_provider=config.provider,
    )
    return ModelSwitchPlan(
        config.provider,
        config.model,
        provider,
        switch.messages,
        switch.notice + _unknown_note(config.model, config.provider, settings or {}),
        context_window(config.model, env),
    )


def _unknown_note(model: str, provider: str, settings: Mapping[str, Any]) -> str:
    """A name no vendor table lists (a typo, a local model): said once, and sent as given."""
    from yoke.providers.pricing import known_model

    if known_model(model) or provider == "replay":
        return ""
    return f" No provider Yoke knows lists {model!r}; it is sent to {provider} as given."


def _split(spec: str, current: str, env: Mapping[str, str]) -> tuple[str, str]:
    head, colon, rest = spec.partition(":")
    if colon and head.lower() in PROVIDERS and rest:
        return head.lower(), rest
    lowered = spec.lower()
    alias = lowered.removesuffix("[1m]")
    if alias in ALIAS_NAMES and resolve_model_alias(current, spec, env) == spec:
        # `/model sonnet` after `/model gpt-…`: the alias means the session's own vendor's model, not a
        # model called "sonnet" on a vendor with no such alias
        home = resolve_provider(None, None, {}, env).provider
        return (home if alias in _provider_table(home)["aliases"] else "anthropic"), spec
    for prefix, vendor in VENDOR_PREFIXES:
        if lowered.startswith(prefix):
            if vendor == "anthropic" and current in CLAUDE_PLATFORMS:
                return current, spec  # Claude stays on the platform the session uses (Bedrock, Foundry, …)
            if vendor == "openai" and current in ("openai", "openai-responses"):
                return "openai", spec
            return vendor, spec
    return current, spec
