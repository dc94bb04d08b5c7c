"""Assembly, MCP: which settings may approve a project's `.mcp.json` servers, the session's servers
(`mcp/attach.py`), and a sub-agent definition's own servers."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.session.options import SessionOptions

if TYPE_CHECKING:
    from yoke.loop.lifecycle import Lifecycle
    from yoke.permissions.pipeline import PermissionGate
    from yoke.session.resources import ResourceStack

_MCP_APPROVALS = ("enableAllProjectMcpServers", "enabledMcpjsonServers")


def mcp_settings(settings: Any, cwd: Path, merged: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """The settings MCP reads, where a project's own files approve its `.mcp.json` servers only once the
    folder is trusted: approving them is granting, like an allow rule (refusals still count)."""
    from yoke.config.trust import is_trusted
    from yoke.permissions.build import PROJECT_SCOPES

    sources = list(getattr(settings, "sources", []) or [])
    if not any(s.scope in PROJECT_SCOPES and any(k in s.data for k in _MCP_APPROVALS) for s in sources):
        return merged
    if is_trusted(cwd, settings.yoke_home, home=settings.home, claude_dir=settings.claude_dir):
        return merged
    warnings.append(
        f"this workspace ({cwd}) has not been trusted: its settings do not approve its .mcp.json servers; "
        "run `yoke trust` in it to trust it"
    )
    own = settings.merged_from([s for s in sources if s.scope not in PROJECT_SCOPES])
    chosen = {k: v for k, v in merged.items() if k not in _MCP_APPROVALS}
    chosen.update({k: own[k] for k in _MCP_APPROVALS if k in own})
    return chosen


async def start_mcp(
    options: SessionOptions,
    cwd: Path,
    merged: dict[str, Any],
    registry: Any,
    gate: PermissionGate,
    env: Mapping[str, str],
    warnings: list[str],
    events: list[ev.Event],
    lifecycle: Lifecycle,
    asker: Callable[[], Any],
) -> Any:
    """MCP servers from every configuration source, started concurrently and waited for up to the
    start-up deadline (yoke.mcp.attach); None when none is configured (the `mcp` package stays unloaded).
    A server's elicitation requests go to the Elicitation hooks on `lifecycle`, then to `asker()` (the
    front-end's asker at that moment)."""
    from yoke.mcp.attach import attach_mcp

    def notify(kind: str, message: str, data: dict[str, Any]) -> None:
        events.append(ev.Notice(kind, message, data))

    return await attach_mcp(
        cwd,
        merged,
        registry,
        warnings,
        flag_configs=options.mcp_config,
        strict=options.strict_mcp_config,
        notify=notify,
        hide=gate.hidden_tools,
        env=env,
        plugin_dirs=list(options.plugin_dirs),
        sdk_bridge=options.mcp_sdk_bridge,
        approve=getattr(options.asker, "approve_mcp_servers", None) if options.interactive else None,
        lifecycle=lifecycle,
        asker=asker,
    )


async def agent_mcp(
    servers: dict[str, Any],
    label: str,
    cwd: Path,
    registry: Any,
    env: Mapping[str, str],
    warnings: list[str],
    resources: ResourceStack,
) -> None:
    """A sub-agent definition's own MCP servers (`mcpServers` entries written out in full) run for that
    agent only, closed with it; servers named by a string are the session's own, whose tools it has."""
    if not servers:
        return
    from yoke.mcp.attach import attach_mcp

    runtime = await attach_mcp(
        cwd, {}, registry, warnings, flag_configs=[json.dumps({"mcpServers": servers})], strict=True, env=env
    )
    if runtime is not None and hasattr(runtime, "aclose"):
        resources.add(runtime, f"MCP servers of agent {label}")
