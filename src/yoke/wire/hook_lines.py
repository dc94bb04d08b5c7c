"""Hook lifecycle lines for stream-json output (`--include-hook-events`), in Claude Code's shapes.

`{"type":"system","subtype":"hook_started","hook_id","hook_name","hook_event","uuid","session_id"}` when a
hook starts and `hook_response` (adding `output`, `stdout`, `stderr`, `exit_code`, `outcome`:
success|error|cancelled) when it ends. SessionStart and Setup hooks are reported even without the flag, as
Claude Code does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from yoke.ids import new_uuid

if TYPE_CHECKING:
    from yoke.hooks.runners import HookRun

ReportFn = Callable[[str, "HookRun"], None]

ALWAYS_EMITTED = frozenset({"SessionStart", "Setup"})


def should_emit(event: str, include_hook_events: bool) -> bool:
    return include_hook_events or event in ALWAYS_EMITTED


def stream_reporter(emit: Callable[[dict[str, Any]], None], include_hook_events: bool) -> ReportFn:
    """An `on_report` for the hook listener that prints Claude Code's lines through `emit`."""

    def report(phase: str, run: HookRun) -> None:
        if should_emit(run.event, include_hook_events):
            emit(hook_event_line(phase, run))

    return report


def hook_event_line(phase: str, run: HookRun, session_id: str | None = None) -> dict[str, Any]:
    """The stream-json line for a runner report (`phase` is "started" or "response")."""
    line: dict[str, Any] = {
        "type": "system",
        "subtype": "hook_started" if phase == "started" else "hook_response",
        "hook_id": run.hook_id,
        "hook_name": run.hook_name,
        "hook_event": run.event,
    }
    if phase != "started":
        output = run.stdout if run.outcome == "success" else (run.error or run.stderr)
        line.update(
            {
                "output": output,
                "stdout": run.stdout,
                "stderr": run.stderr,
                "exit_code": run.exit_code,
                "outcome": run.outcome,
            }
        )
        if run.exit_code is None:
            line.pop("exit_code")
    line["uuid"] = new_uuid()
    line["session_id"] = session_id if session_id is not None else run.session_id
    return line
