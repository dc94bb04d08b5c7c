"""The host keeps the durable scheduled tasks of the projects its Yoke home knows (docs/scheduling.md).

A durable task (`CronCreate {durable: true}`) is fired by the session of its project that holds the
project's lock (`tools/durable.py`). When none does (the terminal that made it closed, the host restarted),
the host starts one, as `yoke --bg` would: in the project (only a trusted one), resuming the session that
made the task when its transcript is there and it runs nowhere, in the least permissive of the due tasks'
creators' permission modes as the Yoke home recorded them (only tasks a session of this home made are fired:
the project's file is the repository's to change), with the host's environment. Nobody watches it: a
permission prompt while no client is attached is denied at once (hosted.py `_deny_alone`). That session takes the lock and fires what is due,
once: a time missed while nobody held the tasks runs once, never in a burst; the lock makes the firing at
most once across terminals and the host. The host stays up while a known project has tasks.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

# seconds between looks at the projects' task files; a due time sooner than that is waited for exactly
POLL = float(os.environ.get("YOKE_HOST_SCHEDULE_POLL") or 30)
RETRY_S = 300.0  # a session started for a project that ended without firing: not started again sooner


class Keeper:
    def __init__(self, host: Any):
        self.host = host
        self.launched: dict[str, Any] = {}  # project -> the HostedSession started to fire its tasks
        self.started: dict[str, float] = {}  # project -> when that session was started
        self.keeping = False  # a known project has durable tasks: the host does not stop when idle
        self.said: set[str] = set()  # projects whose refusal was written to the host's log already

    async def run(self) -> None:
        import asyncio  # here: `yoke agents` and `stop` import this module for its functions below

        while not self.host.done.is_set():
            try:
                wait = await self.round()
            except Exception as exc:  # noqa: BLE001 - a bad file must not end the host's keeping
                print(f"yoke host: scheduled tasks: {exc}", file=sys.stderr)
                wait = POLL
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self.host.done.wait()

    async def round(self) -> float:
        """Fire the projects whose tasks are due and nobody holds; the seconds until the next look."""
        from yoke.session.admin.schedules import known_projects, project_tasks
        from yoke.session.transcript import yoke_home

        now, soonest, keeping = time.time(), POLL, False
        home = yoke_home(os.environ)
        for project, modes in known_projects(home):
            # only the tasks a session of this home made: one the repository brought is not the host's
            tasks = [t for t in project_tasks(project, now) if str(t.get("id")) in modes]
            keeping = keeping or bool(tasks)
            due = [t for t in tasks if t["due"] <= now]
            later = [t["due"] - now for t in tasks if t["due"] > now]
            soonest = min([soonest, *later])
            if due:
                await self._fire(project, due, home, modes)
        self.keeping = keeping
        return max(soonest, 0.05)

    async def _fire(
        self, project: Path, due: list[dict[str, Any]], home: Path, modes: dict[str, str]
    ) -> None:
        from yoke.config.trust import is_trusted
        from yoke.session.admin.schedules import fire_mode, held

        key = str(project)
        launched = self.launched.get(key)
        if launched is not None and launched.live:
            return  # started for these tasks: it holds them, or another session of the project does
        if launched is not None and time.time() - self.started[key] < RETRY_S:
            self._say(
                key, f"the session started for {project}'s durable tasks ended; retrying in {RETRY_S:.0f} s"
            )
            return  # it ended before its tasks fired (a failed start): no loop of starts
        if held(project):
            return  # a session of the project fires them
        if not is_trusted(project, home):
            self._say(key, f"{project} has durable tasks but is not trusted; yoke trust there lets them run")
            return
        try:
            self.launched[key] = await self._start(project, due, home, fire_mode(due, modes))
            self.started[key] = time.time()
            self.said.discard(key)
        except (LookupError, OSError, RuntimeError, ValueError) as exc:
            self._say(key, f"could not start a session in {project} for its durable tasks: {exc}")

    async def _start(self, project: Path, due: list[dict[str, Any]], home: Path, mode: str) -> Any:
        from yoke.host.methods import start_session
        from yoke.session.admin.schedules import resumable

        params: dict[str, Any] = {
            "cwd": str(project),
            "args": ["--permission-mode", mode],
            "name": f"scheduled: {due[0].get('prompt') or due[0].get('id')}",
            "env": dict(os.environ),
            "unattended": "deny",  # nobody can be asked: an ask is a deny unless a client is attached
        }
        creator = str(due[0].get("createdBySessionId") or "")
        if creator and resumable(creator, project, home):
            with contextlib.suppress(ValueError):  # it runs somewhere, or its entry is taken: a new one
                return await start_session(self.host, {**params, "resume": creator})
        return await start_session(self.host, params)

    def _say(self, key: str, message: str) -> None:
        if key not in self.said:
            self.said.add(key)
            print(f"yoke host: {message}", file=sys.stderr)


def next_runs(record: dict[str, Any], running: bool) -> list[dict[str, Any]]:
    """A hosted session's scheduled jobs with their next run times (`yoke agents`), soonest first."""
    from yoke.session.admin.schedules import next_runs as runs
    from yoke.session.transcript import yoke_home

    try:
        return runs(yoke_home(os.environ), str(record.get("sessionId")), Path(record["cwd"]), running)
    except (KeyError, OSError, ValueError):
        return []


def end_schedules(record: dict[str, Any], jobs: list[dict[str, Any]]) -> dict[str, Any]:
    """`yoke stop`: the session's jobs end with its process (`jobs`, read before it was stopped), and the
    durable tasks it made are deleted, so the host does not start it again for them. `schedulesEnded`: the
    ids ended; `schedulesKept`: why some could not be (another session of the project holds them)."""
    from yoke.session.admin.schedules import end_durable

    ended = [str(j.get("id")) for j in jobs]
    try:
        durable = end_durable(Path(record["cwd"]), str(record.get("sessionId")))
    except (KeyError, OSError, ValueError) as exc:
        return {"schedulesEnded": ended, "schedulesKept": str(exc)}
    return {"schedulesEnded": ended + [i for i in durable if i not in ended]}


def next_run_lines(runs: list[dict[str, Any]]) -> list[str]:
    """`next 09:00 Mon 01 Dec  0 9 * * 1-5  morning check (durable)`, one line a job."""
    lines = []
    for job in runs:
        when = time.strftime("%H:%M %a %d %b", time.localtime((job.get("nextFireAt") or 0) / 1000))
        prompt = " ".join(str(job.get("prompt") or "").split())[:60]
        kept = " (durable)" if job.get("durable") else ""
        lines.append(f"next {when}  {job.get('cron')}  {prompt}{kept}")
    return lines


def say_ended(done: dict[str, Any]) -> None:
    """What `yoke stop` says of the session's schedules: nothing when it had none."""
    if done.get("schedulesEnded"):
        print(f"ended its scheduled jobs: {', '.join(done['schedulesEnded'])}")
    if done.get("schedulesKept"):
        print(f"kept: {done['schedulesKept']}")


def hand_over(cwd: Path) -> None:
    """After a terminal session of `cwd` ends: when the project has durable tasks a session of this home
    made, a host keeps them, so one is started if none runs (it outlives the terminal, as `--bg` starts it)."""
    if os.environ.get("YOKE_HOSTED") == "1":
        return  # a hosted session: its host keeps them already
    from yoke.host.client import HostClient, HostError
    from yoke.session.admin.schedules import known_projects, project_tasks
    from yoke.session.transcript import yoke_home

    real = Path(os.path.realpath(cwd))
    modes = next((m for p, m in known_projects(yoke_home(os.environ)) if p == real), None)
    if not modes or not any(str(t.get("id")) in modes for t in project_tasks(real)):
        return
    try:
        HostClient.connect(start=False).close()
        return
    except HostError:
        pass
    try:
        HostClient.connect(start=True).close()
        print(
            "yoke: started the session host to keep this project's durable tasks (yoke agents)",
            file=sys.stderr,
        )
    except (HostError, OSError) as exc:
        print(f"yoke: this project's durable tasks wait for the next session: {exc}", file=sys.stderr)
