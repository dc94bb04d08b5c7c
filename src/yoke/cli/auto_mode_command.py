"""`yoke auto-mode`: what auto mode's classifier reads, as Claude Code's `claude auto-mode` shows it.

- `defaults`: the built-in rules, as JSON (a starting point for your own);
- `config`: the rules in effect in this folder (your `autoMode` sections where written, built-in ones
  otherwise), as JSON;
- `critique [--model M]`: the model reviews the rules you wrote (clarity, gaps, conflicts) and says how to
  improve them;
- `reset [-y]`: removes the `autoMode` section of your user settings file (asked first; `-y` skips the
  question, and without a terminal to ask in nothing is removed), as 2.1.332 does.
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
  critique [--model M]     ask the model to review the rules you wrote
  reset [-y]               remove the autoMode section of your user settings file"""


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
        return _reset(rest)
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


def _reset(rest: list[str]) -> int:
    """Claude Code's `auto-mode reset`: the user settings file's `autoMode` section removed, after a yes."""
    import os

    from yoke.config.settings import claude_config_dir
    from yoke.config.settings_write import write_setting
    from yoke.jsonsafe import loads

    yes = any(word in ("-y", "--yes") for word in rest)
    unknown = [word for word in rest if word not in ("-y", "--yes")]
    if unknown:
        return _refuse_args("reset", unknown) or 1
    path = claude_config_dir(env=os.environ) / "settings.json"
    try:
        data = loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError) as exc:
        print(f"yoke auto-mode reset: cannot read {path}: {exc}", file=sys.stderr)
        return 1
    section = data.get("autoMode") if isinstance(data, dict) else None
    if section is None:
        print(f"Auto mode is already at its defaults: {path} has no autoMode section.")
        return 0
    print(f"This removes the autoMode section from {path}, returning auto mode to its defaults:")
    for key, value in section.items() if isinstance(section, dict) else []:
        count = len(value) if isinstance(value, list) else 1
        print(f"  - {key} ({count} entr{'y' if count == 1 else 'ies'})")
    if not yes and not _confirmed("Reset auto mode to its defaults? [y/N] "):
        print("Aborted.", file=sys.stderr)
        return 1
    try:
        write_setting(path, ("autoMode",), None)
    except (OSError, ValueError) as exc:
        print(f"yoke auto-mode reset: cannot write {path}: {exc}", file=sys.stderr)
        return 1
    print(f"Auto mode reset to its defaults: the autoMode section is gone from {path}.")
    print("`yoke auto-mode config` shows the rules now in effect.")
    return 0


def _confirmed(question: str) -> bool:
    """A yes typed at a terminal; without one (a pipe, end of input) the answer is no."""
    print(question, end="", flush=True)
    try:
        answer = sys.stdin.readline() if sys.stdin.isatty() else ""
    except (OSError, ValueError):
        answer = ""
    if not sys.stdin.isatty():
        print()
    return answer.strip().lower() in ("y", "yes")
