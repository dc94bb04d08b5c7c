"""A local worker process: `python -m yoke.batch.worker`. Reads one job (a JSON line) at a time on stdin,
runs it, and writes its results line on the stdout it was started with; everything else it prints goes to
stderr (the batch's workers.log). SIGINT or SIGTERM cancels the running attempt and ends the worker; the
worker dies with the batch process (Linux: the parent-death signal; elsewhere: stdin's end)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from typing import Any

from yoke import jsonsafe
from yoke.batch.attempt import Control, run_attempt


def main() -> int:
    results = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # a stray print() lands in the log, never in the results channel
    control = Control()
    stop = {"now": False}

    def on_signal(*_: Any) -> None:
        stop["now"] = True
        control.cancel()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    gates: dict[str, Any] = {}
    results.write(json.dumps({"ready": os.getpid()}) + "\n")
    results.flush()
    for line in sys.stdin:
        if stop["now"]:
            break
        job = jsonsafe.loads(line)
        row = asyncio.run(_run(job, control, _gate(job, gates), on_signal))
        results.write(json.dumps(row, ensure_ascii=False) + "\n")
        results.flush()
        if stop["now"]:
            break
    return 0


async def _run(job: dict[str, Any], control: Control, gate: Any, on_signal: Any) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_signal)  # delivered inside the loop: interrupt() is safe there
    try:
        return await run_attempt(job, control, gate)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
            signal.signal(sig, on_signal)


def _gate(job: dict[str, Any], gates: dict[str, Any]) -> Any:
    if not job.get("rpm"):
        return None
    folder = job["ratelimit_dir"]
    if folder not in gates:
        from yoke.batch.ratelimit import FileBuckets

        gates[folder] = FileBuckets(folder, float(job["rpm"])).gate
    return gates[folder]


if __name__ == "__main__":
    sys.exit(main())
