"""`yoke config`: the settings from the command line, as `/config` has them in the terminal.

    yoke config [list]                 the merged settings, and the files they come from
    yoke config get KEY                one value (KEY may be a dotted path: permissions.defaultMode)
    yoke config set KEY VALUE          write it (VALUE is JSON when it parses as JSON, else text)
    yoke config unset KEY              remove it
    yoke config add|remove KEY VALUE   add to or remove from a list (permissions.allow, ...)

Writes go where `/config` writes: the project's `.claude/settings.local.json`; `--project` writes the shared
`.claude/settings.json`, `--global` (`-g`) the user's `~/.claude/settings.json`. Every write keeps the other
keys and is atomic. `defaultMode` is `permissions.defaultMode`, as in `/config`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from yoke.fsutil import read_regular_text
from yoke.jsonsafe import loads as safe_json

USAGE = (
    "usage: yoke config [list] | get KEY | set KEY VALUE | unset KEY | add KEY VALUE | remove KEY VALUE "
    "[--global | --project]"
)
SHORTHANDS = {"defaultmode": "permissions.defaultMode", "allowedtools": "permissions.allow"}


class ConfigError(Exception):
    """One line for the user; exit 1."""


def run(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.split("\n\n", 1)[1].rstrip() if __doc__ else USAGE)
        return 0
    scope = "local"
    words = []
    for word in argv:
        if word in ("-g", "--global"):
            scope = "user"
        elif word == "--project":
            scope = "project"
        else:
            words.append(word)
    try:
        return _run(words, scope, Path.cwd(), dict(os.environ))
    except ConfigError as exc:
        print(f"yoke config: {exc}", file=sys.stderr)
        return 1


def _run(words: list[str], scope: str, cwd: Path, env: dict[str, str]) -> int:
    verb, args = (words[0], words[1:]) if words else ("list", [])
    arity = {"list": 0, "get": 1, "unset": 1, "set": 2, "add": 2, "remove": 2}
    if verb not in arity:
        raise ConfigError(f"unknown command {verb!r}; {USAGE}")
    if len(args) != arity[verb]:
        raise ConfigError(USAGE)
    if verb == "list":
        _list(cwd, env)
        return 0
    keys = _keys(args[0])
    if verb == "get":
        found, value = _lookup(_merged(cwd, env), keys)
        if not found:
            print(f"yoke config: {args[0]} is not set", file=sys.stderr)
            return 1
        print(value if isinstance(value, str) else json.dumps(value))
        return 0
    path = _target(scope, cwd, env)
    if verb == "unset":
        _write(path, keys, None)
        print(f"Removed {'.'.join(keys)} from {path}")
        return 0
    value = _value(keys, args[1])
    from yoke.config.known_keys import known_key

    if verb in ("set", "add") and not known_key(keys[0]):
        print(f"yoke config: warning: {keys[0]} is not a setting Yoke or Claude Code reads; written anyway",
              file=sys.stderr)  # fmt: skip
    if verb in ("add", "remove"):
        found, current = _lookup(_file_data(path), keys)
        items = list(current) if found and isinstance(current, list) else []
        if found and not isinstance(current, list):
            raise ConfigError(f"{'.'.join(keys)} in {path} is not a list")
        if verb == "add" and value not in items:
            items.append(value)
        elif verb == "remove":
            items = [item for item in items if item != value]
        value = items
    _write(path, keys, value)
    print(f"Set {'.'.join(keys)} = {json.dumps(value)} in {path}")
    return 0


def _keys(key: str) -> tuple[str, ...]:
    key = SHORTHANDS.get(key.lower(), key)
    parts = tuple(key.split("."))
    if not all(parts):
        raise ConfigError(f"bad key {key!r}: use a name or a dotted path such as permissions.defaultMode")
    return parts


def _value(keys: tuple[str, ...], text: str) -> Any:
    try:
        value = safe_json(text)
    except ValueError:
        value = text
    from yoke.session.admin import AdminError
    from yoke.session.admin.settings import check_setting

    try:
        check_setting(keys, value)
    except AdminError as exc:
        raise ConfigError(str(exc)) from None
    return value


def _target(scope: str, cwd: Path, env: dict[str, str]) -> Path:
    from yoke.config.settings import claude_config_dir, git_root, local_settings_path

    if scope == "user":
        return claude_config_dir(Path(env.get("HOME") or Path.home()), env) / "settings.json"
    if scope == "project":
        return (git_root(cwd) or cwd) / ".claude" / "settings.json"
    return local_settings_path(cwd)


def _write(path: Path, keys: tuple[str, ...], value: Any) -> None:
    from yoke.config.settings_write import write_setting

    try:
        write_setting(path, keys, value)
    except (ValueError, OSError) as exc:
        raise ConfigError(str(exc)) from None


def _file_data(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = safe_json(read_regular_text(path) or "{}")
    except (OSError, ValueError):
        raise ConfigError(f"{path} is not valid JSON; fix or remove it first") from None
    return data if isinstance(data, dict) else {}


def _loaded(cwd: Path, env: dict[str, str]) -> Any:
    from yoke.config.settings import load_settings

    return load_settings(cwd, home=Path(env["HOME"]) if env.get("HOME") else None)


def _merged(cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    return _loaded(cwd, env).merged


def _lookup(data: Any, keys: tuple[str, ...]) -> tuple[bool, Any]:
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return False, None
        data = data[key]
    return True, data


def _list(cwd: Path, env: dict[str, str]) -> None:
    loaded = _loaded(cwd, env)
    for warning in loaded.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not loaded.merged:
        print("No settings are set.")
    for key, value in sorted(loaded.merged.items()):
        print(f"{key} = {json.dumps(value)}")
    files = [f"{s.label} ({s.scope})" for s in loaded.sources]
    print("\nFrom: " + (", ".join(files) if files else "no settings files"))
    print(f"`yoke config set` writes {local_settings_path_text(cwd)} (--project, --global: the others)")


def local_settings_path_text(cwd: Path) -> str:
    from yoke.config.settings import local_settings_path

    return str(local_settings_path(cwd))
