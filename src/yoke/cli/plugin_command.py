"""`yoke plugin install|uninstall|enable|disable|list|validate` and `yoke plugin marketplace add|list|remove`,
writing the files `claude plugin` writes (see `yoke.plugins.store`)."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import NoReturn

from yoke.plugins.plugin import PluginError, load_plugin
from yoke.plugins.store import PluginStore, set_enabled, settings_path

SCOPES = ("user", "project", "local")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise PluginError(f"{message} (see yoke plugin --help)")


# Options `claude plugin <command> --help` (2.1.330's line) lists that Yoke parses without acting on them:
# flag names -> (argparse keywords, what Yoke does instead). Using one says so in a line on stderr, except the
# confirmations (-y): Yoke asks none.
UNACTED: dict[str, list[tuple[tuple[str, ...], dict, str]]] = {
    "install": [
        (("--accept-command",), {"metavar": "sha256"}, "marketplace-declared commands are not run"),
        (("--config",), {"action": "append", "metavar": "key=value"}, "plugin userConfig is not set here"),
        (("--marketplace",), {"metavar": "source"}, "add the marketplace first: yoke plugin marketplace add"),
        (("--json",), {"action": "store_true"}, "the result is printed as text"),
        (("-y", "--yes"), {"action": "store_true"}, ""),
    ],
    "uninstall": [
        (("--json",), {"action": "store_true"}, "the result is printed as text"),
        (("--keep-data",), {"action": "store_true"}, ""),  # Yoke always keeps the data folder
        (("--prune",), {"action": "store_true"}, "auto-installed dependencies are not tracked"),
        (("-y", "--yes"), {"action": "store_true"}, ""),
    ],
    "enable": [(("--json",), {"action": "store_true"}, "the result is printed as text")],
    "disable": [
        (("-a", "--all"), {"action": "store_true"}, "name the plugin to disable"),
        (("--json",), {"action": "store_true"}, "the result is printed as text"),
    ],
    "list": [
        (("--available",), {"action": "store_true"}, "marketplaces' plugins are not listed"),
        (("--data-size",), {"nargs": "?", "const": "", "metavar": "plugin"}, "data sizes are not measured"),
        (("--json",), {"action": "store_true"}, "the list is printed as text"),
    ],
    "validate": [
        (("--json",), {"action": "store_true"}, "the report is printed as text"),
        (("--profile",), {"metavar": "name"}, "profiles are not checked"),
        (("--strict",), {"action": "store_true"}, "warnings do not fail the check"),
    ],
}


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="yoke plugin", description="Manage Claude Code plugins and marketplaces.")
    sub = p.add_subparsers(dest="command", required=True)
    commands: dict[str, argparse.ArgumentParser] = {}
    for name, text in (
        ("install", "install name@marketplace and enable it"),
        ("uninstall", "remove an installed plugin"),
        ("enable", "turn an installed plugin on"),
        ("disable", "turn an installed plugin off"),
        ("update", "update a plugin (not available yet)"),
    ):
        cmd = commands[name] = sub.add_parser(name, help=text)
        cmd.add_argument("plugin", nargs="?" if name == "disable" else None, help="name@marketplace")
        cmd.add_argument("--scope", "-s", choices=SCOPES, default="user", help="which settings file (user)")
    commands["list"] = sub.add_parser("list", help="list installed plugins")
    validate = commands["validate"] = sub.add_parser("validate", help="check a plugin or marketplace folder")
    validate.add_argument("path")
    commands["update"].add_argument("--accept-command", metavar="sha256")
    commands["update"].add_argument("--json", action="store_true")
    commands["update"].add_argument("-y", "--yes", action="store_true")
    for name, flags in UNACTED.items():
        for names, kwargs, _ in flags:
            commands[name].add_argument(*names, dest=_dest(names), **kwargs)
    market = sub.add_parser("marketplace", help="manage marketplaces")
    msub = market.add_subparsers(dest="action", required=True)
    add = msub.add_parser("add", help="add a marketplace: a folder, a git URL or owner/repo")
    add.add_argument("source")
    msub.add_parser("list", help="list known marketplaces")
    remove = msub.add_parser("remove", help="forget a marketplace and uninstall its plugins")
    remove.add_argument("name")
    return p


def _dest(names: tuple[str, ...]) -> str:
    return "extra_" + names[-1].lstrip("-").replace("-", "_")


def _unacted_lines(args: argparse.Namespace) -> list[str]:
    lines = []
    for names, _, instead in UNACTED.get(args.command, []):
        if instead and getattr(args, _dest(names), None) not in (None, False, []):
            lines.append(f"yoke plugin {args.command}: {names[-1]} is accepted but not acted on: {instead}")
    return lines


def run(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
        for line in _unacted_lines(args):
            print(line, file=sys.stderr)
        text = _dispatch(args)
    except PluginError as exc:
        print(f"yoke plugin: {exc}", file=sys.stderr)
        return 1
    if text:
        print(text)
    return 0


def _dispatch(args: argparse.Namespace) -> str:
    store = PluginStore()
    cwd = Path.cwd()
    if args.command == "marketplace":
        return _marketplace(args, store, cwd)
    if args.command == "list":
        return _list(store, cwd)
    if args.command == "validate":
        return _validate(Path(args.path))
    if args.command == "install":
        from yoke.plugins.marketplace import install_plugin

        record = install_plugin(store, args.plugin, scope=args.scope, cwd=cwd, extra=_extra_marketplaces(cwd))
        set_enabled(settings_path(args.scope, cwd, store), args.plugin, True)
        return f"Installed {args.plugin} {record['version']} ({args.scope} scope) at {record['installPath']}"
    if args.command == "update":
        raise PluginError("update is not available yet; uninstall and install the plugin again")
    if args.command in ("enable", "disable"):
        if args.plugin is None:
            raise PluginError("name the plugin to disable (name@marketplace)")
        _require_installed(store, args.plugin)
        set_enabled(settings_path(args.scope, cwd, store), args.plugin, args.command == "enable")
        return f"{'Enabled' if args.command == 'enable' else 'Disabled'} {args.plugin} ({args.scope} scope)"
    return _uninstall(store, args.plugin, args.scope, cwd)


def _require_installed(store: PluginStore, plugin_id: str) -> None:
    if plugin_id not in store.installed():
        raise PluginError(f"{plugin_id} is not installed (yoke plugin list shows what is)")


def _uninstall(store: PluginStore, plugin_id: str, scope: str, cwd: Path) -> str:
    installed = store.installed()
    entries = installed.get(plugin_id) or []
    keep = [e for e in entries if e.get("scope", "user") != scope]
    if len(keep) == len(entries):
        raise PluginError(f"{plugin_id} is not installed in the {scope} scope")
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
    set_enabled(settings_path(scope, cwd, store), plugin_id, None)
    return f"Uninstalled {plugin_id} ({scope} scope); its data folder is kept"


def _list(store: PluginStore, cwd: Path) -> str:
    from yoke.config.settings import load_settings

    installed = store.installed()
    if not installed:
        return "No plugins installed. Add a marketplace and install one: yoke plugin install name@marketplace"
    enabled = load_settings(cwd).merged.get("enabledPlugins") or {}
    lines = []
    for plugin_id, entries in sorted(installed.items()):
        for entry in entries:
            state = "enabled" if enabled.get(plugin_id) is True else "disabled"
            lines.append(
                f"{plugin_id}  {entry.get('version', '?')}  {entry.get('scope', 'user')}  {state}  "
                f"{entry.get('installPath', '')}"
            )
    return "\n".join(lines)


def _validate(path: Path) -> str:
    from yoke.plugins.marketplace import MARKETPLACE_FILE, read_marketplace

    if (path / MARKETPLACE_FILE).is_file():
        data = read_marketplace(path)
        return f"Marketplace {data['name']}: {len(data['plugins'])} plugin(s), valid"
    plugin = load_plugin(path, PluginStore().data_root)
    from yoke.skills.catalog import Catalog, add_plugin

    catalog = Catalog(cwd=path, root=path)
    add_plugin(catalog, plugin)
    problems = list(catalog.warnings)
    for config in (plugin.hooks_files, plugin.mcp_files):
        for file in config():
            try:
                from yoke.plugins.store import read_json

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
        raise PluginError("; ".join(problems))
    return f"Plugin {plugin.name}: {len(catalog)} command(s)/skill(s), {len(plugin.agent_files())} agent(s), valid"


def _marketplace(args: argparse.Namespace, store: PluginStore, cwd: Path) -> str:
    from yoke.plugins.marketplace import add_marketplace

    if args.action == "add":
        name, data = add_marketplace(store, args.source, cwd)
        return f"Added marketplace {name} ({len(data['plugins'])} plugin(s))"
    known = store.known()
    if args.action == "list":
        if not known:
            return "No marketplaces. Add one: yoke plugin marketplace add <folder | git URL | owner/repo>"
        return "\n".join(
            f"{name}  {_describe(entry.get('source'))}  {entry.get('installLocation', '')}"
            for name, entry in sorted(known.items())
        )
    if args.name not in known:
        raise PluginError(f"no marketplace named {args.name!r} (yoke plugin marketplace list)")
    entry = known.pop(args.name)
    store.save_known(known)
    location = Path(entry.get("installLocation", ""))
    if store.root in location.parents:
        shutil.rmtree(location, ignore_errors=True)  # only a clone Yoke made, never the user's own folder
    installed = store.installed()
    removed = [pid for pid in installed if pid.endswith(f"@{args.name}")]
    for plugin_id in removed:
        for item in installed.pop(plugin_id):
            path = item.get("installPath")
            if isinstance(path, str) and store.root in Path(path).parents:
                shutil.rmtree(path, ignore_errors=True)
        set_enabled(settings_path("user", cwd, store), plugin_id, None)
    store.save_installed(installed)
    extra = f" and uninstalled {', '.join(removed)}" if removed else ""
    return f"Removed marketplace {args.name}{extra}"


def _describe(source: object) -> str:
    if not isinstance(source, dict):
        return "?"
    return str(source.get("path") or source.get("url") or source.get("repo") or source.get("source"))


def _extra_marketplaces(cwd: Path) -> dict:
    from yoke.config.settings import load_settings

    extra = load_settings(cwd).merged.get("extraKnownMarketplaces")
    return extra if isinstance(extra, dict) else {}
