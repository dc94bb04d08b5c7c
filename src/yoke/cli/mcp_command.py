"""`yoke mcp add|add-json|add-from-claude-desktop|list|get|remove|login|logout|serve`, writing the files
Claude Code writes: local scope -> `~/.claude.json` projects[<dir>].mcpServers, project -> `.mcp.json`,
user -> `~/.claude.json` mcpServers."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from yoke.jsonsafe import loads as safe_json
from yoke.session.admin import AdminError
from yoke.session.admin import mcp as servers
from yoke.session.admin.mcp import SCOPES

USAGE = """usage: yoke mcp <command>

  add [-s local|project|user] [-t stdio|sse|http] [-e KEY=value] [-H "Name: value"] <name> <commandOrUrl> [args...]
      (stdio: yoke mcp add <name> -- <command> [args...])
  add-json [-s scope] <name> '<json>'      add-from-claude-desktop [-s scope]
  list      get <name>      remove [-s scope] <name>
  login <name> [--no-browser]      logout <name>
  serve     Yoke's own tools as an MCP server on stdio"""


def run(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    handlers = {
        "add": add,
        "add-json": add_json,
        "add-from-claude-desktop": add_from_desktop,
        "list": list_servers,
        "get": get,
        "remove": remove,
        "login": login,
        "logout": logout,
        "serve": serve,
    }
    handler = handlers.get(command)
    if handler is None:
        print(f"yoke mcp: unknown command {command!r}\n{USAGE}", file=sys.stderr)
        return 2
    try:
        return handler(rest)
    except AdminError as exc:
        print(f"yoke mcp {command}: {exc}", file=sys.stderr)
        return 1


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        raise AdminError(message)


def _parser(name: str) -> argparse.ArgumentParser:
    p = _Parser(prog=f"yoke mcp {name}", add_help=True)
    p.add_argument("-s", "--scope", default="local", choices=SCOPES)
    return p


def _save(scope: str, name: str, entry: dict[str, Any]) -> None:
    path = servers.add_server(scope, name, entry, Path.cwd())
    print(f"Added {entry.get('type', 'stdio')} MCP server {name} to {scope} config ({path})")


def _pairs(values: list[str] | None, sep: str, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values or []:
        if sep not in value:
            raise AdminError(
                f"{what} must look like {'KEY=value' if sep == '=' else 'Name: value'} (got {value!r})"
            )
        key, _, val = value.partition(sep)
        out[key.strip()] = val.strip() if sep == ":" else val
    return out


# ---- commands ----------------------------------------------------------------------------------------


def add(argv: list[str]) -> int:
    pre, post = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    p = _parser("add")
    p.add_argument("-t", "--transport", default="stdio", choices=("stdio", "sse", "http"))
    p.add_argument("-e", "--env", action="append", help="KEY=value for a stdio server")
    p.add_argument("-H", "--header", action="append", help='"Name: value" for a remote server')
    p.add_argument("--client-id")
    p.add_argument("--callback-port", type=int)
    p.add_argument("--client-secret", action="store_true")  # as add-json: accepted, the secret is not asked
    p.add_argument("name")
    p.add_argument("target", nargs="?")
    p.add_argument("args", nargs="*")
    a = p.parse_args(pre)
    if post:
        if a.target is not None:
            raise AdminError("give the command either after -- or after the name, not both")
        target, rest = post[0], post[1:]
    else:
        target, rest = a.target, a.args
    if not target:
        raise AdminError("give the server's command (stdio) or URL (sse, http)")
    entry: dict[str, Any]
    if a.transport == "stdio":
        entry = {"type": "stdio", "command": target, "args": list(rest), "env": _pairs(a.env, "=", "-e")}
        if a.header:
            raise AdminError("-H/--header is for sse and http servers")
    else:
        if rest:
            raise AdminError(f"a {a.transport} server takes a URL only (got extra {' '.join(rest)!r})")
        entry = {"type": a.transport, "url": target}
        headers = _pairs(a.header, ":", "-H")
        if headers:
            entry["headers"] = headers
        oauth = {k: v for k, v in (("clientId", a.client_id), ("callbackPort", a.callback_port)) if v}
        if oauth:
            entry["oauth"] = oauth
    _save(a.scope, a.name, entry)
    return 0


def add_json(argv: list[str]) -> int:
    p = _parser("add-json")
    p.add_argument("--client-secret", action="store_true")
    p.add_argument("name")
    p.add_argument("json")
    a = p.parse_args(argv)
    text = sys.stdin.read() if a.json == "-" else a.json
    try:
        entry = safe_json(text)
    except json.JSONDecodeError as exc:
        raise AdminError(f"not valid JSON (column {exc.colno}: {exc.msg})") from None
    if not isinstance(entry, dict):
        raise AdminError("the server must be a JSON object")
    _save(a.scope, a.name, entry)
    return 0


def desktop_config_path() -> Path:
    home = Path(os.environ.get("HOME") or Path.home())
    if sys.platform == "darwin":
        return home / "Library/Application Support/Claude/claude_desktop_config.json"
    if os.name == "nt":  # pragma: no cover
        return Path(os.environ.get("APPDATA", home)) / "Claude/claude_desktop_config.json"
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "Claude/claude_desktop_config.json"


def add_from_desktop(argv: list[str]) -> int:
    a = _parser("add-from-claude-desktop").parse_args(argv)
    path = desktop_config_path()
    found = servers.read_file(path).get("mcpServers")
    if not isinstance(found, dict) or not found:
        raise AdminError(f"no MCP servers found in {path}")
    added = 0
    for name, entry in found.items():
        try:
            _save(a.scope, name, entry)
            added += 1
        except AdminError as exc:
            print(f"skipped {name}: {exc}", file=sys.stderr)
    print(f"Imported {added} of {len(found)} servers from Claude Desktop")
    return 0 if added else 1


def _describe(cfg: Any) -> str:
    return (
        f"{cfg.url} ({cfg.type.upper() if cfg.type != 'http' else 'HTTP'})"
        if cfg.remote
        else " ".join([cfg.command, *cfg.args])
    )


STATUS_TEXT = {
    "connected": "✔ Connected",
    "needs-auth": "! Needs authentication",
    "failed": "✘ Failed to connect",
    "pending": "… Still connecting",
}


def list_servers(argv: list[str]) -> int:
    import asyncio

    cwd = Path.cwd()
    config = servers.configured(cwd)
    for warning in config.warnings + [e.message for e in config.errors]:
        print(f"warning: {warning}", file=sys.stderr)
    if not (config.servers or config.unapproved or config.rejected):
        print("No MCP servers configured. Use `yoke mcp add` to add a server.")
        return 0
    print("Checking MCP server health...\n")
    states: dict[str, Any] = {}
    if config.servers:
        states = asyncio.run(servers.check_servers(config, cwd, os.environ))
    for name, cfg in config.servers.items():
        state = states[name]
        text = STATUS_TEXT.get(state.status, state.status)
        if state.status == "connected":
            text += f" ({len(state.tools)} tools)"
        elif state.error:
            text += f": {state.error}"
        print(f"{name}: {_describe(cfg)} - {text}")
    for name, cfg in config.unapproved.items():
        print(
            f"{name}: {_describe(cfg)} - ⏸ Pending approval (enabledMcpjsonServers in .claude/settings.local.json)"
        )
    for name, cfg in config.rejected.items():
        print(f"{name}: {_describe(cfg)} - ✘ Rejected (see disabledMcpjsonServers in settings)")
    return 0


def get(argv: list[str]) -> int:
    p = _Parser(prog="yoke mcp get")
    p.add_argument("name")
    cfg = servers.find_server(p.parse_args(argv).name, Path.cwd())
    print(f"{cfg.name}:\n  Scope: {cfg.scope} ({cfg.source})\n  Type: {cfg.type}")
    if cfg.remote:
        print(f"  URL: {cfg.url}")
        for key in cfg.raw.get("headers") or {}:
            print(f"  Header: {key}: …")
    else:
        print(f"  Command: {cfg.command}\n  Args: {' '.join(cfg.args)}")
        for key in cfg.raw.get("env") or {}:
            print(f"  Env: {key}=…")
    print(f"\nTo remove this server, run: yoke mcp remove {cfg.name} -s {cfg.scope}")
    return 0


def remove(argv: list[str]) -> int:
    p = _Parser(prog="yoke mcp remove")
    p.add_argument("-s", "--scope", choices=SCOPES)
    p.add_argument("name")
    a = p.parse_args(argv)
    scope, path = servers.remove_server(a.name, a.scope, Path.cwd())
    print(f"Removed MCP server {a.name} from {scope} config ({path})")
    return 0


def login(argv: list[str]) -> int:
    import asyncio

    p = _Parser(prog="yoke mcp login")
    p.add_argument("name")
    p.add_argument("--no-browser", action="store_true")
    a = p.parse_args(argv)
    cfg = servers.find_server(a.name, Path.cwd())
    if not cfg.remote:
        raise AdminError(f'"{a.name}" is a stdio server; only sse and http servers sign in')
    try:
        asyncio.run(servers.sign_in(cfg, os.environ, open_browser=not a.no_browser))
    except Exception as exc:
        raise AdminError(
            f"sign-in failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        ) from None
    print(f"Signed in to {a.name}; the token is stored in Yoke's home.")
    return 0


def logout(argv: list[str]) -> int:
    p = _Parser(prog="yoke mcp logout")
    p.add_argument("name")
    a = p.parse_args(argv)
    if not servers.sign_out(a.name, os.environ):
        print(f"No stored sign-in for {a.name}.")
        return 0
    print(f"Signed out of {a.name}.")
    return 0


def serve(argv: list[str]) -> int:
    return servers.serve(argv)
