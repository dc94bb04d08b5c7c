"""Scheduled prompts: wake-up lateness and the idle scheduler's CPU. Run: `python benchmarks/bench_schedule.py`.

1. Lateness: 30 wake-ups, one after another, each 60 s scaled by 0.002 (0.12 s; YOKE_SCHEDULE_TIME_SCALE),
   fired by the scheduler's own task on the real clock; median and max of fired-at minus due.
   Target: median < 20 ms, max < 100 ms on an idle machine.
2. Idle CPU: one recurring job due in a day, the scheduler's task waiting for 10 s; the process's CPU time
   over that wait. Target: < 0.05 s (it sleeps at most 30 s at a time, so over 10 minutes it wakes 20 times).
"""

from __future__ import annotations

import asyncio
import statistics
import time

from yoke.tools.schedule import Scheduler

WAKE_UPS = 30


async def lateness() -> list[float]:
    fired = asyncio.Event()

    async def submit(ident: str, prompt: str) -> None:
        fired.set()

    scheduler = Scheduler(submit, env={"YOKE_SCHEDULE_TIME_SCALE": "0.002"})
    for _ in range(WAKE_UPS):
        fired.clear()
        scheduler.wake_up(60, "again")
        await asyncio.wait_for(fired.wait(), 10)
    await scheduler.close()
    return [(at - due) * 1000 for _, due, at in scheduler.fired]


async def idle_cpu(seconds: float = 10.0) -> float:
    async def submit(ident: str, prompt: str) -> None:
        return None

    scheduler = Scheduler(submit)
    now = time.localtime()
    scheduler.create(f"{now.tm_min} {now.tm_hour} * * *", "daily")  # next due in about a day
    start = time.process_time()
    await asyncio.sleep(seconds)
    used = time.process_time() - start
    await scheduler.close()
    return used


def main() -> None:
    late = asyncio.run(lateness())
    print(f"schedule: wake-up lateness over {len(late)} wake-ups: median {statistics.median(late):.1f} ms, "
          f"max {max(late):.1f} ms (target median < 20, max < 100)")  # fmt: skip
    cpu = asyncio.run(idle_cpu())
    print(f"schedule: idle scheduler with one job, CPU over 10 s: {cpu * 1000:.1f} ms (target < 50)")


if __name__ == "__main__":
    main()
