"""Other agents' configuration, read into what Yoke and Claude Code's files hold (`yoke import-config`).

Each reader returns a `ForeignConfig`: MCP servers already in Claude Code's `mcpServers` shape (per scope:
a user-level file's go to the user scope, a project's to `.mcp.json`), the model and provider as a Yoke
profile (its key by reference only), instruction files to import from CLAUDE.md, and one line for each
setting that has no counterpart. The formats, read from each tool's source and documentation and checked
against files the tools wrote (tests/session/foreign/config/):

- Codex `$CODEX_HOME/config.toml` (`model`, `model_provider`, `[model_providers.<id>]` `base_url` /
  `env_key` / `wire_api`, `[mcp_servers.<name>]` `command`/`args`/`env`/`cwd` or `url`/`bearer_token_env_var`
  /`http_headers`/`env_http_headers`; `RawMcpServerConfig` in codex-rs); instructions `$CODEX_HOME/AGENTS.md`.
- Gemini CLI `~/.gemini/settings.json` and `.gemini/settings.json` (`mcpServers` `command`/`args`/`env`/`cwd`,
  `url` (+ `type`), `httpUrl`, `headers`; `model.name` (or an older plain `model`); `context.fileName`);
  instructions `GEMINI.md` (or the names `context.fileName` gives) in `~/.gemini` and the project.
- opencode `$XDG_CONFIG_HOME/opencode/opencode.json[c]` and the project's `opencode.json[c]` /
  `.opencode/opencode.json[c]` (`mcp` `{type: local, command: [...], environment}` or `{type: remote, url,
  headers}`, also under `mcp.servers` (v2); `model` as `provider/model`; `provider.<id>.options` `baseURL` /
  `apiKey`; `instructions`); `{env:VAR}` references become `${VAR}`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yoke.jsonsafe import loads as safe_loads
from yoke.session.foreign.history import ForeignFormatError

# Gemini CLI and opencode name environment variables in their own ways; Claude Code's files say ${VAR}.
_DOLLAR_VAR = re.compile(r"\$(?!\{)([A-Za-z_][A-Za-z0-9_]*)")
_OPENCODE_VAR = re.compile(r"\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
_CLOSING = re.compile(r"\s*[}\]]")
PROVIDERS = {
    "openai": "openai",
    "anthropic": "anthropic",
    "google": "gemini",
    "gemini": "gemini",
    "xai": "grok",
}


@dataclass
class ForeignConfig:
    source: str
    files: list[Path] = field(default_factory=list)  # what was read
    mcp: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)  # scope -> name -> entry
    profile: dict[str, Any] | None = None  # a profile's fields (config/profiles.py), or None
    instructions: list[tuple[str, str]] = field(default_factory=list)  # (scope, path to import)
    not_mapped: list[str] = field(default_factory=list)


def read_config(source: str, cwd: Path, env: Mapping[str, str]) -> ForeignConfig:
    readers = {"codex": _codex, "gemini": _gemini, "opencode": _opencode}
    if source not in readers:
        raise ForeignFormatError(f"--from takes one of {', '.join(readers)}")
    found = ForeignConfig(source)
    readers[source](found, cwd, env)
    return found


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home()).expanduser()


# ---- Codex -----------------------------------------------------------------------------------------


def _codex(found: ForeignConfig, cwd: Path, env: Mapping[str, str]) -> None:
    import tomllib

    home = Path(env.get("CODEX_HOME") or _home(env) / ".codex").expanduser()
    path = home / "config.toml"
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ForeignFormatError(f"{path}: not readable TOML ({exc}); nothing was imported.") from None
        found.files.append(path)
        _codex_data(found, data, path)
    if (home / "AGENTS.md").is_file():
        found.instructions.append(("user", str(home / "AGENTS.md")))


def _codex_data(found: ForeignConfig, data: dict[str, Any], path: Path) -> None:
    handled = {"mcp_servers", "model", "model_provider", "model_providers"}
    for name, entry in (data.get("mcp_servers") or {}).items():
        converted = _codex_server(entry) if isinstance(entry, dict) else None
        if converted is None:
            found.not_mapped.append(f"{path}: MCP server {name!r} (neither a command nor a url)")
            continue
        if entry.get("enabled") is False:
            found.not_mapped.append(f"{path}: MCP server {name!r} is disabled there; not copied")
            continue
        dropped = sorted(set(entry) - CODEX_SERVER_KEYS)
        if dropped:
            found.not_mapped.append(f"{path}: MCP server {name!r}: {', '.join(dropped)}")
        found.mcp.setdefault("user", {})[name] = converted
    model, provider_id = data.get("model"), data.get("model_provider") or "openai"
    providers = data.get("model_providers") or {}
    provider = providers.get(provider_id) if isinstance(providers, dict) else None
    if isinstance(model, str) and model:
        profile: dict[str, Any] = {"provider": "openai", "model": model}
        if isinstance(provider, dict):
            if provider.get("base_url"):
                profile["baseUrl"] = provider["base_url"]
            if provider.get("wire_api") == "responses":
                profile["provider"] = "openai-responses"
        key_var = provider.get("env_key") if isinstance(provider, dict) else None
        profile["credential"] = {"env": key_var or "OPENAI_API_KEY"}
        found.profile = profile
    for key in sorted(set(data) - handled):
        found.not_mapped.append(f"{path}: {key}")


CODEX_SERVER_KEYS = {"command", "args", "env", "cwd", "url", "bearer_token_env_var", "http_headers"}
CODEX_SERVER_KEYS |= {"env_http_headers", "enabled"}


def _stdio(command: str, args: Any, env: Any, references: bool = True) -> dict[str, Any]:
    """A stdio server in Claude Code's shape; with `references`, the source's variable references in
    environment values as `${VAR}` (Codex's values are literal: they are copied as they are)."""
    out: dict[str, Any] = {"type": "stdio", "command": command, "args": [str(a) for a in args or []]}
    if isinstance(env, dict) and env:
        out["env"] = {str(k): _vars(str(v)) if references else str(v) for k, v in env.items()}
    return out


def _codex_server(entry: dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(entry.get("command"), str):
        return _stdio(entry["command"], entry.get("args"), entry.get("env"), references=False)
    if isinstance(entry.get("url"), str):
        headers = dict(entry.get("http_headers") or {})
        for header, var in (entry.get("env_http_headers") or {}).items():
            headers[header] = f"${{{var}}}"
        if entry.get("bearer_token_env_var"):
            headers["Authorization"] = f"Bearer ${{{entry['bearer_token_env_var']}}}"
        out: dict[str, Any] = {"type": "http", "url": entry["url"]}
        if headers:
            out["headers"] = headers
        return out
    return None


# ---- Gemini CLI -----------------------------------------------------------------------------------------


def _gemini(found: ForeignConfig, cwd: Path, env: Mapping[str, str]) -> None:
    home = Path(env.get("GEMINI_CLI_HOME") or _home(env)).expanduser() / ".gemini"
    names = ["GEMINI.md"]
    for scope, folder in (("user", home), ("project", cwd / ".gemini")):
        path = folder / "settings.json"
        if not path.is_file():
            continue
        data = _json_file(path)
        found.files.append(path)
        names = _gemini_data(found, data, path, scope) or names
    for scope, folder in (("user", home), ("project", cwd)):
        for name in names:
            if (folder / name).is_file():
                found.instructions.append((scope, str(folder / name)))


def _gemini_data(found: ForeignConfig, data: dict[str, Any], path: Path, scope: str) -> list[str] | None:
    handled = {"mcpServers", "model", "context", "security", "$schema"}
    for name, entry in (data.get("mcpServers") or {}).items():
        converted = _gemini_server(entry) if isinstance(entry, dict) else None
        if converted is None:
            found.not_mapped.append(f"{path}: MCP server {name!r} (no command, url or httpUrl)")
            continue
        dropped = sorted(set(entry) - {"command", "args", "env", "cwd", "url", "httpUrl", "headers", "type"})
        if dropped:
            found.not_mapped.append(f"{path}: MCP server {name!r}: {', '.join(dropped)}")
        found.mcp.setdefault(scope, {})[name] = converted
    model = data.get("model")
    model = model.get("name") if isinstance(model, dict) else model
    if isinstance(model, str) and model:
        found.profile = {"provider": "gemini", "model": model, "credential": {"env": "GEMINI_API_KEY"}}
    for key in sorted(set(data) - handled):
        found.not_mapped.append(f"{path}: {key}")
    context = data.get("context") if isinstance(data.get("context"), dict) else {}
    names = (context or {}).get("fileName")
    if isinstance(names, str):
        return [names]
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else None


def _gemini_server(entry: dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(entry.get("command"), str):
        return _stdio(entry["command"], entry.get("args"), entry.get("env"))
    url = entry.get("httpUrl") or entry.get("url")
    if not isinstance(url, str):
        return None
    kind = "http" if entry.get("httpUrl") or entry.get("type") == "http" else "sse"
    out: dict[str, Any] = {"type": kind, "url": url}
    if entry.get("headers"):
        out["headers"] = {k: _vars(str(v)) for k, v in entry["headers"].items()}
    return out


def _vars(text: str) -> str:
    """`$VAR` (Gemini CLI) and `{env:VAR}` (opencode) as Claude Code's `${VAR}`."""
    return _OPENCODE_VAR.sub(r"${\1}", _DOLLAR_VAR.sub(r"${\1}", text))


# ---- opencode -----------------------------------------------------------------------------------------------


def _opencode(found: ForeignConfig, cwd: Path, env: Mapping[str, str]) -> None:
    config_home = Path(env.get("XDG_CONFIG_HOME") or _home(env) / ".config").expanduser() / "opencode"
    places = [("user", config_home), ("project", cwd), ("project", cwd / ".opencode")]
    for scope, folder in places:
        for name in ("opencode.json", "opencode.jsonc"):
            path = folder / name
            if path.is_file():
                data = _json_file(path, comments=True)
                found.files.append(path)
                _opencode_data(found, data, path, scope)
    if (config_home / "AGENTS.md").is_file():
        found.instructions.append(("user", str(config_home / "AGENTS.md")))


def _opencode_data(found: ForeignConfig, data: dict[str, Any], path: Path, scope: str) -> None:
    handled = {"mcp", "model", "provider", "instructions", "$schema"}
    mcp = data.get("mcp")
    servers: dict[str, Any] = mcp if isinstance(mcp, dict) else {}
    if isinstance(servers.get("servers"), dict):  # v2
        servers = servers["servers"]
    for name, entry in servers.items():
        converted = _opencode_server(entry) if isinstance(entry, dict) else None
        if converted is None:
            found.not_mapped.append(f"{path}: MCP server {name!r} (not a local command or a remote url)")
            continue
        if entry.get("enabled") is False or entry.get("disabled") is True:
            found.not_mapped.append(f"{path}: MCP server {name!r} is disabled there; not copied")
            continue
        found.mcp.setdefault(scope, {})[name] = converted
    model = data.get("model")
    if isinstance(model, str) and "/" in model:
        provider_id, _, model_id = model.partition("/")
        profile: dict[str, Any] = {"provider": PROVIDERS.get(provider_id, provider_id), "model": model_id}
        options = ((data.get("provider") or {}).get(provider_id) or {}).get("options") or {}
        if options.get("baseURL"):
            profile["baseUrl"] = options["baseURL"]
        key = options.get("apiKey")
        var = _OPENCODE_VAR.fullmatch(key) if isinstance(key, str) else None
        if var:
            profile["credential"] = {"env": var.group(1)}
        elif key:
            found.not_mapped.append(
                f"{path}: provider.{provider_id}.options.apiKey (a key in plain text is not copied)"
            )
        if profile["provider"] not in PROVIDERS.values():
            found.not_mapped.append(f"{path}: model {model!r} (Yoke has no provider {provider_id!r})")
        else:
            found.profile = profile
    for item in data.get("instructions") or []:
        if isinstance(item, str):
            base = path.parent.parent if path.parent.name == ".opencode" else path.parent
            found.instructions.append((scope, item if item.startswith(("/", "~")) else str(base / item)))
    for key in sorted(set(data) - handled):
        found.not_mapped.append(f"{path}: {key}")


def _opencode_server(entry: dict[str, Any]) -> dict[str, Any] | None:
    command = entry.get("command")
    if (
        entry.get("type") == "local"
        and isinstance(command, list)
        and command
        and all(isinstance(c, str) for c in command)
    ):
        return _stdio(command[0], command[1:], entry.get("environment"))
    if entry.get("type") == "remote" and isinstance(entry.get("url"), str):
        out: dict[str, Any] = {"type": "http", "url": entry["url"]}
        if entry.get("headers"):
            out["headers"] = {k: _vars(str(v)) for k, v in entry["headers"].items()}
        return out
    return None


# ---- files -------------------------------------------------------------------------------------------------


def _json_file(path: Path, comments: bool = False) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ForeignFormatError(
            f"{path}: cannot read it ({exc.strerror or exc}); nothing was imported."
        ) from None
    try:
        data = safe_loads(_without_comments(text) if comments else text)
    except ValueError as exc:
        raise ForeignFormatError(f"{path}: not JSON ({exc}); nothing was imported.") from None
    if not isinstance(data, dict):
        raise ForeignFormatError(f"{path}: not a JSON object; nothing was imported.")
    return data


def _without_comments(text: str) -> str:
    """JSONC (opencode.jsonc): `//` and `/* */` comments and trailing commas removed, strings left alone."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            if not (c == "," and _CLOSING.match(text, i + 1)):  # a trailing comma is dropped
                out.append(c)
            i += 1
    return "".join(out)
