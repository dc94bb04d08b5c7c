"""Claude Code plugins: folders of commands, skills, agents, hooks, MCP servers and output styles.

`enabled_plugins(settings, cwd, plugin_dirs=...)` gives the plugins of a session: those `enabledPlugins`
turns on (installed with `yoke plugin install`), plus `--plugin-dir` folders for this session only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from yoke.plugins.plugin import Plugin, PluginError, load_plugin

__all__ = ["Plugin", "PluginError", "enabled_plugins", "load_plugin"]

SCOPE_ORDER = ("local", "project", "user")  # the most specific installation wins


def enabled_plugins(
    settings: Any,
    cwd: Path,
    *,
    plugin_dirs: Sequence[str | Path] = (),
    env: Mapping[str, str] | None = None,
    warnings: list[str] | None = None,
    errors: list[dict[str, Any]] | None = None,
) -> list[Plugin]:
    """The session's plugins. Problems become warning lines (and, in `errors`, entries of stream-json's
    `plugin_errors`); a broken plugin never stops the session."""
    env = os.environ if env is None else env
    warnings = warnings if warnings is not None else []
    merged = getattr(settings, "merged", settings) or {}
    enabled = merged.get("enabledPlugins") if isinstance(merged, Mapping) else None
    plugins: dict[str, Plugin] = {}
    store = None
    if isinstance(enabled, dict) and any(v is True for v in enabled.values()):
        from yoke.plugins.store import PluginStore

        store = PluginStore(env)
        try:
            installed = store.installed()
        except PluginError as exc:
            warnings.append(f"plugins not loaded: {exc}")
            installed = {}
        for plugin_id, on in enabled.items():
            if on is not True:
                continue
            plugin = _installed_plugin(store, installed, plugin_id, Path(cwd), warnings, errors)
            if plugin is not None:
                _hook_load_failures(plugin, plugin_id, warnings, errors)
                plugins[plugin.name] = plugin
    for index, folder in enumerate(plugin_dirs):
        if store is None:
            from yoke.plugins.store import PluginStore

            store = PluginStore(env)
        try:
            plugin = load_plugin(Path(folder), store.data_root)
        except PluginError as exc:
            warnings.append(f"--plugin-dir {folder}: {exc}")
            if errors is not None:  # 2.1.330 names a --plugin-dir plugin by its place among them
                errors.append(plugin_error(f"inline[{index}]", str(exc), Path(folder)))
            continue
        _hook_load_failures(plugin, f"{Path(folder).name}@inline", warnings, errors)
        plugins[plugin.name] = plugin  # a --plugin-dir plugin stands in for an installed one of its name
    return list(plugins.values())


def plugin_error(plugin: str, message: str, path: Path | None) -> dict[str, Any]:
    """One entry of `system/init` `plugin_errors`, in 2.1.330's shape (the message in Yoke's words)."""
    entry: dict[str, Any] = {"plugin": plugin, "type": "generic-error", "message": message}
    if path is not None:
        entry["path"] = str(Path(path).resolve())
    return entry


def _hook_load_failures(
    plugin: Plugin, label: str, warnings: list[str], errors: list[dict[str, Any]] | None
) -> None:
    """A hooks file that did not load: the plugin stays without those hooks, reported as 2.1.332 reports
    it (`hook-load-failed`, the plugin named `<folder>@inline` for a --plugin-dir one)."""
    for problem in plugin.hook_errors:
        warnings.append(f"plugin {plugin.name}: hooks not loaded: {problem}")
        if errors is not None:
            errors.append(
                {"plugin": label, "type": "hook-load-failed", "message": f"Hook load failed: {problem}"}
            )


def _installed_plugin(
    store: Any,
    installed: dict[str, list[dict[str, Any]]],
    plugin_id: str,
    cwd: Path,
    warnings: list[str],
    errors: list[dict[str, Any]] | None = None,
) -> Plugin | None:
    name, _, market = plugin_id.partition("@")
    entries = installed.get(plugin_id) or []
    usable = [
        e for e in entries if e.get("scope", "user") == "user" or e.get("projectPath") in (None, str(cwd))
    ]
    usable.sort(
        key=lambda e: SCOPE_ORDER.index(e.get("scope", "user")) if e.get("scope") in SCOPE_ORDER else 9
    )
    for entry in usable:
        path = entry.get("installPath")
        if isinstance(path, str) and Path(path).is_dir():
            try:
                return load_plugin(
                    Path(path), store.data_root, marketplace=market or None, source="marketplace"
                )
            except PluginError as exc:
                warnings.append(f"plugin {plugin_id}: {exc}")
                if errors is not None:
                    errors.append(plugin_error(plugin_id, str(exc), Path(path)))
                return None
    warnings.append(f"plugin {plugin_id} is enabled but not installed; run: yoke plugin install {plugin_id}")
    return None
