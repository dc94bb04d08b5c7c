"""The one call a session makes: read the MCP configuration and, when any server is configured, start
them all concurrently, wait (up to the start-up deadline) so their tools are offered from the first
turn, and register the tools. Runs with no server configured never import the `mcp` package.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


def approval_hint(name: str) -> str:
    return (
        f'MCP server "{name}" from .mcp.json is not approved yet and was skipped; approve it by adding '
        f'"enabledMcpjsonServers": ["{name}"] (or "enableAllProjectMcpServers": true) to '
        ".claude/settings.local.json"
    )


async def attach_mcp(
    cwd: Path,
    settings: Mapping[str, Any],
    registry: Any,
    warnings: list[str],
    *,
    flag_configs: list[str] | None = None,
    strict: bool = False,
    notify: Callable[[str, str, dict[str, Any]], None] | None = None,
    hide: Callable[[list[str]], list[str]] | None = None,
    elicit: Callable[..., Any] | None = None,
    env: Mapping[str, str] | None = None,
    plugin_dirs: list[Any] | None = None,
    sdk_bridge: Callable[[str, dict[str, Any]], Any] | None = None,
) -> Any:
    """An `McpRuntime` (with `aclose()` and `entries()`), or None when no server is configured.
    `sdk_bridge` reaches the in-process servers of an Agent SDK driving the session (`"type": "sdk"`)."""
    from yoke.mcp.config import load_config

    env = os.environ if env is None else env
    config = load_config(
        cwd, settings, flag_configs, strict, env, plugins=_plugins(settings, cwd, plugin_dirs, env)
    )
    warnings.extend(e.message for e in config.errors)
    warnings.extend(config.warnings)
    warnings.extend(approval_hint(name) for name in config.unapproved)
    for cfg in config.servers.values():
        if cfg.type == "sdk":
            cfg.bridge = sdk_bridge
    if not config.servers:
        return _Idle(config) if (config.unapproved or config.rejected) else None
    from yoke.mcp.spawn import prespawn

    # stdio servers boot while the `mcp` package (over a second) is imported
    processes = await prespawn(config.servers, cwd, env)
    from yoke.mcp.runtime import McpRuntime

    runtime = McpRuntime(
        config, cwd, registry, notify=notify, hide=hide, elicit=elicit, env=env, prespawned=processes
    )
    runtime.start()
    await runtime.wait_started()
    return runtime


def _plugins(settings: Mapping[str, Any], cwd: Path, plugin_dirs: list[Any] | None, env: Any) -> list[Any]:
    """The enabled plugins (their problems are reported where skills load them, not twice)."""
    if not plugin_dirs and not settings.get("enabledPlugins"):
        return []
    from yoke.plugins import enabled_plugins

    try:
        return enabled_plugins(settings, cwd, plugin_dirs=plugin_dirs or (), env=env, warnings=[])
    except Exception:
        return []


class _Idle:
    """Servers that are configured but not started (unapproved or rejected): listed, nothing to close."""

    def __init__(self, config: Any):
        self.config = config

    def entries(self) -> list[dict[str, Any]]:
        out = [{"name": n, "status": "disabled", "error": "not approved"} for n in self.config.unapproved]
        return out + [{"name": n, "status": "disabled", "error": "rejected"} for n in self.config.rejected]

    def attach_session(self, lifecycle: Any, tool_ctx: Any) -> None:
        return None

    async def aclose(self) -> None:
        return None
