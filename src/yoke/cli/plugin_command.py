"""`yoke plugin install|uninstall|enable|disable|list|validate` and `yoke plugin marketplace add|list|remove`,
writing the files `claude plugin` writes (see `yoke.plugins.store`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

from yoke.session.admin import AdminError, plugins
from yoke.session.admin.plugins import SCOPES


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise AdminError(f"{message} (see yoke plugin --help)")


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
        ("update", "update a plugin to its marketplace's current version (restart to apply)"),
    ):
        cmd = commands[name] = sub.add_parser(name, help=text)
        cmd.add_argument("plugin", nargs="?" if name == "disable" else None, help="name@marketplace")
        # `update` finds the installation when no scope is named, as Claude Code does
        default = None if name == "update" else "user"
        cmd.add_argument("--scope", "-s", choices=SCOPES, default=default, help="which settings file (user)")
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
    except AdminError as exc:
        print(f"yoke plugin: {exc}", file=sys.stderr)
        return 1
    if text:
        print(text)
    return 0


def _dispatch(args: argparse.Namespace) -> str:
    cwd = Path.cwd()
    if args.command == "marketplace":
        return _marketplace(args, cwd)
    if args.command == "list":
        return _list(cwd)
    if args.command == "validate":
        return plugins.validate(Path(args.path))
    if args.command == "install":
        record = plugins.install(args.plugin, args.scope, cwd)
        return f"Installed {args.plugin} {record['version']} ({args.scope} scope) at {record['installPath']}"
    if args.command == "update":
        before, record = plugins.update(args.plugin, args.scope, cwd)
        if before == record["version"]:
            return f"{args.plugin} is at its latest version, {before}"
        return f"Updated {args.plugin} from {before} to {record['version']}; restart to apply"
    if args.command in ("enable", "disable"):
        if args.plugin is None:
            raise AdminError("name the plugin to disable (name@marketplace)")
        plugins.set_enabled(args.plugin, args.scope, cwd, args.command == "enable")
        return f"{'Enabled' if args.command == 'enable' else 'Disabled'} {args.plugin} ({args.scope} scope)"
    plugins.uninstall(args.plugin, args.scope, cwd)
    return f"Uninstalled {args.plugin} ({args.scope} scope); its data folder is kept"


def _list(cwd: Path) -> str:
    rows = plugins.installed(cwd)
    if not rows:
        return "No plugins installed. Add a marketplace and install one: yoke plugin install name@marketplace"
    return "\n".join(
        f"{r['id']}  {r['version']}  {r['scope']}  {'enabled' if r['enabled'] else 'disabled'}  {r['installPath']}"
        for r in rows
    )


def _marketplace(args: argparse.Namespace, cwd: Path) -> str:
    if args.action == "add":
        name, count = plugins.add_marketplace(args.source, cwd)
        return f"Added marketplace {name} ({count} plugin(s))"
    if args.action == "list":
        known = plugins.marketplaces()
        if not known:
            return "No marketplaces. Add one: yoke plugin marketplace add <folder | git URL | owner/repo>"
        return "\n".join(
            f"{name}  {_describe(entry.get('source'))}  {entry.get('installLocation', '')}"
            for name, entry in sorted(known.items())
        )
    removed = plugins.remove_marketplace(args.name, cwd)
    extra = f" and uninstalled {', '.join(removed)}" if removed else ""
    return f"Removed marketplace {args.name}{extra}"


def _describe(source: object) -> str:
    if not isinstance(source, dict):
        return "?"
    return str(source.get("path") or source.get("url") or source.get("repo") or source.get("source"))
