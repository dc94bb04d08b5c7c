"""The hooks configured for sessions started in a folder, as `yoke hooks` lists them: every settings file
(managed, --settings, local, project, user) and enabled plugin, each hook with where it comes from and
whether it runs (an untrusted folder's project hooks are skipped)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def configured_hooks(cwd: Path, flag_settings: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per hook handler (`event`, `matcher`, `type`, `target`, `if`, `timeout`, `async`, `scope`,
    `source`, `state`: active or skipped), and the warnings met reading them."""
    from yoke.config.settings import load_settings
    from yoke.hooks.build import plugin_hook_groups, settings_hooks
    from yoke.plugins import enabled_plugins

    settings = load_settings(cwd, flag_settings=flag_settings)
    hooks = settings_hooks(settings)
    hooks.groups += plugin_hook_groups(
        enabled_plugins(settings, settings.cwd, warnings=hooks.warnings), hooks.warnings
    )
    rows = [_row(g, h, "active") for g in hooks.groups for h in g.handlers]
    rows += [_row(g, h, "skipped") for g in hooks.skipped for h in g.handlers]
    return rows, settings.warnings + hooks.warnings


def _row(group, handler, state: str) -> dict:
    return {
        "event": group.event,
        "matcher": group.matcher,
        "type": handler.type,
        "target": handler.describe(),
        "if": handler.if_rule,
        "timeout": handler.timeout,
        "async": handler.run_async,
        "scope": group.scope,
        "source": group.source,
        "state": state,
    }
