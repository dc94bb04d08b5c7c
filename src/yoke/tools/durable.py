"""Durable cron jobs: `CronCreate {durable: true}` kept in the project's `.claude/scheduled_tasks.json`, where
Claude Code 2.1.332 keeps them (`{"tasks": [{id, cron, prompt, createdAt, recurring, maxAgeMs,
createdBySessionId, createdInProject, ...}]}`, observed 2026-11-28; Yoke adds `lastFiredAt`). A session of
the project that holds the file's lock (`scheduled_tasks.lock`, released when its process ends) fires them;
a task whose time passed while no session held it fires once when one starts, never in a burst.

A project with durable tasks is registered in the Yoke home (`durable-projects/<hash>`, one file a project:
`{project, modes: {task id: its creator's permission mode}}`) so the host finds them after every session of
the project has ended (docs/scheduling.md). The host fires only the tasks listed there, in no more than their
creator's mode: the project's own file can be written by what the repository brings (a `git pull`), so its
`permissionMode` field (Yoke adds it, for people to read) is never what a run is given.
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
        self.made: dict[str, str] = {}  # task id -> the mode this session made it in

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
        if self.home is not None and (tasks or self.made):
            register_project(self.home, self.project, [str(t.get("id")) for t in tasks], self.made)

    def task(self, job: Any) -> dict[str, Any]:
        origin = getattr(job, "origin", None) or {}  # adopted from another session: its creator's, kept
        if not origin:
            self.made.setdefault(job.id, str(self.mode()))
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


def registry_entry(home: Path, project: Path) -> Path:
    import hashlib

    return home / REGISTRY / hashlib.sha256(os.path.realpath(project).encode()).hexdigest()[:20]


def read_registry(entry: Path) -> tuple[Path, dict[str, str]] | None:
    """A registry entry's project and its tasks' creators' modes; None when unreadable."""
    try:
        data = safe_loads(read_regular_text(entry))
        project, modes = Path(str(data["project"])), data.get("modes") or {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not isinstance(modes, dict):
        return None
    return project, {str(k): str(v) for k, v in modes.items()}


def register_project(home: Path, project: Path, ids: list[str], made: dict[str, str]) -> None:
    """The project in the home's registry with the modes of its tasks: those made by this session, and the
    ones already there for the tasks that remain (written by the lock's holder only: one writer)."""
    entry = registry_entry(home, project)
    known = read_registry(entry)
    modes = {i: m for i, m in (known[1] if known else {}).items() if i in ids}
    modes |= {i: m for i, m in made.items() if i in ids}
    if known is not None and known[1] == modes:
        return
    body = json.dumps({"project": os.path.realpath(project), "modes": modes})
    with contextlib.suppress(OSError):
        entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        replace_file(entry, body.encode(), mode=0o600)


def _proc_start() -> str:
    """This process's start time in clock ticks (/proc/self/stat field 22), as 2.1.332 records its own."""
    try:
        stat = Path("/proc/self/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""
