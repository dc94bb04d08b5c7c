"""`yoke auto-mode`: what auto mode's classifier reads, as Claude Code's `claude auto-mode` shows it.

- `defaults`: the built-in rules, as JSON (a starting point for your own);
- `config`: the rules in effect in this folder (your `autoMode` sections where written, built-in ones
  otherwise), as JSON;
- `critique [--model M]`: the model reviews the rules you wrote (clarity, gaps, conflicts) and says how to
  improve them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from yoke.session.admin import AdminError
from yoke.session.admin import auto_mode as rules_admin

USAGE = """usage: yoke auto-mode <command>

Inspect the rules auto mode's classifier uses (--permission-mode auto).

commands:
  defaults                 print the built-in rules as JSON
  config                   print the rules in effect here as JSON: your autoMode sections where
                           written (user, local or managed settings; never the project's
                           shared .claude/settings.json), the built-in ones otherwise
  critique [--model M]     ask the model to review the rules you wrote"""


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
    return _write(
        {
            section: [r for r in rules if r.startswith(label)]
            for section, rules in rules_admin.default_rules().items()
        }
    )


def _loaded() -> tuple[Any, dict[str, Any]]:
    """This folder's settings and its autoMode object; problems are warned about on stderr."""
    settings, config, warnings = rules_admin.loaded(Path.cwd())
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return settings, config


def _config() -> int:
    _, config = _loaded()
    return _write(rules_admin.effective_rules(config))


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
    settings, config = _loaded()
    written = rules_admin.user_rules(config)
    if not written:
        print(
            'No custom auto mode rules found. Write them under "autoMode" in ~/.claude/settings.json or '
            ".claude/settings.local.json (`yoke auto-mode defaults` prints the built-in ones to start from)."
        )
        return 0
    import asyncio

    try:
        answer = asyncio.run(rules_admin.critique(settings, written, model_flag))
    except AdminError as exc:
        print(f"yoke auto-mode critique: {exc}", file=sys.stderr)
        return 1
    print(answer.strip())
    return 0
