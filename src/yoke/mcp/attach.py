"""The one call a session makes: read the MCP configuration and, when any server is configured, start
them all concurrently, wait (up to the start-up deadline) so their tools are offered from the first
turn, and register the tools. Runs with no server configured never import the `mcp` package.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any


def approval_hint(name: str) -> str:
    return (
        f'MCP server "{name}" from .mcp.json is not approved yet and was skipped; approve it in the terminal '
        f'(`yoke` here asks once), or add "enabledMcpjsonServers": ["{name}"] (or "enableAllProjectMcpServers": '
        "true) to .claude/settings.local.json"
    )


async def _settle(
    config: Any,
    cwd: Path,
    warnings: list[str],
    approve: Callable[[list[dict[str, str]]], Awaitable[dict[str, str]]] | None,
    sdk_bridge: Callable[[str, dict[str, Any]], Any] | None,
) -> None:
    """The configuration's problems said, the project's unapproved servers asked about (when someone can
    answer) or named, and the SDK's in-process servers bridged."""
    warnings.extend(e.message for e in config.errors)
    warnings.extend(config.warnings)
    if config.unapproved and approve is not None:
        await _ask_approval(config, cwd, approve, warnings)
    warnings.extend(approval_hint(name) for name in config.unapproved)
    for cfg in config.servers.values():
        if cfg.type == "sdk":
            cfg.bridge = sdk_bridge


async def attach_mcp(
    cwd: Path,
    settings: Mapping[str, Any],
    registry: Any,
    warnings: list[str],
    *,
    flag_configs: list[str] | None = None,
    strict: bool = False,
    notify: Callable[[str, str, dict[str, Any]], None] | None = None,
    hide: Callable[[list[str]], Iterable[str]] | None = None,  # the tools a bare deny rule hides
    elicit: Callable[..., Any] | None = None,
    env: Mapping[str, str] | None = None,
    plugin_dirs: list[Any] | None = None,
    sdk_bridge: Callable[[str, dict[str, Any]], Any] | None = None,
    approve: Callable[[list[dict[str, str]]], Awaitable[dict[str, str]]] | None = None,
    lifecycle: Any = None,
    asker: Callable[[], Any] | None = None,
) -> Any:
    """An `McpRuntime` (with `aclose()` and `entries()`), or None when no server is configured.
    `sdk_bridge` reaches the in-process servers of an Agent SDK driving the session (`"type": "sdk"`).
    `approve` (an interactive front-end's) is asked once about the project's `.mcp.json` servers nobody has
    approved or rejected yet; its answers are saved in `.claude/settings.local.json` as Claude Code keeps
    them (`enableAllProjectMcpServers`, `enabledMcpjsonServers`, `disabledMcpjsonServers`). A server's
    elicitation requests go to the Elicitation hooks on `lifecycle`, then to `elicit` or `asker()`'s
    `elicit`."""
    from yoke.mcp.config import load_config

    env = os.environ if env is None else env
    config = load_config(
        cwd, settings, flag_configs, strict, env, plugins=_plugins(settings, cwd, plugin_dirs, env)
    )
    await _settle(config, cwd, warnings, approve, sdk_bridge)
    if not config.servers:
        return _Idle(config) if (config.unapproved or config.rejected) else None
    from yoke.mcp.spawn import prespawn

    # stdio servers boot while the `mcp` package (over a second) is imported
    processes = await prespawn(config.servers, cwd, env)
    from yoke.mcp.runtime import McpRuntime

    runtime = McpRuntime(
        config,
        cwd,
        registry,
        notify=notify,
        hide=hide,
        elicit=elicit,
        env=env,
        prespawned=processes,
        lifecycle=lifecycle,
        asker=asker,
    )
    runtime.start()
    await runtime.wait_started()
    return runtime


async def _ask_approval(
    config: Any,
    cwd: Path,
    approve: Callable[[list[dict[str, str]]], Awaitable[dict[str, str]]],
    warnings: list[str],
) -> None:
    """Ask about the unapproved project servers; move each answered one where its answer puts it and save
    the answer. An unanswered one stays unapproved (asked again next time)."""
    from yoke.config.settings import local_settings_path
    from yoke.config.settings_write import add_to_list_setting, write_setting

    pending = [{"name": name, "description": _describe(cfg)} for name, cfg in config.unapproved.items()]
    answers = await approve(pending)
    path = local_settings_path(cwd)
    try:
        if "all" in answers.values():
            write_setting(path, ("enableAllProjectMcpServers",), True)
            answers = {name: answers.get(name) or "all" for name in config.unapproved}
        for name, answer in answers.items():
            if name not in config.unapproved or answer not in ("yes", "all", "no"):
                continue
            if answer == "no":
                add_to_list_setting(path, "disabledMcpjsonServers", name)
                config.rejected[name] = config.unapproved.pop(name)
            else:
                if answer == "yes":
                    add_to_list_setting(path, "enabledMcpjsonServers", name)
                config.servers[name] = config.unapproved.pop(name)
    except (OSError, ValueError) as exc:
        warnings.append(f"MCP approval could not be saved: {exc}")


def _describe(cfg: Any) -> str:
    if cfg.type in ("stdio",):
        return " ".join([cfg.command, *cfg.args])[:200]
    return f"{cfg.type} {cfg.url}"[:200]


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

    async def aclose(self) -> None:
        return None
