"""MCP server configuration, read exactly where Claude Code reads it (and Yoke's own file).

Sources, highest precedence first (a name defined twice takes the whole entry from the winner):
`--mcp-config` (flag), local (`~/.claude.json` -> `projects[<dir>].mcpServers`), project (`.mcp.json`),
Yoke's user file (`~/.yoke/mcp.json`), user (`~/.claude.json` -> `mcpServers`). A managed
`managed-mcp.json` takes exclusive control; `--strict-mcp-config` keeps only the flag's servers.

Nothing here imports the `mcp` package: reading configuration must stay cheap.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from yoke.fsutil import read_regular_text
from yoke.jsonsafe import loads as safe_json
from yoke.mcp.policy import policy_allows
from yoke.records import Record, dataclass
from yoke.regex import lazy_compile

TRANSPORTS = ("stdio", "sse", "http", "ws")
_TYPE_ALIASES = {"streamable-http": "http", "streamableHttp": "http", "websocket": "ws"}
_NAME = lazy_compile(r"^[A-Za-z0-9_-]+$")
RESERVED_NAMES = ("claude-in-chrome", "computer-use")
MANAGED_MCP_PATHS = (Path("/etc/yoke/managed-mcp.json"), Path("/etc/claude-code/managed-mcp.json"))
_VAR = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass
class ServerConfig:
    """One server as configured, after `${VAR}` expansion."""

    name: str
    type: str  # stdio | sse | http | ws
    scope: str  # flag | local | project | yoke | user | managed | plugin
    source: str  # the file (or "--mcp-config") it came from
    command: str = ""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    timeout_ms: int | None = None  # per tool call; overrides MCP_TOOL_TIMEOUT
    always_load: bool = False  # never deferred behind tool search
    raw: dict[str, Any] = field(default_factory=dict)  # the entry as written (for `yoke mcp get`)
    missing_vars: list[str] = field(default_factory=list)
    bridge: Any = None  # "sdk" servers: async (server name, JSON-RPC message) -> JSON-RPC answer or None

    @property
    def remote(self) -> bool:
        return self.type not in ("stdio", "sdk")


@dataclass
class ConfigError:
    name: str
    type: str  # unknown_type | url_missing_type | invalid_config | reserved_name
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "type": self.type, "message": self.message}


class McpConfig(Record):
    __slots__ = ("servers", "unapproved", "rejected", "errors", "warnings")

    def __init__(self) -> None:
        self.servers: dict[str, ServerConfig] = {}  # the servers to connect
        self.unapproved: dict[str, ServerConfig] = {}  # project servers awaiting approval
        self.rejected: dict[str, ServerConfig] = {}  # disabledMcpjsonServers / policy
        self.errors: list[ConfigError] = []
        self.warnings: list[str] = []


# ---- paths -------------------------------------------------------------------------------------------


def claude_json_path(env: Mapping[str, str] | None = None) -> Path:
    """`~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json` when that is set (as Claude Code does)."""
    env = os.environ if env is None else env
    if env.get("CLAUDE_CONFIG_DIR"):
        return Path(env["CLAUDE_CONFIG_DIR"]).expanduser() / ".claude.json"
    return Path(env.get("HOME") or Path.home()).expanduser() / ".claude.json"


def yoke_mcp_path(env: Mapping[str, str] | None = None) -> Path:
    from yoke.config.settings import yoke_home_dir

    return yoke_home_dir(env=env) / "mcp.json"


def project_mcp_path(cwd: Path) -> Path:
    """The `.mcp.json` that applies: the nearest one from `cwd` up to the repository root (cwd's own
    outside a repository)."""
    from yoke.config.settings import git_root

    top = git_root(cwd)
    if top is None:
        return cwd / ".mcp.json"
    for folder in (cwd, *cwd.parents):
        if (folder / ".mcp.json").is_file() or folder == top:
            return folder / ".mcp.json"
    return cwd / ".mcp.json"


def project_key(cwd: Path) -> str:
    return str(cwd.resolve())


# ---- reading -----------------------------------------------------------------------------------------


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from disk; {} when absent. A broken file raises ValueError naming it."""
    try:
        text = read_regular_text(path)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not text.strip():
        return {}
    try:
        data = safe_json(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object")
    return data


def expand(value: str, env: Mapping[str, str], missing: list[str]) -> str:
    """`${VAR}` and `${VAR:-default}`; an unset variable without a default stays as written (and is noted)."""

    def one(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        if env.get(name):
            return env[name]
        if default is not None:
            return default
        if name in env:
            return ""
        missing.append(name)
        return m.group(0)

    return _VAR.sub(one, value)


def parse_server(
    name: str, entry: Any, scope: str, source: str, env: Mapping[str, str]
) -> ServerConfig | ConfigError:
    """One `mcpServers` entry, checked and expanded."""
    if not _NAME.match(name):
        return ConfigError(
            name, "invalid_config", f'MCP server name "{name}" may hold only letters, digits, - and _'
        )
    if name in RESERVED_NAMES:
        return ConfigError(name, "reserved_name", f'MCP server name "{name}" is reserved')
    if not isinstance(entry, dict):
        return ConfigError(name, "invalid_config", f'MCP server "{name}" must be a JSON object')
    kind = entry.get("type")
    if kind is None:
        if "url" in entry:
            return ConfigError(
                name,
                "url_missing_type",
                f'MCP server "{name}" has a "url" but no "type"; add "type": "http" (or "sse", "ws")',
            )
        kind = "stdio"
    kind = _TYPE_ALIASES.get(kind, kind)
    if kind == "sdk":  # an Agent SDK's in-process server, reached through the session's SDK bridge
        return ServerConfig(name=name, type="sdk", scope=scope, source=source, raw=entry)
    if kind not in TRANSPORTS:
        return ConfigError(
            name, "unknown_type", f'MCP server "{name}": unknown type {kind!r} (use stdio, sse, http or ws)'
        )
    missing: list[str] = []
    cfg = ServerConfig(name=name, type=kind, scope=scope, source=source, raw=entry)
    try:
        if kind == "stdio":
            if not isinstance(entry.get("command"), str) or not entry["command"].strip():
                raise ValueError(f'MCP server "{name}" needs a "command"')
            cfg.command = expand(entry["command"], env, missing)
            cfg.args = [expand(_str(a, name, "args"), env, missing) for a in _list(entry.get("args"), name)]
            cfg.env = {
                k: expand(_str(v, name, "env"), env, missing)
                for k, v in _dict(entry.get("env"), name).items()
            }
        else:
            if not isinstance(entry.get("url"), str) or not entry["url"].strip():
                raise ValueError(f'MCP server "{name}" needs a "url"')
            cfg.url = expand(entry["url"], env, missing)
            cfg.headers = {
                k: expand(_str(v, name, "headers"), env, missing)
                for k, v in _dict(entry.get("headers"), name).items()
            }
        timeout = entry.get("timeout")
        if timeout is not None:
            if not isinstance(timeout, int | float) or timeout <= 0:
                raise ValueError(f'MCP server "{name}": "timeout" must be a positive number of milliseconds')
            cfg.timeout_ms = int(timeout)
        cfg.always_load = bool(entry.get("alwaysLoad"))
    except ValueError as exc:
        return ConfigError(name, "invalid_config", str(exc))
    cfg.missing_vars = sorted(set(missing))
    return cfg


def _list(value: Any, name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f'MCP server "{name}": "args" must be a list of strings')
    return value


def _dict(value: Any, name: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f'MCP server "{name}": "env" and "headers" must be objects of strings')
    return value


def _str(value: Any, name: str, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f'MCP server "{name}": every value in "{what}" must be a string')
    return str(value)


def _servers_of(data: dict[str, Any]) -> dict[str, Any]:
    servers = data.get("mcpServers")
    return servers if isinstance(servers, dict) else {}


def read_flag_config(value: str, cwd: Path) -> tuple[dict[str, Any], str]:
    """One `--mcp-config` value: a JSON string or a file."""
    text = value.strip()
    if text.startswith("{"):
        try:
            data = safe_json(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--mcp-config: not valid JSON (column {exc.colno}: {exc.msg})") from None
        if not isinstance(data, dict):
            raise ValueError("--mcp-config: expected a JSON object with mcpServers")
        return data, "--mcp-config"
    path = (cwd / Path(value).expanduser()).resolve()
    if not path.is_file():
        raise ValueError(f"--mcp-config: no such file {value}")
    return read_json(path), str(path)


# ---- the whole picture -------------------------------------------------------------------------------


def load_config(
    cwd: Path,
    settings: Mapping[str, Any] | None = None,
    flag_configs: list[str] | None = None,
    strict: bool = False,
    env: Mapping[str, str] | None = None,
    managed_paths: tuple[Path, ...] | None = None,
    plugins: list[Any] | None = None,
) -> McpConfig:
    """Every configured server, with approval and policy applied. `settings` is the merged settings;
    `plugins` the session's enabled plugins (yoke.plugins), whose servers are named `plugin_<plugin>_<name>`
    (so their tools are `mcp__plugin_<plugin>_<name>__<tool>`, as in Claude Code)."""
    env = os.environ if env is None else env
    settings = settings or {}
    out = McpConfig()
    layers = _layers(cwd, flag_configs, strict, env, managed_paths, plugins, out)
    chosen: dict[str, ServerConfig] = {}
    for scope, source, servers in layers:
        for name, entry in servers.items():
            parsed = parse_server(str(name), entry, scope, source, env)
            if isinstance(parsed, ConfigError):
                out.errors.append(parsed)
                continue
            chosen[parsed.name] = parsed
    from yoke.mcp.approval import approvals_of, project_approval

    approvals = approvals_of(settings, env, cwd)
    for name, cfg in chosen.items():
        if cfg.missing_vars:
            out.warnings.append(
                f'MCP server "{name}": environment variable(s) {", ".join(cfg.missing_vars)} not set'
            )
        if not policy_allows(cfg, settings):
            out.rejected[name] = cfg
        elif cfg.scope == "project":
            verdict = project_approval(name, approvals)
            if verdict is True:
                out.servers[name] = cfg
            elif verdict is False:
                out.rejected[name] = cfg
            else:
                out.unapproved[name] = cfg
        else:
            out.servers[name] = cfg
    return out


def _layers(
    cwd: Path,
    flag_configs: list[str] | None,
    strict: bool,
    env: Mapping[str, str],
    managed_paths: tuple[Path, ...] | None,
    plugins: list[Any] | None,
    out: McpConfig,
) -> list[tuple[str, str, dict[str, Any]]]:
    """Every place servers are configured, as (scope, source, mcpServers), lowest precedence first: a
    managed file alone, or plugins, user, Yoke's own, project and local (none with --strict-mcp-config);
    then the --mcp-config values. What cannot be read is reported in `out`."""
    layers: list[tuple[str, str, dict[str, Any]]] = []
    managed = _managed(managed_paths, out)
    if managed is not None:
        layers.append(("managed", managed[0], managed[1]))
    elif not strict:
        claude_json = _safe_read(claude_json_path(env), out)
        yoke_json = _safe_read(yoke_mcp_path(env), out)
        project_path = project_mcp_path(cwd)
        for plugin in plugins or []:
            layers.append(("plugin", str(plugin.root), _plugin_servers(plugin)))
        layers.append(("user", str(claude_json_path(env)), _servers_of(claude_json)))
        layers.append(("yoke", str(yoke_mcp_path(env)), _servers_of(yoke_json)))
        layers.append(("project", str(project_path), _servers_of(_safe_read(project_path, out))))
        layers.append(("local", str(claude_json_path(env)), _local_servers(claude_json, cwd)))
    for value in flag_configs or []:
        try:
            data, source = read_flag_config(value, cwd)
        except ValueError as exc:
            out.errors.append(ConfigError("--mcp-config", "invalid_config", str(exc)))
            continue
        layers.append(("flag", source, _servers_of(data)))
    return layers


def _plugin_servers(plugin: Any) -> dict[str, Any]:
    try:
        configs = plugin.mcp_configs()
    except Exception:  # a broken plugin never stops the session (yoke.plugins reports it)
        return {}
    prefix = "plugin_" + re.sub(r"[^A-Za-z0-9_-]", "_", plugin.name) + "_"
    return {prefix + re.sub(r"[^A-Za-z0-9_-]", "_", str(n)): plugin.expand(e) for n, e in configs.items()}


def _safe_read(path: Path, out: McpConfig) -> dict[str, Any]:
    try:
        return read_json(path)
    except ValueError as exc:
        out.warnings.append(str(exc))
        return {}


def _local_servers(claude_json: dict[str, Any], cwd: Path) -> dict[str, Any]:
    projects = claude_json.get("projects")
    if not isinstance(projects, dict):
        return {}
    entry = projects.get(project_key(cwd))
    return _servers_of(entry) if isinstance(entry, dict) else {}


def _managed(paths: tuple[Path, ...] | None, out: McpConfig) -> tuple[str, dict[str, Any]] | None:
    for path in MANAGED_MCP_PATHS if paths is None else paths:
        if path.is_file():
            return str(path), _servers_of(_safe_read(path, out))
    return None
