"""Debug lines: one line per step that explains what the loop is doing (`--debug`, `--debug-file`, and
`/debug`, which turns them on for the rest of a session, written to a file in its folder)."""

from __future__ import annotations

import sys
from pathlib import Path

from yoke import events as ev


def debug_line(event: ev.Event) -> str | None:
    if isinstance(event, ev.TurnStarted):
        return f"turn {event.turn}: requesting"
    if isinstance(event, ev.UsageEvent):
        u = event.usage
        return (
            f"usage {event.model}: in {u.input_tokens} out {u.output_tokens} cache read "
            f"{u.cache_read_input_tokens} write {u.cache_creation_input_tokens} · ${event.cost_usd:.5f}"
        )
    if isinstance(event, ev.PermissionDecided):
        return f"permission {event.tool_name} {event.tool_use_id}: {event.behavior} ({event.source})"
    if isinstance(event, ev.ToolResultEvent):
        return f"tool {event.name} {event.tool_use_id}: {'error' if event.is_error else 'ok'}"
    if isinstance(event, ev.Notice):
        return f"{event.kind}: {event.message}"
    if isinstance(event, ev.Result):
        return f"result {event.reason} after {event.num_turns} turns, {event.duration_ms} ms"
    return None


def write_debug(event: ev.Event, path: str | Path | None = None) -> None:
    """The event's debug line, appended to `path` (or on stderr when there is none or it cannot be written)."""
    line = debug_line(event)
    if not line:
        return
    if path:
        try:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"[debug] {line}\n")
            return
        except OSError:
            pass  # an unwritable debug file must not break the run: fall back to stderr
    print(f"[debug] {line}", file=sys.stderr, flush=True)
