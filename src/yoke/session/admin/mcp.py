"""MCP servers as `yoke mcp` manages them, in the files Claude Code writes: local scope -> `~/.claude.json`
projects[<dir>].mcpServers, project -> `.mcp.json`, user -> `~/.claude.json` mcpServers."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.session.admin import AdminError

SCOPES = ("local", "project", "user")


def read_file(path: Path) -> dict[str, Any]:
    """A JSON object from disk ({} when absent); a broken file is an AdminError naming it."""
    from yoke.mcp.config import read_json

    try:
        return read_json(path)
    except ValueError as exc:
        raise AdminError(f"{exc}; fix or move the file first (nothing was changed)") from None


def _write(path: Path, data: dict[str, Any]) -> None:
    from yoke.fsutil import replace_file

    replace_file(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def _scope_servers(scope: str, cwd: Path, data: dict[str, Any]) -> dict[str, Any]:
    """The mcpServers object of one scope inside its file's data (created when absent)."""
    from yoke.mcp.config import project_key

    if scope == "local":
        projects = data.setdefault("projects", {})
        entry = projects.setdefault(project_key(cwd), {})
        return entry.setdefault("mcpServers", {})
    return data.setdefault("mcpServers", {})


def scope_path(scope: str, cwd: Path) -> Path:
    """The file a scope's servers are written to."""
    from yoke.mcp.config import claude_json_path

    return cwd / ".mcp.json" if scope == "project" else claude_json_path()


def add_server(scope: str, name: str, entry: dict[str, Any], cwd: Path) -> Path:
    """Check `entry` as a server configuration and add it to `scope`'s file; returns the file."""
    from yoke.mcp.config import ConfigError, parse_server

    checked = parse_server(name, entry, scope, "", {})
    if isinstance(checked, ConfigError):
        raise AdminError(checked.message)
    path = scope_path(scope, cwd)
    data = read_file(path)
    servers = _scope_servers(scope, cwd, data)
    if name in servers:
        raise AdminError(f'a server named "{name}" already exists in {scope} scope ({path}); remove it first')
    servers[name] = entry
    _write(path, data)
    return path


def remove_server(name: str, scope: str | None, cwd: Path) -> tuple[str, Path]:
    """Remove `name` from `scope` (None: the one scope that has it); returns the scope and its file."""
    found = []
    for candidate in [scope] if scope else list(SCOPES):
        path = scope_path(candidate, cwd)
        data = read_file(path)
        # json-ours: a deep copy of a value already parsed
        if name in _scope_servers(candidate, cwd, json.loads(json.dumps(data))):
            found.append((candidate, path, data))
    if not found:
        raise AdminError(f'no MCP server named "{name}" in {scope or "any"} scope')
    if len(found) > 1:
        scopes = ", ".join(s for s, _, _ in found)
        raise AdminError(f'"{name}" exists in several scopes ({scopes}); say which with -s')
    where, path, data = found[0]
    del _scope_servers(where, cwd, data)[name]
    _write(path, data)
    return where, path


def configured(cwd: Path) -> Any:
    """Every server configured for `cwd` (`yoke.mcp.config.McpConfig`: `servers`, `unapproved`, `rejected`,
    `warnings`, `errors`), as a session started there would see them."""
    from yoke.config.settings import load_settings
    from yoke.mcp.config import load_config

    return load_config(cwd, getattr(load_settings(cwd), "merged", {}) or {})


def find_server(name: str, cwd: Path) -> Any:
    """One configured server's `ServerConfig` (approved or not); AdminError when there is none."""
    config = configured(cwd)
    for group in (config.servers, config.unapproved, config.rejected):
        if name in group:
            return group[name]
    raise AdminError(f'no MCP server named "{name}" (see yoke mcp list)')


async def check_servers(config: Any, cwd: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """Connect to each approved server once; name -> its state (`status`, `tools`, `error`)."""
    from yoke.mcp.manager import McpManager
    from yoke.mcp.runtime import _auth_factory

    manager = McpManager(config.servers, cwd, auth_factory=_auth_factory(env))
    manager.start()
    try:
        await manager.wait_started()
    finally:
        await manager.aclose()
    return manager.servers


async def sign_in(server: Any, env: Mapping[str, str], open_browser: bool) -> None:
    """OAuth sign-in to a remote server; the tokens are stored in Yoke's home."""
    from yoke.mcp.oauth import login

    await login(server, env, open_browser=open_browser)


def sign_out(name: str, env: Mapping[str, str] | None = None) -> bool:
    """Forget a server's stored sign-in; False when there was none."""
    from yoke.mcp.oauth import auth_dir

    path = auth_dir(os.environ if env is None else env) / f"{name}.json"
    if not path.exists():
        return False
    path.unlink()
    return True


def serve(argv: list[str]) -> int:
    """`yoke mcp serve`: Yoke's own tools as an MCP server on stdio."""
    from yoke.mcp.serve import main

    return main(argv)
