"""The files Claude Code keeps for plugins, under the config folder (`~/.claude`, or `$CLAUDE_CONFIG_DIR`):

- `plugins/known_marketplaces.json`: `{name: {"source": {...}, "installLocation": path, "lastUpdated": iso}}`
- `plugins/marketplaces/<name>/`: a marketplace cloned from git (a local folder is used where it is)
- `plugins/installed_plugins.json`: `{"version": 2, "plugins": {"name@marketplace": [{"scope", "installPath",
  "version", "installedAt", "lastUpdated", "gitCommitSha"?}]}}`
- `plugins/cache/<marketplace>/<plugin>/<version>/`: the installed copy of a plugin
- `plugins/data/<plugin>-<marketplace>/`: `${CLAUDE_PLUGIN_DATA}`
- `enabledPlugins` (`{"name@marketplace": true}`) in the settings file of the install scope.

Every write is atomic; a file that cannot be read is reported, never overwritten.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from yoke.fsutil import read_regular_text
from yoke.jsonsafe import loads as safe_json
from yoke.plugins.plugin import PluginError


class PluginStore:
    def __init__(self, env: Mapping[str, str] | None = None, home: Path | None = None):
        from yoke.config.settings import claude_config_dir

        env = os.environ if env is None else env
        self.home = home or Path(env.get("HOME") or Path.home())
        self.claude_dir = claude_config_dir(self.home, env)
        self.root = self.claude_dir / "plugins"

    @property
    def known_file(self) -> Path:
        return self.root / "known_marketplaces.json"

    @property
    def installed_file(self) -> Path:
        return self.root / "installed_plugins.json"

    @property
    def data_root(self) -> Path:
        return self.root / "data"

    def marketplace_dir(self, name: str) -> Path:
        return self.root / "marketplaces" / name

    def cache_dir(self, marketplace: str, plugin: str, version: str) -> Path:
        return self.root / "cache" / marketplace / plugin / version

    # ---- known marketplaces --------------------------------------------------------------------------

    def known(self) -> dict[str, Any]:
        data = read_json(self.known_file, {})
        return data if isinstance(data, dict) else {}

    def save_known(self, data: dict[str, Any]) -> None:
        write_json(self.known_file, data)

    # ---- installed plugins ---------------------------------------------------------------------------

    def installed(self) -> dict[str, list[dict[str, Any]]]:
        """`name@marketplace` -> its installations (version 1 files, one entry each, read too)."""
        data = read_json(self.installed_file, {})
        plugins = data.get("plugins", {}) if isinstance(data, dict) else {}
        out: dict[str, list[dict[str, Any]]] = {}
        for key, value in (plugins if isinstance(plugins, dict) else {}).items():
            entries = value if isinstance(value, list) else [value]
            out[key] = [e for e in entries if isinstance(e, dict)]
        return out

    def save_installed(self, plugins: dict[str, list[dict[str, Any]]]) -> None:
        write_json(self.installed_file, {"version": 2, "plugins": plugins})


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{datetime.now(UTC).microsecond // 1000:03d}Z"


def read_json(path: Path, default: Any) -> Any:
    try:
        text = read_regular_text(path)
    except FileNotFoundError:
        return default
    except OSError as exc:
        raise PluginError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    try:
        return safe_json(text) if text.strip() else default
    except json.JSONDecodeError as exc:
        raise PluginError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}; fix or remove it") from None


def write_json(path: Path, data: Any) -> None:
    from yoke.fsutil import replace_file

    replace_file(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def settings_path(scope: str, cwd: Path, store: PluginStore) -> Path:
    """The settings file an install scope writes `enabledPlugins` to."""
    from yoke.config.settings import local_settings_path

    if scope == "user":
        return store.claude_dir / "settings.json"
    if scope == "project":
        return cwd / ".claude" / "settings.json"
    if scope == "local":
        return local_settings_path(cwd)
    raise PluginError(f"--scope must be user, project or local (got {scope!r})")


def set_enabled(path: Path, plugin_id: str, enabled: bool | None) -> None:
    """Set (or, with None, remove) `enabledPlugins[plugin_id]` in a settings file, keeping everything else."""
    data = read_json(path, {})
    if not isinstance(data, dict):
        raise PluginError(f"{path}: not a JSON object; fix it first")
    block = data.get("enabledPlugins")
    if not isinstance(block, dict):
        block = {}
    if enabled is None:
        block.pop(plugin_id, None)
    else:
        block[plugin_id] = enabled
    data["enabledPlugins"] = block
    write_json(path, data)
