"""Which project servers (`.mcp.json`) may start: the settings' `enableAllProjectMcpServers`,
`enabledMcpjsonServers` and `disabledMcpjsonServers`, plus the choices Claude Code keeps per project in
~/.claude.json."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.mcp.config import claude_json_path, project_key, read_json


def approvals_of(settings: Mapping[str, Any], env: Mapping[str, str], cwd: Path) -> dict[str, Any]:
    """Approval keys from settings, plus the per-project choices Claude Code keeps in ~/.claude.json."""
    merged: dict[str, Any] = {
        "all": bool(settings.get("enableAllProjectMcpServers")),
        "enabled": set(_names(settings.get("enabledMcpjsonServers"))),
        "disabled": set(_names(settings.get("disabledMcpjsonServers"))),
    }
    try:
        projects = read_json(claude_json_path(env)).get("projects")
    except ValueError:
        projects = None
    entry = projects.get(project_key(cwd)) if isinstance(projects, dict) else None
    if isinstance(entry, dict):
        merged["all"] = merged["all"] or bool(entry.get("enableAllProjectMcpServers"))
        merged["enabled"] |= set(_names(entry.get("enabledMcpjsonServers")))
        merged["disabled"] |= set(_names(entry.get("disabledMcpjsonServers")))
    return merged


def _names(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def project_approval(name: str, approvals: dict[str, Any]) -> bool | None:
    """True approved, False rejected, None not decided yet."""
    if name in approvals["disabled"]:
        return False
    if approvals["all"] or name in approvals["enabled"]:
        return True
    return None
