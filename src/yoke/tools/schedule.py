"""Scheduled prompts of one session: cron jobs (CronCreate), one-shot wake-ups (ScheduleWakeup, `/loop`).

A job fires by submitting its prompt to the session as a client would (`submit`, the session port's
`Prompt` op), so it waits behind a running turn and runs under the session's permission mode. A job never
fires twice in a burst: when its time has passed (a long turn, a suspended laptop) it fires once and its
next time is counted from now. A job whose prompt is still queued does not fire again until it has run.

Every job has caps: at most `max_runs` firings, `MAX_AGE_S` of life (30 days, as Claude Code 2.1.332's
`maxAgeMs`), and the session's cost since the job was made at most `max_cost_usd`. A durable task's runs
and cost are counted across the sessions that fire it (`yokeRuns`, `yokeSpentUsd` in its file). A capped job
ends and says why (`ended`).

The clock is injected (`clock`, epoch seconds) so tests drive it in process; `YOKE_SCHEDULE_TIME_SCALE`
(test-only) multiplies a wake-up's delay after it is clamped to 60..3600 s, so a test waits 0.6 s for 60.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio  # on use below: `yoke agents` reads cron times without the event loop's modules
    from datetime import datetime

MAX_AGE_S = 30 * 24 * 3600
WAKEUP_MIN_S, WAKEUP_MAX_S = 60, 3600
DEFAULT_MAX_RUNS = 100
DEFAULT_MAX_COST_USD = 5.0
MAX_JOBS = 50
PROMPT_CAP = 1000  # session_crons clips a prompt there (2.1.332's Stop hook input)
IDLE_POLL_S = 30.0  # the longest sleep: a clock change or a new job is seen within it
FIELDS = (
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 7),
)
NAMES = {
    3: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
    4: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
}


class CronError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class CronSpec:
    """A 5-field cron expression in local time: minute hour day-of-month month day-of-week (`*`, lists,
    ranges, steps, month and weekday names). Day of month and day of week, both restricted, match either
    (as cron does)."""

    expr: str
    sets: tuple[frozenset[int], ...]
    dom_any: bool
    dow_any: bool

    @classmethod
    def parse(cls, expr: str) -> CronSpec:
        parts = expr.split()
        if len(parts) != 5:
            raise CronError(
                f"a cron expression has 5 fields (minute hour day month weekday), not {len(parts)}"
            )
        sets = tuple(_field(p, i) for i, p in enumerate(parts))
        dow = frozenset(d % 7 for d in sets[4])  # 7 is Sunday too
        return cls(expr, (*sets[:4], dow), parts[2] == "*", parts[4] == "*")

    def matches_day(self, day: datetime) -> bool:
        if day.month not in self.sets[3]:
            return False
        dom = day.day in self.sets[2]
        dow = (day.weekday() + 1) % 7 in self.sets[4]
        if self.dom_any or self.dow_any:
            return dom and dow
        return dom or dow

    def next_after(self, when: float) -> float | None:
        """The first matching minute strictly after `when` (epoch s), within 5 years; None if none."""
        from datetime import datetime, timedelta  # on use: a plain `-p` (no job) never imports dates

        start = datetime.fromtimestamp(when).replace(second=0, microsecond=0) + timedelta(minutes=1)
        day = start.replace(hour=0, minute=0)
        for _ in range(366 * 5):
            if self.matches_day(day):
                for hour in sorted(self.sets[1]):
                    for minute in sorted(self.sets[0]):
                        at = day.replace(hour=hour, minute=minute)
                        if at >= start:
                            return at.timestamp()
            day += timedelta(days=1)
        return None


def _field(text: str, index: int) -> frozenset[int]:
    name, low, high = FIELDS[index]
    out: set[int] = set()
    for part in text.lower().split(","):
        body, _, step_text = part.partition("/")
        step = _number(step_text, index) if step_text else 1
        if step < 1:
            raise CronError(f"{name}: a step must be 1 or more ({part})")
        if body == "*":
            first, last = low, high if index != 4 else 6
        elif "-" in body:
            a, b = body.split("-", 1)
            first, last = _number(a, index), _number(b, index)
        else:
            first = _number(body, index)
            last = high if step_text else first
        if not (low <= first <= high and low <= last <= high) or first > last:
            raise CronError(f"{name}: {part} is outside {low}-{high}")
        out.update(range(first, last + 1, step))
    return frozenset(out)


def _number(text: str, index: int) -> int:
    names = NAMES.get(index)
    if names and text[:3] in names:
        return names.index(text[:3]) + (1 if index == 3 else 0)
    if not text.isdigit():
        raise CronError(f"{FIELDS[index][0]}: {text!r} is not a number")
    return int(text)


def human(expr: str) -> str:
    """A short reading of common shapes; the expression itself otherwise."""
    parts = expr.split()
    if parts[1:] == ["*", "*", "*", "*"] and parts[0].startswith("*/"):
        return f"Every {parts[0][2:]} minutes"
    if parts == ["*", "*", "*", "*", "*"]:
        return "Every minute"
    return f"cron {expr}"


@dataclass(slots=True)
class Job:
    id: str
    cron: str
    prompt: str
    recurring: bool
    durable: bool
    kind: str  # "cron" (CronCreate, /loop INTERVAL) or "wakeup" (ScheduleWakeup)
    created: float
    next_fire: float
    cost_at_start: float = 0.0
    runs: int = 0  # a durable task's count goes on from the sessions that fired it before (`yokeRuns`)
    spent_before: float = 0.0  # a durable task's cost in the sessions before this one (`yokeSpentUsd`)
    max_runs: int = DEFAULT_MAX_RUNS
    max_cost_usd: float = DEFAULT_MAX_COST_USD
    queued_id: str = ""  # the prompt it submitted last, while that waits
    last_fired: float = 0.0
    spec: CronSpec | None = field(default=None, repr=False)
    origin: dict[str, Any] | None = None  # a durable task's creator fields, kept on adoption

    def as_listed(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "cron": self.cron,
            "humanSchedule": human(self.cron),
            "prompt": self.prompt,
            "recurring": self.recurring,
            "durable": self.durable,
            "nextFireAt": int(self.next_fire * 1000),
        }

    def as_session_cron(self) -> dict[str, Any]:
        """One `session_crons` item (2.1.332's Stop/SubagentStop hook input)."""
        prompt = self.prompt
        if len(prompt) > PROMPT_CAP:
            prompt = prompt[:PROMPT_CAP] + f"… [+{len(prompt) - PROMPT_CAP} chars]"
        return {"id": self.id, "schedule": self.cron, "recurring": self.recurring, "prompt": prompt}


Submit = Callable[[str, str], Awaitable[Any]]  # (prompt id, prompt text)


class Scheduler:
    """The jobs of one session and the task that fires them."""

    def __init__(
        self,
        submit: Submit,
        is_queued: Callable[[str], bool] = lambda _ident: False,
        spent: Callable[[], float] = lambda: 0.0,
        clock: Callable[[], float] = time.time,
        env: Mapping[str, str] | None = None,
        store: Any = None,
    ) -> None:
        self.submit, self.is_queued, self.spent, self.clock = submit, is_queued, spent, clock
        self.store = store  # tools/durable.py DurableStore: where durable jobs are kept (None: none are)
        self.jobs: dict[str, Job] = {}
        self.ended: list[tuple[str, str]] = []  # (job id, why) of jobs that stopped on a cap
        self.fired: list[tuple[str, float, float]] = []  # (job id, due, fired at): lateness is measurable
        self.scale = _scale(env or {})
        self.max_runs = _int(env or {}, "YOKE_SCHEDULE_MAX_RUNS", DEFAULT_MAX_RUNS)
        self.max_cost = _float(env or {}, "YOKE_SCHEDULE_MAX_COST_USD", DEFAULT_MAX_COST_USD)
        import asyncio

        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.closing: list[Callable[[], None]] = []  # what else ends with the session's schedule (a /goal)
        self.on_end: Callable[[str, str], None] = lambda _ident, _why: None  # a capped job is said
        self.on_change: Callable[[], None] = lambda: None  # the jobs or their next times changed

    # ---- jobs ---------------------------------------------------------------------------------------------

    def create(self, cron: str, prompt: str, recurring: bool = True, durable: bool = False) -> Job:
        spec = CronSpec.parse(cron)
        if not prompt.strip():
            raise CronError("the prompt is empty")
        if len(self.jobs) >= MAX_JOBS:
            raise CronError(f"this session has {MAX_JOBS} scheduled jobs already; delete one first")
        now = self.clock()
        first = spec.next_after(now)
        if first is None:
            raise CronError(f"{cron} never matches")
        job = Job(
            _new_id(), cron, prompt, recurring, durable and self._can_keep(), "cron", now, first,
            cost_at_start=self.spent(), max_runs=self.max_runs, max_cost_usd=self.max_cost, spec=spec,
        )  # fmt: skip
        self._add(job)
        return job

    def adopt(self, task: Mapping[str, Any]) -> Job | None:
        """A durable task from the store: armed at its next time after it last fired (or was made), so a
        time that passed while no session held it fires once, now."""
        try:
            spec = CronSpec.parse(str(task["cron"]))
            created = float(task.get("createdAt") or 0) / 1000 or self.clock()
            last = float(task.get("lastFiredAt") or 0) / 1000
            ident, prompt = str(task["id"]), str(task["prompt"])
        except (CronError, KeyError, TypeError, ValueError):
            return None
        due = spec.next_after(last or created)
        if due is None or ident in self.jobs:
            return None
        recurring = bool(task.get("recurring", True))
        job = Job(
            ident, spec.expr, prompt, recurring, True, "cron", created, due, cost_at_start=self.spent(),
            max_runs=self.max_runs, max_cost_usd=self.max_cost, last_fired=last, spec=spec, origin=dict(task),
            runs=_count(task.get("yokeRuns")), spent_before=_money(task.get("yokeSpentUsd")),
        )  # fmt: skip
        self._add(job)
        return job

    def _can_keep(self) -> bool:
        return self.store is not None and bool(self.store.claim())

    def _save(self) -> None:
        if self.store is not None:
            self.store.save([self.store.task(j) | self._tally(j) for j in self.jobs.values() if j.durable])

    def _tally(self, job: Job) -> dict[str, Any]:
        """Yoke's fields beside 2.1.332's in a durable task: its runs and cost so far, so its caps hold across
        the sessions (and the host's) that fire it, not afresh in each."""
        return {"yokeRuns": job.runs, "yokeSpentUsd": round(self._spent(job), 6)}

    def _spent(self, job: Job) -> float:
        return job.spent_before + self.spent() - job.cost_at_start

    def wake_up(self, delay_s: float, prompt: str) -> Job:
        """A one-shot wake-up `delay_s` from now (clamped to 60..3600, then scaled for tests); replaces the
        session's earlier wake-up (a dynamic loop has one)."""
        delay = min(max(float(delay_s), WAKEUP_MIN_S), WAKEUP_MAX_S)
        self.stop_wake_ups()
        now = self.clock()
        at = now + delay * self.scale
        from datetime import datetime

        fire = datetime.fromtimestamp(now + delay)
        cron = f"{fire.minute} {fire.hour} {fire.day} {fire.month} *"
        job = Job(_new_id(), cron, prompt, False, False, "wakeup", now, at, cost_at_start=self.spent())
        self._add(job)
        return job

    def stop_wake_ups(self) -> int:
        ids = [j.id for j in self.jobs.values() if j.kind == "wakeup"]
        for ident in ids:
            del self.jobs[ident]
        if ids:
            self.on_change()
        return len(ids)

    def delete(self, ident: str) -> Job:
        job = self.jobs.pop(ident, None)
        if job is None:
            raise KeyError(f"no scheduled job {ident!r} (CronList lists them)")
        if job.durable:
            self._save()
        self._changed.set()
        self.on_change()
        return job

    def session_crons(self) -> list[dict[str, Any]]:
        return [j.as_session_cron() for j in sorted(self.jobs.values(), key=lambda j: j.next_fire)]

    def _add(self, job: Job) -> None:
        self.jobs[job.id] = job
        if job.durable:
            self._save()
        self._changed.set()
        self.on_change()
        self.start()

    # ---- firing ---------------------------------------------------------------------------------------------

    async def tick(self) -> list[Job]:
        """Fire every job that is due now, once each; returns them."""
        now = self.clock()
        fired = []
        for job in sorted(self.jobs.values(), key=lambda j: j.next_fire):
            if job.next_fire > now or job.id not in self.jobs:
                continue
            if job.queued_id and self.is_queued(job.queued_id):
                continue  # its last prompt still waits behind a turn: no second copy
            why = self._capped(job, now)
            if why:
                self.jobs.pop(job.id, None)
                self.ended.append((job.id, why))
                self.on_end(job.id, why)
                if job.durable:
                    self._save()
                continue
            job.runs += 1
            job.last_fired = now
            job.queued_id = f"sched-{job.id}-{job.runs}"
            self.fired.append((job.id, job.next_fire, now))
            if job.recurring and job.spec is not None:
                following = job.spec.next_after(now)  # counted from now: missed runs run once
                if following is None:
                    self.jobs.pop(job.id, None)
                else:
                    job.next_fire = following
            else:
                self.jobs.pop(job.id, None)
            fired.append(job)
            if job.durable:
                self._save()
            await self.submit(job.queued_id, job.prompt)
        if fired:
            self.on_change()
        return fired

    def _capped(self, job: Job, now: float) -> str:
        if job.runs >= job.max_runs:
            return f"ran {job.runs} times, its cap (YOKE_SCHEDULE_MAX_RUNS)"
        if now - job.created > MAX_AGE_S:
            return "expired after 30 days"
        if self._spent(job) >= job.max_cost_usd:
            return f"the session spent ${job.max_cost_usd:.2f} since it was made, its cap"
        return ""

    def seconds_to_next(self) -> float:
        if not self.jobs:
            return IDLE_POLL_S
        soonest = min(j.next_fire for j in self.jobs.values())
        return min(max(0.0, soonest - self.clock()), IDLE_POLL_S)

    def start(self) -> None:
        if self._task is None or self._task.done():
            import asyncio

            with contextlib.suppress(RuntimeError):  # no running loop: started at the next job
                self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        import asyncio

        while self.jobs:
            self._changed.clear()
            await self.tick()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(self.seconds_to_next(), 0.01)):
                    await self._changed.wait()

    async def close(self) -> None:
        if any(job.durable for job in self.jobs.values()):
            self._save()  # with the cost of their last runs
        self.jobs.clear()  # durable ones stay in the store for the next session
        self.on_change()
        if self.store is not None:
            self.store.release()
        for end in self.closing:
            end()
        self.closing.clear()
        if self._task is not None:
            import asyncio

            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


def _new_id() -> str:
    import secrets

    return secrets.token_hex(4)


def _scale(env: Mapping[str, str]) -> float:
    """YOKE_SCHEDULE_TIME_SCALE, test-only: a wake-up's delay is multiplied by it (0.01: 60 s is 0.6 s)."""
    value = _float(env, "YOKE_SCHEDULE_TIME_SCALE", 1.0)
    return value if 0 < value <= 1 else 1.0


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    try:
        return float(env.get(name) or default)
    except ValueError:
        return default


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    try:
        return int(env.get(name) or default)
    except ValueError:
        return default


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _money(value: Any) -> float:
    return (
        float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else 0.0
    )
