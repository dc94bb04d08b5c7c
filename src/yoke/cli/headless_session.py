"""A headless session: the assembled agent plus the printer it reports to (built by `session_setup`)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yoke.cli.printers import Printer
from yoke.loop import events as ev
from yoke.loop.turn import Agent


@dataclass
class HeadlessSession:
    agent: Agent
    printer: Printer
    started: ev.SessionStarted
    input_format: str
    provider: Any
    cwd: Path
    model: str
    tool_ctx: Any
    warnings: list[str] = field(default_factory=list)
    permission_prompt_tool: str | None = None
    debug: bool = False

    async def run(self, prompt: str | list) -> ev.Result | None:
        """Run one query, printing every event; returns its result."""
        self.printer.handle(self.started)
        for warning in self.warnings:
            self.printer.handle(ev.Notice("warning", warning))
        self.warnings = []
        self.printer.result = None
        command = _compact_command(prompt)
        events = self.agent.compact(command[1]) if command else self.agent.query(prompt)
        async for event in events:
            if isinstance(event, ev.Notice) and event.kind != "api_retry":
                self.agent.recorder.notice(event.kind, event.message)
            if self.debug:
                _debug_line(event)
            self.printer.handle(event)
        return self.printer.result

    async def context_report(self) -> str:
        from yoke.context.inspect import context_report

        return context_report(self.cwd, self.model)

    async def close(self) -> None:
        for resource in reversed(self.tool_ctx.session.extras.pop("resources", [])):
            try:
                await resource.aclose()  # MCP servers: stopped within a second, never orphaned
            except Exception:
                pass
        if "shell" in self.tool_ctx.session.extras:
            from yoke.tools.shell.state import shutdown_shell

            await shutdown_shell(self.tool_ctx.session)
        try:
            await self.provider.aclose()
        except Exception:
            pass
        self.agent.recorder.transcript.close()


def _debug_line(event: ev.Event) -> None:
    """--debug: one stderr line per step that explains what the loop is doing."""
    line = None
    if isinstance(event, ev.TurnStarted):
        line = f"turn {event.turn}: requesting"
    elif isinstance(event, ev.UsageEvent):
        u = event.usage
        line = (
            f"usage {event.model}: in {u.input_tokens} out {u.output_tokens} cache read "
            f"{u.cache_read_input_tokens} write {u.cache_creation_input_tokens} · ${event.cost_usd:.5f}"
        )
    elif isinstance(event, ev.PermissionDecided):
        line = f"permission {event.tool_name} {event.tool_use_id}: {event.behavior} ({event.source})"
    elif isinstance(event, ev.ToolResultEvent):
        line = f"tool {event.name} {event.tool_use_id}: {'error' if event.is_error else 'ok'}"
    elif isinstance(event, ev.Notice):
        line = f"{event.kind}: {event.message}"
    elif isinstance(event, ev.Result):
        line = f"result {event.reason} after {event.num_turns} turns, {event.duration_ms} ms"
    if line:
        print(f"[debug] {line}", file=sys.stderr, flush=True)


def _compact_command(prompt: Any) -> tuple[str, str | None] | None:
    """`/compact [instructions]` sent as the prompt (as in Claude Code's headless mode)."""
    if not isinstance(prompt, str):
        return None
    text = prompt.strip()
    if text != "/compact" and not text.startswith("/compact "):
        return None
    instructions = text[len("/compact") :].strip()
    return ("compact", instructions or None)


# ---- pieces ------------------------------------------------------------------------------------------
