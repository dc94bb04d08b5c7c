"""Other front-ends' ways of naming MCP servers, turned into `--mcp-config` values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def from_sdk(servers: Any) -> list[str]:
    """claude-agent-sdk's `mcp_servers` option (a dict of configs, or a file path) as `--mcp-config` values.
    In-process SDK servers (`"type": "sdk"`) keep only their type and name: the session reaches them through
    its SDK bridge (`SessionOptions.mcp_sdk_bridge`)."""
    if not servers:
        return []
    if isinstance(servers, str | Path):
        return [str(servers)]
    entries = {
        name: {k: v for k, v in dict(entry).items() if k != "instance"}
        for name, entry in servers.items()
        if isinstance(entry, dict)
    }
    return [json.dumps({"mcpServers": entries}, default=str)]


def from_acp(servers: Any) -> list[str]:
    """An ACP client's `mcpServers` (stdio: name/command/args/env list; http and sse: name/url/headers list)
    as `--mcp-config` values."""
    entries: dict[str, Any] = {}
    for server in servers or []:
        name = getattr(server, "name", None)
        if not name:
            continue
        url = getattr(server, "url", None)
        if url:
            headers = {h.name: h.value for h in getattr(server, "headers", None) or []}
            entries[name] = {"type": getattr(server, "type", None) or "http", "url": url, "headers": headers}
        elif getattr(server, "command", None):
            env = {e.name: e.value for e in getattr(server, "env", None) or []}
            entries[name] = {"command": server.command, "args": list(server.args or []), "env": env}
    return [json.dumps({"mcpServers": entries})] if entries else []
