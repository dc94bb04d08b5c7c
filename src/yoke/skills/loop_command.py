"""`/loop [interval] prompt`: a prompt run again and again in this session.

With an interval (`30s`, `5m`, `2h`, `1d`; seconds round up to a minute) the prompt runs now and then as a
recurring cron job of the session's scheduler (`yoke.tools.schedule`), which CronList lists and CronDelete
ends. Without one, the model paces itself: the prompt runs now, with a note asking it to call
ScheduleWakeup with `/loop PROMPT` as its prompt, or `stop: true` when the task is done; each wake-up submits
`/loop PROMPT` again, so the note comes back each time.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from typing import Any

from yoke import events as ev

INTERVAL = re.compile(r"^(\d+)([smhd])$")

PACE_NOTE = """\
<system-reminder>This prompt runs as a self-paced loop (/loop without an interval). Do the task below once. \
Then call ScheduleWakeup: delaySeconds for when checking again is worth it (60 to 3600), a short reason, \
prompt exactly "{again}", and noop true if nothing changed since the last time. When the task is finished \
or cannot go on, call ScheduleWakeup with stop true instead.</system-reminder>
"""


def interval_cron(token: str) -> str | None:
    """`5m` → `*/5 * * * *`; None when `token` is not an interval."""
    match = INTERVAL.match(token)
    if match is None:
        return None
    count, unit = int(match.group(1)), match.group(2)
    if count < 1:
        return None
    minutes = {"s": max(1, -(-count // 60)), "m": count, "h": count * 60, "d": count * 1440}[unit]
    if minutes < 60:
        return f"*/{minutes} * * * *"
    if minutes < 1440:  # cron steps hours, not minutes: 90m is every 2 hours
        return f"0 */{round(minutes / 60)} * * *"
    return f"0 0 */{min(round(minutes / 1440), 31)} * *"


def split_loop(args: str) -> tuple[str | None, str]:
    head, _, rest = args.strip().partition(" ")
    cron = interval_cron(head)
    return (cron, rest.strip()) if cron is not None else (None, args.strip())


async def loop_command(session: Any, args: str, started: float | None = None) -> AsyncIterator[ev.Event]:
    from yoke.skills.builtin_commands import local_result

    agent = session.agent
    started = time.monotonic() if started is None else started
    cron, prompt = split_loop(args)
    scheduler = session.services.scheduler
    if not prompt:
        yield local_result(
            agent, "Usage: /loop [interval] prompt (e.g. /loop 5m check the deploy)", started, True
        )
        return
    if scheduler is None:
        yield local_result(agent, "/loop needs a session that lives between turns.", started, True)
        return
    if cron is not None:
        job = scheduler.create(cron, prompt, recurring=True)
        yield ev.Notice(
            "info", f"Looping every {args.split()[0]} as job {job.id} (CronDelete {job.id} ends it)."
        )
        async for event in agent.query(prompt):
            yield event
        return
    note = PACE_NOTE.format(again=f"/loop {prompt}".replace('"', "'"))
    async for event in agent.query([{"type": "text", "text": note}, {"type": "text", "text": prompt}]):
        yield event
