"""The `statusLine` setting: a command that gets the session as JSON on stdin and prints the footer line.

Runs are debounced (300 ms) and single-flight: a new trigger cancels a run still going; a run is killed
after 5 s and keeps the previous line; exit 0 with no output clears it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yoke.ui.port import TerminalSession

from yoke import spawn

DEBOUNCE_S = 0.3
TIMEOUT_S = 5.0


class StatusLine:
    def __init__(self, ui: Any, command: str, padding: int = 0):
        self.ui = ui
        self.command = command
        self.padding = padding
        self._task: asyncio.Task | None = None
        self._proc: asyncio.subprocess.Process | None = None

    @classmethod
    def from_settings(cls, ui: Any) -> StatusLine | None:
        setting = _setting(ui)
        if not isinstance(setting, dict) or setting.get("type", "command") != "command":
            return None
        command = setting.get("command")
        if not isinstance(command, str) or not command.strip():
            return None
        return cls(ui, command, int(setting.get("padding") or 0))

    def trigger(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._proc is not None and self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()

    async def _run(self) -> None:
        await asyncio.sleep(DEBOUNCE_S)
        payload = json.dumps(status_payload(self.ui)).encode()
        env = self.ui.session.env if self.ui.session else dict(os.environ)
        columns = str(self.ui.painter.width)
        env.update({"COLUMNS": columns})
        try:
            # the user's statusLine setting, run as configured; the door makes it die with Yoke
            self._proc = await spawn.start(
                spawn.shell_argv(self.command),
                confine=None,
                stdin=spawn.PIPE,
                stdout=spawn.PIPE,
                stderr=spawn.DEVNULL,
                cwd=self.ui.cwd,
                env=env,
            )
            out, _ = await asyncio.wait_for(self._proc.communicate(payload), TIMEOUT_S)
        except (OSError, TimeoutError):
            self.stop()
            return
        except asyncio.CancelledError:
            self.stop()
            raise
        if self._proc.returncode != 0:
            return
        lines = [line.rstrip() for line in out.decode("utf-8", "replace").splitlines() if line.strip()]
        self.ui.status_text = "\n".join(lines)
        self.ui.app.invalidate()


def _setting(ui: Any) -> Any:
    settings = getattr(ui, "settings", None)
    return settings.get("statusLine") if isinstance(settings, dict) else None


def _style(session: TerminalSession) -> str:
    """The output style the session runs with (what `system/init` reports)."""
    if session is None:
        return "default"
    try:
        return str(session.init_fields().get("output_style") or "default")
    except Exception:  # a stand-in session (benchmarks) has no extensions
        return "default"


def status_payload(ui: Any) -> dict[str, Any]:
    from yoke import __version__

    session = ui.session
    usage = session.model_usage() if session is not None else {}
    total_in = sum(
        u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens for u in usage.values()
    )
    total_out = sum(u.output_tokens for u in usage.values())
    model = session.model if session is not None else ""
    return {
        "hook_event_name": "Status",
        "cwd": ui.cwd,
        "session_id": session.id if session is not None else "",
        "transcript_path": str(session.transcript_path) if session is not None else "",
        "model": {"id": model, "display_name": model},
        "profile": getattr(session, "profile", None),  # Yoke's profile in force (yoke profile), or None
        "workspace": {"current_dir": ui.cwd, "project_dir": ui.cwd, "added_dirs": []},
        "version": __version__,
        "output_style": {"name": _style(session)},
        "cost": {
            "total_cost_usd": session.total_cost_usd if session is not None else 0.0,
            "total_duration_ms": 0,
            "total_api_duration_ms": 0,
            "total_lines_added": 0,
            "total_lines_removed": 0,
        },
        "context_window": {
            "total_input_tokens": total_in,
            "total_output_tokens": total_out,
            "context_window_size": None,
            "used_percentage": None,
            "remaining_percentage": None,
            "current_usage": None,
        },
        "exceeds_200k_tokens": False,
        "permission_mode": session.permission_mode if session is not None else "default",
    }
