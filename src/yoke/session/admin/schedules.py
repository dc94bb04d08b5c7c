"""Scheduled work as the commands and the host see it, from files (docs/scheduling.md):

- the durable tasks of the projects a Yoke home knows (`tools/durable.py`: `.claude/scheduled_tasks.json`,
  registered in `<home>/durable-projects/`), when each is due, and whether a session of the project holds
  them (its lock), for the host that fires them when none does;
- each running session's own jobs with their next run times (`<home>/scheduled/<session id>.json`, written
  by the session whenever its jobs change), for `yoke agents`;
- ending a session's durable tasks, for `yoke stop`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from yoke.fsutil import read_regular_text, replace_file
from yoke.jsonsafe import loads as safe_loads

SESSION_JOBS = "scheduled"  # in the Yoke home: one file per session with jobs
# permission modes from least to most permissive: a fired run never gets more than its creator had
MODE_ORDER = ("plan", "dontAsk", "default", "acceptEdits", "auto", "bypassPermissions")


def known_projects(home: Path) -> list[tuple[Path, dict[str, str]]]:
    """The projects registered as having durable tasks (each still a folder), with the tasks the host may
    fire there: task id -> its creator's permission mode, as the home (not the project) recorded it."""
    from yoke.tools.durable import REGISTRY, read_registry

    found = []
    try:
        entries = sorted((home / REGISTRY).iterdir())
    except OSError:
        return []
    for entry in entries:
        known = read_registry(entry)
        if known is not None and known[0].is_absolute() and known[0].is_dir():
            found.append(known)
    return found


def project_tasks(project: Path, now: float | None = None) -> list[dict[str, Any]]:
    """The project's durable tasks that are still alive, each with `due` (epoch s): its next time after it
    last fired (or was made). A time missed while nobody held them is due now, once (never a burst)."""
    from yoke.tools.durable import DurableStore
    from yoke.tools.schedule import MAX_AGE_S, CronError, CronSpec

    now = time.time() if now is None else now
    alive = []
    for task in DurableStore(project, "").load():
        try:
            spec = CronSpec.parse(task["cron"])
            created = float(task.get("createdAt") or 0) / 1000
            last = float(task.get("lastFiredAt") or 0) / 1000
        except (CronError, TypeError, ValueError):
            continue
        if created and now - created > MAX_AGE_S:
            continue
        if last and not task.get("recurring", True):
            continue  # a one-shot that ran
        due = spec.next_after(last or created or now)
        if due is not None:
            alive.append({**task, "due": due})
    return alive


def held(project: Path) -> bool:
    """Whether a session of the project holds its durable tasks (their lock) now."""
    from yoke.tools.durable import DurableStore

    probe = DurableStore(project, "")
    if not probe.claim():
        return True
    probe.release()
    return False


def fire_mode(tasks: list[dict[str, Any]], modes: dict[str, str]) -> str:
    """The permission mode to run these tasks in: the least permissive of their creators' modes as the Yoke
    home recorded them (`modes`; `default` for one it does not know)."""
    ranked = [MODE_ORDER.index(m) if m in MODE_ORDER else MODE_ORDER.index("default")
              for m in (modes.get(str(t.get("id")), "default") for t in tasks)]  # fmt: skip
    return MODE_ORDER[min(ranked, default=MODE_ORDER.index("default"))]


def resumable(session_id: str, project: Path, home: Path) -> bool:
    """Whether the session's transcript is there to resume."""
    from yoke.session.store import SessionError, find_session

    try:
        find_session(session_id, project, home)
    except SessionError:
        return False
    return True


# ---- a session's own jobs ---------------------------------------------------------------------------------


def session_jobs_path(home: Path, session_id: str) -> Path:
    if not session_id or "/" in session_id or session_id in (".", ".."):
        raise ValueError(f"{session_id!r} is not a session id")
    return home / SESSION_JOBS / f"{session_id}.json"


def write_session_jobs(home: Path, session_id: str, jobs: list[dict[str, Any]]) -> None:
    """The session's jobs as CronList lists them (`nextFireAt` in ms); none: the file goes."""
    path = session_jobs_path(home, session_id)
    try:
        if jobs:
            replace_file(path, (json.dumps({"jobs": jobs}) + "\n").encode(), mode=0o600)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass  # a full disk: `yoke agents` shows no next run, the jobs still fire


def session_jobs(home: Path, session_id: str) -> list[dict[str, Any]]:
    """The jobs a session last wrote (the caller knows whether it still runs: a killed one leaves its file)."""
    try:
        data = safe_loads(read_regular_text(session_jobs_path(home, session_id)))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    return [j for j in data.get("jobs") or [] if isinstance(j, dict)]


def next_runs(home: Path, session_id: str, project: Path, running: bool) -> list[dict[str, Any]]:
    """What `yoke agents` shows of a session's schedule: its live jobs while it runs, and the durable tasks
    it made (which the host fires once it is gone), soonest first: `{id, cron, prompt, nextFireAt, durable}`."""
    jobs = {j["id"]: j for j in (session_jobs(home, session_id) if running else []) if "id" in j}
    for task in project_tasks(project):
        if task.get("createdBySessionId") == session_id and task.get("id") not in jobs:
            jobs[str(task["id"])] = {
                "id": task["id"], "cron": task["cron"], "prompt": task.get("prompt"),
                "nextFireAt": int(task["due"] * 1000), "durable": True,
            }  # fmt: skip
    return sorted(jobs.values(), key=lambda j: j.get("nextFireAt") or 0)


def end_durable(project: Path, session_id: str) -> list[str]:
    """Delete the durable tasks the session made, holding the project's lock while the file is rewritten
    (the holder rewrites it whole); ValueError when another session holds them."""
    from yoke.tools.durable import DurableStore

    store = DurableStore(project, session_id)
    tasks = store.load()
    mine = [str(t.get("id")) for t in tasks if t.get("createdBySessionId") == session_id]
    if not mine:
        return []
    if not store.claim():
        raise ValueError(
            f"its durable jobs ({', '.join(mine)}) are held by another session of {project}; CronDelete there"
        )
    try:
        store.save([t for t in tasks if t.get("createdBySessionId") != session_id])
    finally:
        store.release()
    return mine
