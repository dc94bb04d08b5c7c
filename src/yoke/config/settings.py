"""Layered settings: Claude Code's settings files (and Yoke's own) read, checked and merged.

Sources, highest precedence first: the managed policy files, the `--settings` flag, local project settings
(`.yoke/settings.local.json`, `.claude/settings.local.json`), shared project settings (`.yoke/settings.json`,
`.claude/settings.json`), user settings (`~/.yoke/settings.json`, `~/.claude/settings.json`). At one level
Yoke's own file outranks Claude Code's. Merging follows Claude Code: objects merge key by key, lists
concatenate across sources (so permission rules from every level apply), other values come from the highest
source that sets them.

A file that cannot be read or is not a JSON object yields one warning line naming it and is ignored; a
mistyped key inside an otherwise good file is dropped with a warning and the rest of the file is kept, so a
managed `deny` list survives a typo elsewhere.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.fsutil import read_regular_text
from yoke.jsonsafe import loads as safe_json
from yoke.records import Record

MAX_FLAG_SETTINGS_BYTES = 2 * 1024 * 1024
MANAGED_PATHS = (Path("/etc/yoke/managed-settings.json"), Path("/etc/claude-code/managed-settings.json"))
MACOS_MANAGED_PATH = Path("/Library/Application Support/ClaudeCode/managed-settings.json")
SCOPES = ("managed", "flag", "local", "project", "user")
SELECTABLE_SCOPES = ("user", "project", "local")  # what --setting-sources may name
# Lists whose highest-precedence value is used whole rather than concatenated (Claude Code's exceptions).
_WHOLE_LIST_KEYS = frozenset({"availableModels"})
_RULE_LISTS = ("allow", "ask", "deny")
MODEL_KEYS = ("model", "fallbackModel", "provider")


class SettingsSource(Record):
    """One settings file (or the inline `--settings` JSON) as read."""

    __slots__ = ("scope", "path", "data", "base_dir", "origin")

    scope: str  # one of SCOPES
    path: Path | None  # None for inline JSON given to --settings
    data: dict[str, Any]
    base_dir: Path  # what a rule's `/path` is relative to (Claude Code: "relative to the settings source")
    origin: str  # "claude" or "yoke": whose file name this is

    @property
    def label(self) -> str:
        return str(self.path) if self.path is not None else "--settings"

    def __init__(
        self, scope: str, path: Path | None, data: dict[str, Any], base_dir: Path, origin: str = "claude"
    ) -> None:
        self.scope = scope
        self.path = path
        self.data = data
        self.base_dir = base_dir
        self.origin = origin


class LoadedSettings(Record):
    """Every source that was read (highest precedence first), their merge, and any problems found."""

    __slots__ = (
        "cwd",
        "home",
        "yoke_home",
        "claude_dir",
        "sources",
        "merged",
        "warnings",
        "local_settings_path",
    )

    cwd: Path
    home: Path
    yoke_home: Path
    claude_dir: Path
    sources: list[SettingsSource]
    merged: dict[str, Any]
    warnings: list[str]
    local_settings_path: Path | None  # where "always allow" answers are saved

    def source(self, scope: str) -> list[SettingsSource]:
        return [s for s in self.sources if s.scope == scope]

    def merged_from(self, sources: list[SettingsSource]) -> dict[str, Any]:
        """The merge of a chosen subset (e.g. without untrusted project files)."""
        return merge_settings([s.data for s in sources])

    def __init__(
        self,
        cwd: Path,
        home: Path,
        yoke_home: Path,
        claude_dir: Path,
        sources: list[SettingsSource] | None = None,
        merged: dict[str, Any] | None = None,
        warnings: list[str] | None = None,
        local_settings_path: Path | None = None,
    ) -> None:
        self.cwd = cwd
        self.home = home
        self.yoke_home = yoke_home
        self.claude_dir = claude_dir
        self.sources = [] if sources is None else sources
        self.merged = {} if merged is None else merged
        self.warnings = [] if warnings is None else warnings
        self.local_settings_path = local_settings_path


def yoke_home_dir(home: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    value = env.get("YOKE_HOME")
    if value:
        return Path(value).expanduser()
    return (home or Path.home()) / ".yoke"


def claude_config_dir(home: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    value = env.get("CLAUDE_CONFIG_DIR")
    if value:
        return Path(value).expanduser()
    return (home or Path.home()) / ".claude"


def git_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` holding a `.git` entry (a directory or a worktree file)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def local_settings_path(cwd: Path) -> Path:
    """`.claude/settings.local.json` lives at the git repository root (Claude Code 2.1.211+), else in cwd."""
    return (git_root(cwd) or cwd) / ".claude" / "settings.local.json"


def load_settings(
    cwd: Path,
    *,
    home: Path | None = None,
    flag_settings: str | None = None,
    setting_sources: list[str] | None = None,
    managed_paths: list[Path] | None = None,
) -> LoadedSettings:
    """Read every settings source for a session started in `cwd` and merge them.

    `flag_settings` is the `--settings` value (inline JSON or a file path). `setting_sources` restricts the
    user/project/local levels as `--setting-sources` does (managed and flag settings always load).
    `managed_paths` replaces the system policy locations (for tests; users cannot move the policy).
    """
    cwd = Path(os.path.realpath(cwd))
    home = home or Path.home()
    loaded = LoadedSettings(cwd, home, yoke_home_dir(home), claude_config_dir(home))
    loaded.local_settings_path = local_settings_path(cwd)
    wanted = set(SELECTABLE_SCOPES if setting_sources is None else setting_sources)
    unknown = wanted - set(SELECTABLE_SCOPES)
    if unknown:
        names = ", ".join(sorted(unknown))
        loaded.warnings.append(f"--setting-sources: unknown source(s) {names} (use user, project, local)")
    for scope, path, base, origin in _file_sources(loaded, managed_paths):
        if scope in SELECTABLE_SCOPES and scope not in wanted:
            continue
        if scope == "flag":
            continue
        data = _read_file(path, loaded.warnings)
        if data is not None:
            loaded.sources.append(SettingsSource(scope, path, data, base, origin))
    if flag_settings:
        flag = _read_flag_settings(flag_settings, cwd, loaded.warnings)
        if flag is not None:
            index = sum(1 for s in loaded.sources if s.scope == "managed")
            loaded.sources.insert(index, flag)
    from yoke.config.command_settings import withhold_untrusted_commands

    withhold_untrusted_commands(loaded)  # a cloned repository's settings run no program before trust
    loaded.merged = merge_settings([s.data for s in loaded.sources])
    return loaded


def _file_sources(
    loaded: LoadedSettings, managed_paths: list[Path] | None
) -> list[tuple[str, Path, Path, str]]:
    """(scope, path, base dir, origin) for every file location, highest precedence first."""
    cwd, local = loaded.cwd, loaded.local_settings_path
    assert local is not None
    out: list[tuple[str, Path, Path, str]] = []
    for path in _managed_files(managed_paths):
        origin = "yoke" if "yoke" in str(path) else "claude"
        out.append(("managed", path, path.parent, origin))
    local_root = local.parent.parent
    out += [
        ("local", local_root / ".yoke" / "settings.local.json", cwd, "yoke"),
        ("local", local, cwd, "claude"),
        ("project", cwd / ".yoke" / "settings.json", cwd, "yoke"),
        ("project", cwd / ".claude" / "settings.json", cwd, "claude"),
        ("user", loaded.yoke_home / "settings.json", loaded.yoke_home, "yoke"),
        ("user", loaded.claude_dir / "settings.json", loaded.claude_dir, "claude"),
    ]
    return out


def _managed_files(managed_paths: list[Path] | None) -> list[Path]:
    """The policy files, each preceded by its `managed-settings.d/*.json` drop-ins (highest first)."""
    if managed_paths is not None:
        bases = list(managed_paths)
    else:
        bases = list(MANAGED_PATHS)
        if os.uname().sysname == "Darwin":
            bases.append(MACOS_MANAGED_PATH)
    files: list[Path] = []
    for base in bases:
        drop_ins = base.parent / "managed-settings.d"
        # Drop-ins are merged after the main file, in name order: each overrides what came before it, so
        # highest first is the alphabetically last drop-in, down to the main file.
        extra = sorted(drop_ins.glob("*.json")) if drop_ins.is_dir() else []
        files.extend(reversed(extra))
        files.append(base)
    return files


def _read_file(path: Path, warnings: list[str]) -> dict[str, Any] | None:
    try:
        text = read_regular_text(path)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        warnings.append(f"{path}: cannot be read ({_short(exc)}); ignored")
        return None
    return _parse(text, str(path), warnings)


def _read_flag_settings(value: str, cwd: Path, warnings: list[str]) -> SettingsSource | None:
    stripped = value.strip()
    if stripped.startswith("{"):
        data = _parse(stripped, "--settings", warnings)
        return None if data is None else SettingsSource("flag", None, data, cwd, "yoke")
    path = Path(stripped).expanduser()
    if not path.is_absolute():
        path = cwd / path
    try:
        size = path.stat().st_size
    except OSError:
        warnings.append(f"--settings: {path} does not exist; ignored")
        return None
    if size > MAX_FLAG_SETTINGS_BYTES:
        warnings.append(f"--settings: {path} is larger than 2 MiB; ignored")
        return None
    data = _read_file(path, warnings)
    return None if data is None else SettingsSource("flag", path, data, path.parent, "yoke")


def _parse(text: str, label: str, warnings: list[str]) -> dict[str, Any] | None:
    if not text.strip():
        return {}
    try:
        data = safe_json(text)
    except json.JSONDecodeError as exc:
        warnings.append(f"{label}: invalid JSON at line {exc.lineno} column {exc.colno} ({exc.msg}); ignored")
        return None
    if not isinstance(data, dict):
        warnings.append(
            f"{label}: expected a JSON object at the top level, found {type(data).__name__}; ignored"
        )
        return None
    return _checked(data, label, warnings)


def _checked(data: dict[str, Any], label: str, warnings: list[str]) -> dict[str, Any]:
    """Drop mistyped permission, model and sandbox keys (with a warning each) so the rest of the file still
    applies."""
    perms = data.get("permissions")
    if perms is not None and not isinstance(perms, dict):
        warnings.append(f"{label}: `permissions` must be an object; that key is ignored")
        data = {k: v for k, v in data.items() if k != "permissions"}
    elif isinstance(perms, dict):
        perms = dict(perms)
        for key in (*_RULE_LISTS, "additionalDirectories"):
            value = perms.get(key)
            if value is None:
                continue
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                warnings.append(
                    f"{label}: `permissions.{key}` must be a list of strings; that key is ignored"
                )
                perms.pop(key)
        for key in ("defaultMode", "disableBypassPermissionsMode"):
            if key in perms and not isinstance(perms[key], str):
                warnings.append(f"{label}: `permissions.{key}` must be a string; that key is ignored")
                perms.pop(key)
        data = {**data, "permissions": perms}
    for key in MODEL_KEYS:  # the model-related strings: a mistyped one must not silently pick a default
        value = data.get(key)
        if value is not None and not (isinstance(value, str) and value.strip()):
            warnings.append(
                f"{label}: `{key}` must be a model name (a non-empty string); that key is ignored"
            )
            data = {k: v for k, v in data.items() if k != key}
    if "env" in data and not isinstance(data["env"], dict):
        found = type(data["env"]).__name__
        warnings.append(f"{label}: `env` must be an object of strings, found {found}; that key is ignored")
        data = {k: v for k, v in data.items() if k != "env"}
    sandbox = data.get("sandbox")
    if sandbox is not None and not isinstance(sandbox, dict):
        warnings.append(f"{label}: `sandbox` must be an object; that key is ignored")
        data = {k: v for k, v in data.items() if k != "sandbox"}
    return data


def merge_settings(layers: list[dict[str, Any]]) -> dict[str, Any]:
    """Merge settings given highest precedence first (Claude Code's rules; see the module docstring)."""
    merged: dict[str, Any] = {}
    for layer in reversed(layers):  # lowest first, so higher layers overwrite scalars
        merged = _merge_two(merged, layer)
    return merged


def _merge_two(low: dict[str, Any], high: dict[str, Any]) -> dict[str, Any]:
    out = dict(low)
    for key, value in high.items():
        below = out.get(key)
        if isinstance(value, dict) and isinstance(below, dict):
            out[key] = _merge_two(below, value)
        elif isinstance(value, list) and isinstance(below, list) and key not in _WHOLE_LIST_KEYS:
            out[key] = _concat_unique(value, below)
        else:
            out[key] = value
    return out


def _concat_unique(first: list[Any], second: list[Any]) -> list[Any]:
    """Higher-precedence items first, duplicates dropped (by JSON identity, so dict items work too)."""
    seen: set[str] = set()
    out: list[Any] = []
    for item in [*first, *second]:
        key = json.dumps(item, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _short(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc)


def split_tool_list(values: list[str]) -> list[str]:
    """Split `--allowedTools "Bash(git log:*) Edit,Read"` (or a skill's `allowed-tools`) into rules: on commas and
    whitespace outside parentheses."""
    rules: list[str] = []
    for value in values:
        depth = 0
        current: list[str] = []
        for ch in value:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            if depth == 0 and (ch == "," or ch.isspace()):
                if current:
                    rules.append("".join(current))
                current = []
            else:
                current.append(ch)
        if current:
            rules.append("".join(current))
    return [r.strip() for r in rules if r.strip()]
