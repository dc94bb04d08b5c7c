"""The session's scheduler (`yoke.tools.schedule`), wired to its port: a job fires by submitting a `Prompt`
op, as a client would, so it queues behind a running turn, is on disk before it runs, and runs under the
session's permission mode, unattended (in a host with nobody attached, an ask is a deny)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.events import port
from yoke.session.admin.schedules import write_session_jobs
from yoke.session.transcript import yoke_home
from yoke.tools.durable import DurableStore
from yoke.tools.schedule import Scheduler

if TYPE_CHECKING:
    from yoke.session.port import SessionDriver


def attach_scheduler(driver: SessionDriver) -> Scheduler:
    session = driver.session

    async def submit(ident: str, prompt: str) -> Any:
        return await driver.submit(port.Prompt(prompt, id=ident, unattended=True))

    def is_queued(ident: str) -> bool:
        return any(queued[0] == ident for queued in driver.queue)

    home = yoke_home(session.env)
    store = DurableStore(session.cwd, session.id, home=home, mode=lambda: session.permission_mode)
    scheduler = Scheduler(
        submit, is_queued=is_queued, spent=lambda: float(session.total_cost_usd), env=session.env, store=store
    )
    scheduler.on_end = lambda ident, why: driver.publish(
        ev.Notice("schedule", f"Scheduled job {ident} ended: {why}")
    )
    written = [False]

    def on_change() -> None:  # `yoke agents` shows the next runs (session/admin/schedules.py)
        if scheduler.jobs or written[0]:
            jobs = [job.as_listed() for job in scheduler.jobs.values()]
            write_session_jobs(home, session.id, jobs)
            written[0] = bool(jobs)

    scheduler.on_change = on_change
    session.services.scheduler = scheduler
    if store.path.exists() and store.claim():  # the project's durable jobs: this session fires them
        for task in store.load():
            scheduler.adopt(task)
    with contextlib.suppress(RuntimeError):  # no running loop: nothing to restore into
        asyncio.get_running_loop().call_soon(_restore_goal, session)  # once the port is set
    return scheduler


def _restore_goal(session: Any) -> None:
    """A resumed session's active `/goal` goes on: its watcher checks after each turn again."""
    from yoke.session.transcript import load_records
    from yoke.skills.goal import active_goal, restore_goal, watch

    path = session.transcript_path
    if active_goal(session.id) is not None or not path.exists():
        return
    goal = restore_goal(load_records(path))
    if goal is not None:
        watch(session, goal)


def pending_wake_up(session: Any) -> bool:
    """Whether a ScheduleWakeup (a self-paced `/loop`) is still to fire: `-p` stays for it, as 2.1.332 does
    (a recurring cron does not keep `-p` alive, in 2.1.332 either)."""
    scheduler = session.services.scheduler
    return scheduler is not None and any(job.kind == "wakeup" for job in scheduler.jobs.values())
