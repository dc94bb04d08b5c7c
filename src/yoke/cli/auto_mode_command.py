"""`yoke auto-mode`: what auto mode's classifier reads, as Claude Code's `claude auto-mode` shows it.

- `defaults`: the built-in rules, as JSON (a starting point for your own);
- `config`: the rules in effect in this folder (your `autoMode` sections where written, built-in ones
  otherwise), as JSON;
- `critique [--model M]`: the model reviews the rules you wrote (clarity, gaps, conflicts) and says how to
  improve them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

USAGE = """usage: yoke auto-mode <command>

Inspect the rules auto mode's classifier uses (--permission-mode auto).

commands:
  defaults                 print the built-in rules as JSON
  config                   print the rules in effect here as JSON: your autoMode sections where
                           written (user, local or managed settings; never the project's
                           shared .claude/settings.json), the built-in ones otherwise
  critique [--model M]     ask the model to review the rules you wrote"""

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


def auto_mode_command(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 1
    command, rest = argv[0], argv[1:]
    if command == "defaults" and rest and rest[0].split("=", 1)[0] == "--label":
        prefix = rest[0].split("=", 1)[1] if "=" in rest[0] else (rest[1] if len(rest) > 1 else None)
        if prefix is None:
            print("error: option '--label <prefix>' argument missing", file=sys.stderr)
            return 1
        return _defaults(prefix)
    if command == "reset":
        print(
            "yoke auto-mode reset: not available yet; remove the autoMode key from your settings",
            file=sys.stderr,
        )
        return 1
    if command in ("defaults", "config"):
        stop = _refuse_args(command, rest)
        if stop is not None:
            return stop
        return _defaults() if command == "defaults" else _config()
    if command == "critique":
        return _critique(rest)
    print(f"error: unknown command '{command}'\n{USAGE}", file=sys.stderr)
    return 1


def _refuse_args(command: str, rest: list[str]) -> int | None:
    """None when `command` may run (it takes no arguments), else the exit code (help printed: 0)."""
    if not rest:
        return None
    word = rest[0]
    if word in ("-h", "--help"):
        print(USAGE)
        return 0
    what = f"unknown option '{word}'" if word.startswith("-") else f"too many arguments for '{command}'"
    print(f"error: {what}", file=sys.stderr)
    return 1


def _write(rules: dict[str, list[str]]) -> int:
    sys.stdout.write(json.dumps(rules, indent=2, ensure_ascii=False) + "\n")
    return 0


def _defaults(label: str = "") -> int:
    """The built-in rules; with --label, only those whose label (the words before its colon) starts so."""
    from yoke.permissions.auto_mode_rules import DEFAULT_RULES

    return _write(
        {section: [r for r in rules if r.startswith(label)] for section, rules in DEFAULT_RULES.items()}
    )


def _loaded() -> tuple[Any, dict[str, Any]]:
    """This folder's settings and its autoMode object; problems are warned about on stderr."""
    from yoke.config.settings import load_settings
    from yoke.permissions.auto_mode_rules import auto_mode_config, config_problems

    settings = load_settings(Path.cwd())
    config = auto_mode_config(settings)
    for warning in [*settings.warnings, *config_problems(config)]:
        print(f"warning: {warning}", file=sys.stderr)
    return settings, config


def _config() -> int:
    from yoke.permissions.auto_mode_rules import effective_rules

    _, config = _loaded()
    return _write(effective_rules(config))


def _critique(rest: list[str]) -> int:
    model_flag = None
    while rest:
        word = rest.pop(0)
        if word in ("-h", "--help"):
            print(USAGE)
            return 0
        if word == "--model" or word.startswith("--model="):
            value = word.partition("=")[2] if "=" in word else (rest.pop(0) if rest else "")
            if not value:
                print("error: option '--model <model>' argument missing", file=sys.stderr)
                return 1
            model_flag = value
            continue
        what = f"unknown option '{word}'" if word.startswith("-") else "too many arguments for 'critique'"
        print(f"error: {what}", file=sys.stderr)
        return 1
    from yoke.permissions.auto_mode_rules import user_rules

    settings, config = _loaded()
    written = user_rules(config)
    if not written:
        print(
            'No custom auto mode rules found. Write them under "autoMode" in ~/.claude/settings.json or '
            ".claude/settings.local.json (`yoke auto-mode defaults` prints the built-in ones to start from)."
        )
        return 0
    import asyncio

    from yoke.providers.base import ProviderError

    try:
        answer = asyncio.run(_ask_model(settings, written, model_flag))
    except ProviderError as exc:
        print(f"yoke auto-mode critique: {exc}", file=sys.stderr)
        return 1
    print(answer.strip())
    return 0


async def _ask_model(settings: Any, written: dict[str, list[str]], model_flag: str | None) -> str:
    from contextlib import aclosing

    from yoke.messages import text_of
    from yoke.permissions.auto_mode_rules import DEFAULT_RULES
    from yoke.providers import base as pb
    from yoke.providers.select import make_provider, resolve_provider

    env = _settings_env(settings)
    config = resolve_provider(None, model_flag, settings.merged, env)
    provider = make_provider(config)
    request = pb.ModelRequest(
        model=config.model,
        system=[
            {"type": "text", "text": CRITIQUE_SYSTEM.format(defaults=json.dumps(DEFAULT_RULES, indent=2))}
        ],
        messages=[{"role": "user", "content": "My auto mode rules:\n" + json.dumps(written, indent=2)}],
        max_tokens=4096,
    )
    try:
        async with aclosing(provider.stream(request)) as stream:
            async for event in stream:
                if isinstance(event, pb.MessageStop):
                    return text_of(event.message)
    finally:
        await provider.aclose()
    raise pb.ProviderError("connection", "the model's answer ended before it was complete")


def _settings_env(settings: Any) -> dict[str, str]:
    """The environment a session here would have: the shell's, with settings' `env` applied."""
    from yoke.config.env_policy import apply_env, settings_env
    from yoke.config.trust import is_trusted

    env = dict(os.environ)
    sources = list(settings.sources)
    trusted = is_trusted(settings.cwd, settings.yoke_home, home=settings.home, claude_dir=settings.claude_dir)
    apply_env(settings_env(sources, trusted, []), env)
    return env
