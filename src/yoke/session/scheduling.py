"""The session's scheduler (`yoke.tools.schedule`), wired to its port: a job fires by submitting a `Prompt`
op, as a client would, so it queues behind a running turn, is on disk before it runs, and runs under the
session's permission mode (headless with nobody attached, an ask is a deny)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yoke.events import port
from yoke.tools.schedule import Scheduler

if TYPE_CHECKING:
    from yoke.session.port import SessionDriver


def attach_scheduler(driver: SessionDriver) -> Scheduler:
    session = driver.session

    async def submit(ident: str, prompt: str) -> Any:
        return await driver.submit(port.Prompt(prompt, id=ident))

    def is_queued(ident: str) -> bool:
        return any(queued[0] == ident for queued in driver.queue)

    scheduler = Scheduler(
        submit, is_queued=is_queued, spent=lambda: float(session.total_cost_usd), env=session.env
    )
    session.services.scheduler = scheduler
    return scheduler
