"""Plugins and marketplaces as `yoke plugin` manages them, in the files `claude plugin` writes
(`yoke.plugins.store`: the installed and known lists under the plugins folder, `enabledPlugins` in the
scope's settings). PluginError from the parts reaches the caller as AdminError."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from yoke.session.admin import AdminError

SCOPES = ("user", "project", "local")


@contextmanager
def _plugin_errors() -> Iterator[None]:
    from yoke.plugins.plugin import PluginError

    try:
        yield
    except PluginError as exc:
        raise AdminError(str(exc)) from None


def _store() -> Any:
    from yoke.plugins.store import PluginStore

    return PluginStore()


def _enable(store: Any, scope: str, cwd: Path, plugin_id: str, enabled: bool | None) -> None:
    from yoke.plugins.store import set_enabled, settings_path

    set_enabled(settings_path(scope, cwd, store), plugin_id, enabled)


def install(plugin_id: str, scope: str, cwd: Path) -> dict[str, Any]:
    """Install `name@marketplace` and enable it in `scope`; returns its installed record (`version`,
    `installPath`)."""
    from yoke.config.settings import load_settings
    from yoke.plugins.marketplace import install_plugin

    with _plugin_errors():
        store = _store()
        extra = load_settings(cwd).merged.get("extraKnownMarketplaces")
        extra = extra if isinstance(extra, dict) else {}
        record = install_plugin(store, plugin_id, scope=scope, cwd=cwd, extra=extra)
        _enable(store, scope, cwd, plugin_id, True)
    return record


def update(plugin_id: str, scope: str | None, cwd: Path) -> tuple[str, dict[str, Any]]:
    """Refresh the plugin's marketplace and install its current version over the `scope` installation (the
    only one when `scope` is None); returns the version it had and the new record. Takes effect in the next
    session, as in Claude Code."""
    from yoke.config.settings import load_settings
    from yoke.plugins.marketplace import add_marketplace, install_plugin

    with _plugin_errors():
        store = _store()
        entries = store.installed().get(plugin_id) or []
        if scope is not None:
            entries = [e for e in entries if e.get("scope", "user") == scope]
        if not entries:
            where = f" in the {scope} scope" if scope else ""
            raise AdminError(f"{plugin_id} is not installed{where} (yoke plugin list shows what is)")
        if len(entries) > 1:
            raise AdminError(f"{plugin_id} is installed in several scopes; name one with --scope")
        old = entries[0]
        market = plugin_id.partition("@")[2]
        known = store.known().get(market)
        if isinstance(known, dict) and isinstance(known.get("source"), dict):
            add_marketplace(
                store, known["source"], cwd
            )  # a fresh copy of the catalog (a git pull, in effect)
        extra = load_settings(cwd).merged.get("extraKnownMarketplaces")
        record = install_plugin(
            store, plugin_id, scope=old.get("scope", "user"), cwd=Path(old.get("projectPath") or cwd),
            extra=extra if isinstance(extra, dict) else {},
        )  # fmt: skip
        previous = old.get("installPath")
        if (
            previous != record["installPath"]
            and isinstance(previous, str)
            and store.root in Path(previous).parents
        ):
            shutil.rmtree(previous, ignore_errors=True)  # the old version's files, now unused
    return str(old.get("version", "?")), record


def set_enabled(plugin_id: str, scope: str, cwd: Path, enabled: bool) -> None:
    """Turn an installed plugin on or off in `scope`'s settings."""
    with _plugin_errors():
        store = _store()
        if plugin_id not in store.installed():
            raise AdminError(f"{plugin_id} is not installed (yoke plugin list shows what is)")
        _enable(store, scope, cwd, plugin_id, enabled)


def uninstall(plugin_id: str, scope: str, cwd: Path) -> None:
    """Remove a plugin's `scope` installation (its files when Yoke owns them); its data folder is kept."""
    with _plugin_errors():
        store = _store()
        installed = store.installed()
        entries = installed.get(plugin_id) or []
        keep = [e for e in entries if e.get("scope", "user") != scope]
        if len(keep) == len(entries):
            raise AdminError(f"{plugin_id} is not installed in the {scope} scope")
        for entry in entries:
            path = entry.get("installPath")
            owned = isinstance(path, str) and store.root in Path(path).parents
            if entry not in keep and owned and not any(k.get("installPath") == path for k in keep):
                shutil.rmtree(path, ignore_errors=True)
        if keep:
            installed[plugin_id] = keep
        else:
            installed.pop(plugin_id, None)
        store.save_installed(installed)
        _enable(store, scope, cwd, plugin_id, None)


def installed(cwd: Path) -> list[dict[str, Any]]:
    """Each installation, sorted by plugin id: `id`, `version`, `scope`, `enabled` (in `cwd`'s merged
    settings), `installPath`."""
    from yoke.config.settings import load_settings

    with _plugin_errors():
        found = _store().installed()
    if not found:
        return []
    enabled = load_settings(cwd).merged.get("enabledPlugins") or {}
    return [
        {
            "id": plugin_id,
            "version": entry.get("version", "?"),
            "scope": entry.get("scope", "user"),
            "enabled": enabled.get(plugin_id) is True,
            "installPath": entry.get("installPath", ""),
        }
        for plugin_id, entries in sorted(found.items())
        for entry in entries
    ]


def validate(path: Path) -> str:
    """Check a plugin or marketplace folder; returns one line saying what it holds, or AdminError with every
    problem found."""
    with _plugin_errors():
        return _validated(path)


def _validated(path: Path) -> str:
    from yoke.plugins.marketplace import MARKETPLACE_FILE, read_marketplace
    from yoke.plugins.plugin import PluginError, load_plugin
    from yoke.plugins.store import read_json
    from yoke.skills.catalog import Catalog, add_plugin

    if (path / MARKETPLACE_FILE).is_file():
        data = read_marketplace(path)
        return f"Marketplace {data['name']}: {len(data['plugins'])} plugin(s), valid"
    plugin = load_plugin(path, _store().data_root)
    catalog = Catalog(cwd=path, root=path)
    add_plugin(catalog, plugin)
    problems = list(catalog.warnings)
    for config in (plugin.hooks_files, plugin.mcp_files):
        for file in config():
            try:
                read_json(file, None)
            except PluginError as exc:
                problems.append(str(exc))
    empty = not (
        len(catalog)
        or plugin.agent_files()
        or plugin.hooks_files()
        or plugin.mcp_files()
        or plugin.output_style_dirs()
        or plugin.manifest
    )
    if empty:
        problems.append(f"{path} has no .claude-plugin/plugin.json and no plugin components")
    if problems:
        raise AdminError("; ".join(problems))
    return f"Plugin {plugin.name}: {len(catalog)} command(s)/skill(s), {len(plugin.agent_files())} agent(s), valid"


def add_marketplace(source: str, cwd: Path) -> tuple[str, int]:
    """Add a marketplace (a folder, a git URL or owner/repo); returns its name and how many plugins it lists."""
    from yoke.plugins.marketplace import add_marketplace as add

    with _plugin_errors():
        name, data = add(_store(), source, cwd)
    return name, len(data["plugins"])


def marketplaces() -> dict[str, dict[str, Any]]:
    """The known marketplaces: name -> its entry (`source`, `installLocation`)."""
    with _plugin_errors():
        return _store().known()


def remove_marketplace(name: str, cwd: Path) -> list[str]:
    """Forget a marketplace (and its clone, when Yoke made it) and uninstall its plugins; returns their ids."""
    with _plugin_errors():
        store = _store()
        known = store.known()
        if name not in known:
            raise AdminError(f"no marketplace named {name!r} (yoke plugin marketplace list)")
        entry = known.pop(name)
        store.save_known(known)
        location = Path(entry.get("installLocation", ""))
        if store.root in location.parents:
            shutil.rmtree(location, ignore_errors=True)  # only a clone Yoke made, never the user's own folder
        installed = store.installed()
        removed = [pid for pid in installed if pid.endswith(f"@{name}")]
        for plugin_id in removed:
            for item in installed.pop(plugin_id):
                path = item.get("installPath")
                if isinstance(path, str) and store.root in Path(path).parents:
                    shutil.rmtree(path, ignore_errors=True)
            _enable(store, "user", cwd, plugin_id, None)
        store.save_installed(installed)
    return removed
