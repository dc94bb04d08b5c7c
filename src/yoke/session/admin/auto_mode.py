"""Auto mode's rules as `yoke auto-mode` shows them: the built-in ones, the ones in effect in a folder (the
user's `autoMode` sections where written), and a model's review of the rules the user wrote."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from yoke.session.admin import AdminError

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator

CRITIQUE_SYSTEM = """You review the custom rules a user wrote for the auto mode of a coding agent. In auto mode a \
classifier model decides, for each tool call the agent wants to make, whether it runs without asking the \
user. The classifier reads the rules as part of its own instructions, in four sections:
- environment: facts about where the agent works (trusted repositories, buckets, domains, services);
- allow: exceptions to the soft-deny rules;
- soft_deny: actions blocked unless an allow rule or the user's clear request covers them;
- hard_deny: actions always blocked, whatever the user asked.
A section the user writes replaces the built-in one unless it contains "$defaults", which splices the \
built-in rules in at that place.

Review the user's rules for: wording a classifier could misread or apply too broadly; allow rules that \
open more than the user probably meant (arbitrary code, secrets, destructive or irreversible actions); \
rules that conflict or repeat each other; built-in protections lost by replacing a section without \
"$defaults"; and gaps worth a rule. Be concrete: quote the rule, say what is wrong, give a better wording. \
If the rules are good, say so briefly.

The built-in rules:
{defaults}"""


def default_rules() -> dict[str, list[str]]:
    """The built-in rules, by section (environment, allow, soft_deny, hard_deny)."""
    from yoke.permissions.auto_mode_rules import DEFAULT_RULES

    return DEFAULT_RULES


def loaded(cwd: Path) -> tuple[Any, dict[str, Any], list[str]]:
    """`cwd`'s settings, its autoMode object, and the warnings about either."""
    from yoke.config.settings import load_settings
    from yoke.permissions.auto_mode_rules import auto_mode_config, config_problems

    settings = load_settings(cwd)
    config = auto_mode_config(settings)
    return settings, config, [*settings.warnings, *config_problems(config)]


def effective_rules(config: dict[str, Any]) -> dict[str, list[str]]:
    """The rules in effect: the user's sections where written (`$defaults` spliced), built-in ones otherwise."""
    from yoke.permissions.auto_mode_rules import effective_rules as effective

    return effective(config)


def user_rules(config: dict[str, Any]) -> dict[str, list[str]]:
    """Only the sections the user wrote."""
    from yoke.permissions.auto_mode_rules import user_rules as written

    return written(config)


async def critique(settings: Any, written: dict[str, list[str]], model_flag: str | None) -> str:
    """The model's review of `written` (the provider and model a session in that folder would use, or
    `model_flag`); AdminError with the provider's one line when it fails."""
    from contextlib import aclosing

    from yoke.messages import text_of
    from yoke.providers import base as pb
    from yoke.providers.select import make_provider, resolve_provider

    env = _settings_env(settings)
    try:
        config = resolve_provider(None, model_flag, settings.merged, env)
        provider = make_provider(config)
        request = pb.ModelRequest(
            model=config.model,
            system=[
                {
                    "type": "text",
                    "text": CRITIQUE_SYSTEM.format(defaults=json.dumps(default_rules(), indent=2)),
                }
            ],
            messages=[{"role": "user", "content": "My auto mode rules:\n" + json.dumps(written, indent=2)}],
            max_tokens=4096,
        )
        try:
            answer = cast("AsyncGenerator[pb.ProviderEvent, None]", provider.stream(request))
            async with aclosing(answer) as stream:
                async for event in stream:
                    if isinstance(event, pb.MessageStop):
                        return text_of(event.message)
        finally:
            await provider.aclose()
    except pb.ProviderError as exc:
        raise AdminError(str(exc)) from None
    raise AdminError("the model's answer ended before it was complete")


def _settings_env(settings: Any) -> dict[str, str]:
    """The environment a session here would have: the shell's, with settings' `env` applied."""
    from yoke.config.env_policy import apply_env, settings_env
    from yoke.config.trust import is_trusted

    env = dict(os.environ)
    sources = list(settings.sources)
    trusted = is_trusted(settings.cwd, settings.yoke_home, home=settings.home, claude_dir=settings.claude_dir)
    apply_env(settings_env(sources, trusted, []), env)
    return env
