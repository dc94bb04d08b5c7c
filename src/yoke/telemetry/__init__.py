"""OpenTelemetry export with Claude Code's switches and names (docs/observability.md).

Nothing here imports OpenTelemetry: `enabled(env)` is all a session asks when telemetry is off. When it is
on, `yoke.telemetry.attach` wires a session's events, lifecycle and provider transport to exporters that run
in a thread of their own (`yoke.telemetry.worker`), so a turn never waits for an import or an export.
"""

from __future__ import annotations

from collections.abc import Mapping

_TRUE = ("1", "true", "yes", "on")


def enabled(env: Mapping[str, str]) -> bool:
    """`CLAUDE_CODE_ENABLE_TELEMETRY` is set to a true value (Claude Code's master switch)."""
    return (env.get("CLAUDE_CODE_ENABLE_TELEMETRY") or "").strip().lower() in _TRUE


def truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in _TRUE
