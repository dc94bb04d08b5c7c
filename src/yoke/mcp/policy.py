"""Managed policy for MCP servers: `allowedMcpServers` / `deniedMcpServers`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yoke.mcp.config import ServerConfig


def policy_allows(cfg: ServerConfig, settings: Mapping[str, Any]) -> bool:
    """`allowedMcpServers` / `deniedMcpServers`: entries name a server (`serverName`), a command line
    (`serverCommand`, exact) or a URL (`serverUrl`, `*` wildcards). Deny wins; an allow list, when present,
    must match."""
    denied = settings.get("deniedMcpServers")
    if isinstance(denied, list) and any(policy_match(cfg, e) for e in denied):
        return False
    allowed = settings.get("allowedMcpServers")
    if isinstance(allowed, list):
        return any(policy_match(cfg, e) for e in allowed)
    return True


def policy_match(cfg: ServerConfig, entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    if entry.get("serverName") == cfg.name:
        return True
    command = entry.get("serverCommand")
    if isinstance(command, list) and cfg.type == "stdio" and command == [cfg.command, *cfg.args]:
        return True
    url = entry.get("serverUrl")
    if isinstance(url, str) and cfg.remote:
        pattern = "^" + ".*".join(re.escape(p) for p in url.split("*")) + "$"
        return re.match(pattern, cfg.url) is not None
    return False
