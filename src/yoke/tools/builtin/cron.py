"""CronCreate, CronDelete, CronList and ScheduleWakeup: prompts the session submits to itself later.

Names and input schemas as Claude Code 2.1.332 offers them (tests/scheduling/cc_2_1_332_tools.json). The
jobs live in the session's `Scheduler` (`yoke.tools.schedule`, `SessionServices.scheduler`), which the
session's port starts; a session without a port (a sub-agent) has none and says so.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from yoke.tools.base import Tool, ToolContext, ToolError, ToolKind, ToolResult
from yoke.tools.schedule import CronError, Scheduler, human
from yoke.tools.schema import ToolInput

CRON_CREATE = """\
Schedules a prompt for this session at times given by a 5-field cron expression in local time \
(minute hour day-of-month month day-of-week; "*/10 * * * *" is every ten minutes). A recurring job fires at \
each match until CronDelete or 30 days pass; recurring false fires once at the next match. A firing waits \
for a running turn to end. Jobs end with the session unless durable.\
"""
CRON_DELETE = "Cancels a job CronCreate scheduled, by the id it returned."
CRON_LIST = "Lists this session's scheduled jobs with their next run times."
SCHEDULE_WAKEUP = """\
Schedules this session's next turn of a self-paced /loop: after delaySeconds (60 to 3600) the prompt is \
submitted again. Pass the loop's prompt back each time; pass stop true (alone) to end the loop. noop true \
says the last check found nothing new.\
"""


def scheduler_of(ctx: ToolContext) -> Scheduler:
    scheduler = getattr(ctx.session.services, "scheduler", None)
    if scheduler is None:
        raise ToolError(
            "Scheduling is not available here: only a main session that lives between turns has it."
        )
    return scheduler  # type: ignore[no-any-return]


def _when(epoch: float) -> str:
    return datetime.fromtimestamp(epoch).strftime("%b %d %H:%M")


class CronCreateInput(ToolInput):
    cron: str = Field(description='5-field cron expression in local time, e.g. "*/5 * * * *"')
    prompt: str = Field(description="The prompt submitted at each firing")
    recurring: bool | None = Field(default=None, description="true (default): every match; false: once")
    durable: bool | None = Field(default=None, description="true: kept across sessions (see docs)")


class CronCreateTool(Tool):
    name: ClassVar[str] = "CronCreate"
    kind: ClassVar[ToolKind] = "other"
    description: ClassVar[str] = CRON_CREATE
    input_model: ClassVar[type[BaseModel]] = CronCreateInput

    async def run(self, input: CronCreateInput, ctx: ToolContext) -> ToolResult:
        scheduler = scheduler_of(ctx)
        recurring = True if input.recurring is None else input.recurring
        try:
            job = scheduler.create(input.cron, input.prompt, recurring, durable=bool(input.durable))
        except CronError as exc:
            raise ToolError(f"CronCreate: {exc}") from None
        kept = "Session-only (ends with this session)."
        if job.durable:
            kept = "Persisted to .claude/scheduled_tasks.json (a later session of this project fires it)."
        text = (
            f"Scheduled {'recurring' if recurring else 'one-shot'} job {job.id} ({human(job.cron)}). "
            f"Next run: {_when(job.next_fire)}. {kept}"
        )
        data = {
            "id": job.id, "humanSchedule": human(job.cron), "recurring": recurring, "durable": job.durable,
            "nextFireAt": int(job.next_fire * 1000), "maxAgeMs": 30 * 24 * 3600 * 1000,
        }  # fmt: skip
        return ToolResult(text, data=data)


class CronDeleteInput(ToolInput):
    id: str = Field(description="The job id CronCreate returned")


class CronDeleteTool(Tool):
    name: ClassVar[str] = "CronDelete"
    kind: ClassVar[ToolKind] = "other"
    description: ClassVar[str] = CRON_DELETE
    input_model: ClassVar[type[BaseModel]] = CronDeleteInput

    async def run(self, input: CronDeleteInput, ctx: ToolContext) -> ToolResult:
        try:
            job = scheduler_of(ctx).delete(input.id)
        except KeyError as exc:
            raise ToolError(str(exc.args[0])) from None
        return ToolResult(f"Cancelled job {job.id}.", data={"id": job.id})


class CronListInput(ToolInput):
    pass


class CronListTool(Tool):
    name: ClassVar[str] = "CronList"
    kind: ClassVar[ToolKind] = "read"
    description: ClassVar[str] = CRON_LIST
    input_model: ClassVar[type[BaseModel]] = CronListInput
    read_only: ClassVar[bool] = True
    concurrency_safe: ClassVar[bool] = True

    async def run(self, input: CronListInput, ctx: ToolContext) -> ToolResult:
        jobs = sorted(scheduler_of(ctx).jobs.values(), key=lambda j: j.next_fire)
        lines = [
            f"{j.id} — {human(j.cron)} ({'recurring' if j.recurring else 'one-shot'}) "
            f"[{'durable' if j.durable else 'session-only'}], "
            f"next run {_when(j.next_fire)}: {j.prompt}"
            for j in jobs
        ]
        return ToolResult(
            "\n".join(lines) or "No scheduled jobs.", data={"jobs": [j.as_listed() for j in jobs]}
        )


class ScheduleWakeupInput(ToolInput):
    delaySeconds: float | None = Field(default=None, description="Seconds from now, 60 to 3600")
    reason: str | None = Field(default=None, description="One sentence: why this delay")
    prompt: str | None = Field(default=None, description="The /loop prompt to submit on waking")
    stop: bool | None = Field(default=None, description="true: end the loop (other fields ignored)")
    noop: bool | None = Field(default=None, description="true: nothing changed since the last check")


class ScheduleWakeupTool(Tool):
    name: ClassVar[str] = "ScheduleWakeup"
    kind: ClassVar[ToolKind] = "other"
    description: ClassVar[str] = SCHEDULE_WAKEUP
    input_model: ClassVar[type[BaseModel]] = ScheduleWakeupInput

    async def run(self, input: ScheduleWakeupInput, ctx: ToolContext) -> ToolResult:
        scheduler = scheduler_of(ctx)
        if input.stop:
            scheduler.stop_wake_ups()
            return ToolResult("The loop has ended; no further wake-ups.", data={"stopped": True})
        if input.delaySeconds is None or not (input.prompt or "").strip():
            raise ToolError("ScheduleWakeup needs delaySeconds and prompt (or stop: true).")
        job = scheduler.wake_up(input.delaySeconds, input.prompt or "")
        data: dict[str, Any] = {"id": job.id, "scheduledFor": int(job.next_fire * 1000), "noop": input.noop}
        return ToolResult(
            f"Next wake-up at {_when(job.next_fire)} ({input.reason or 'no reason given'}).", data=data
        )
