"""Durable cron jobs: `CronCreate {durable: true}` kept in the project's `.claude/scheduled_tasks.json`, where
Claude Code 2.1.332 keeps them (`{"tasks": [{id, cron, prompt, createdAt, recurring, maxAgeMs,
createdBySessionId, createdInProject, ...}]}`, observed 2026-11-28; Yoke adds `lastFiredAt`). A session of
the project that holds the file's lock (`scheduled_tasks.lock`, released when its process ends) fires them;
a task whose time passed while no session held it fires once when one starts, never in a burst.

A project with durable tasks is registered in the Yoke home (`durable-projects/<hash>`, one file a project
holding its path) so the host finds them after every session of the project has ended (docs/scheduling.md).
Each task keeps its creator's session id and permission mode (Yoke adds `permissionMode`): the host runs it
with no more permission than that.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path
from typing import Any

from yoke.fsutil import read_regular_text, replace_file
from yoke.jsonsafe import loads as safe_loads

FILE = Path(".claude") / "scheduled_tasks.json"
LOCK = Path(".claude") / "scheduled_tasks.lock"
REGISTRY = "durable-projects"  # in the Yoke home: the projects whose durable tasks the host keeps
CREATOR_FIELDS = ("createdBySessionId", "createdByPid", "createdByProcStart", "permissionMode")


class DurableStore:
    def __init__(
        self, project: Path, session_id: str, home: Path | None = None, mode: Any = lambda: "default"
    ):
        self.project, self.session_id, self.home, self.mode = project, session_id, home, mode
        self.path = project / FILE
        self._lock_fd: int | None = None

    def claim(self) -> bool:
        """Whether this session fires the project's durable tasks (one session at a time)."""
        if self._lock_fd is not None:
            return True
        try:
            (self.project / LOCK).parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.project / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._lock_fd = fd
        return True

    def release(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)
            self._lock_fd = None

    def load(self) -> list[dict[str, Any]]:
        try:
            data = safe_loads(read_regular_text(self.path))
        except (OSError, ValueError):
            return []
        tasks = data.get("tasks") if isinstance(data, dict) else None
        return [t for t in tasks or [] if isinstance(t, dict) and isinstance(t.get("cron"), str)]

    def save(self, tasks: list[dict[str, Any]]) -> None:
        if not tasks and not self.path.exists():
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(self.path, (json.dumps({"tasks": tasks}, indent=2) + "\n").encode())
        if tasks and self.home is not None:
            register_project(self.home, self.project)

    def task(self, job: Any) -> dict[str, Any]:
        origin = getattr(job, "origin", None) or {}  # adopted from another session: its creator's, kept
        return {
            "id": job.id,
            "cron": job.cron,
            "prompt": job.prompt,
            "createdAt": int(job.created * 1000),
            "recurring": job.recurring,
            "maxAgeMs": 30 * 24 * 3600 * 1000,
            "createdBySessionId": self.session_id,
            "createdByPid": os.getpid(),
            "createdByProcStart": _proc_start(),
            "createdInProject": str(self.project),
            "createdUnderSignIn": "none",  # Yoke has no sign-in
            "lastFiredAt": int(job.last_fired * 1000) if job.last_fired else None,
            "permissionMode": str(self.mode()),
        } | {key: origin[key] for key in CREATOR_FIELDS if key in origin}


def register_project(home: Path, project: Path) -> None:
    """The project in the home's registry (idempotent; one file a project, so writers never race)."""
    import hashlib

    real = os.path.realpath(project)
    entry = home / REGISTRY / hashlib.sha256(real.encode()).hexdigest()[:20]
    if entry.exists():
        return
    with contextlib.suppress(OSError):
        entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        replace_file(entry, real.encode(), mode=0o600)


def _proc_start() -> str:
    """This process's start time in clock ticks (/proc/self/stat field 22), as 2.1.332 records its own."""
    try:
        stat = Path("/proc/self/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""
