"""`--ray [ADDRESS]`: each attempt is a Ray task, on a local Ray started for the run or on a cluster.

The workspace is made on the worker that runs the attempt (only the job, a small dict, is shipped); results
stream back as they finish (`ray.wait`). With a cluster, the attempt's cassette and diff come back inside its
result and are written under the batch's folder here. A shared rate limiter is one actor. Imported only
with --ray (Ray is the optional extra `yoke[ray]`).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import ray

from yoke.batch.attempt import Control, blank_row, run_attempt
from yoke.batch.local import hard_limit
from yoke.batch.ratelimit import TokenBucket, key_of

STOP_GRACE_S = 5.0
PROVIDER_PREFIXES = ("ANTHROPIC_", "OPENAI_", "YOKE_", "CLAUDE_", "AWS_", "GOOGLE_", "GEMINI_", "XAI_")
SHIPPED = ("cassette.jsonl", "diff.patch")


@ray.remote
class RateLimiter:
    """The token buckets of every worker of the run, one per API key."""

    def __init__(self, rpm: float) -> None:
        self.bucket = TokenBucket(rpm)
        self.state: dict[str, tuple[float, float]] = {}

    def wait_for(self, key: str) -> float:
        now = time.time()
        tokens, stamp = self.state.get(key, (self.bucket.burst, now))
        wait, tokens, stamp = self.bucket.take(tokens, stamp, now)
        if wait == 0.0:
            self.state[key] = (tokens, stamp)
        return wait


def attempt_task(job: dict[str, Any], limiter: Any, ship_back: bool) -> dict[str, Any]:
    """One attempt on a Ray worker (a plain function: Ray's cancel interrupts it like Ctrl+C would)."""

    async def gate(request: Any) -> None:
        key = key_of(request)
        while True:
            wait = await limiter.wait_for.remote(key)
            if not wait:
                return
            await asyncio.sleep(min(wait, 5.0))

    row = asyncio.run(run_attempt(job, Control(), gate if limiter is not None else None))
    if ship_back:
        folder = Path(job["attempt_dir"])
        row["_files"] = {n: (folder / n).read_text() for n in SHIPPED if (folder / n).is_file()}
    return row


class RayExecutor:
    name = "ray"

    def __init__(self, address: str | None, workers: int) -> None:
        self.address = address
        self.workers = max(1, workers)
        if address:
            _reachable(address)
            env = {k: v for k, v in os.environ.items() if k.startswith(PROVIDER_PREFIXES)}
            ray.init(address=address, runtime_env={"env_vars": env}, log_to_driver=False)
        else:
            # "local": a new instance for this run, even when RAY_ADDRESS names another
            ray.init(address="local", num_cpus=self.workers, include_dashboard=False, log_to_driver=False)
        self._running: dict[Any, tuple[dict[str, Any], float]] = {}

    def run(self, jobs: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        todo = list(jobs)
        rpm = next((job["rpm"] for job in todo if job.get("rpm")), None)
        limiter = RateLimiter.remote(float(rpm)) if rpm else None  # type: ignore[attr-defined]  # a Ray actor
        task = ray.remote(num_cpus=1, max_retries=0)(attempt_task)
        ship_back = bool(self.address)
        todo.reverse()
        while todo or self._running:
            while todo and len(self._running) < self.workers:
                job = todo.pop()
                self._running[task.remote(job, limiter, ship_back)] = (job, time.monotonic())
            ready, _ = ray.wait(list(self._running), num_returns=1, timeout=1.0)
            for ref in ready:
                job, _started = self._running.pop(ref)
                yield self._collect(ref, job)
            yield from self._expire()

    def _collect(self, ref: Any, job: dict[str, Any]) -> dict[str, Any]:
        try:
            row = ray.get(ref)
        except Exception as exc:  # the worker or its node died: recorded as a crash, retried next run
            row = blank_row(job)
            row.update(error=f"the Ray task failed: {type(exc).__name__}: {str(exc)[:500]}")
            return row
        for name, text in (row.pop("_files", None) or {}).items():
            path = Path(job["attempt_dir"]) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return row

    def _expire(self) -> Iterator[dict[str, Any]]:
        now = time.monotonic()
        for ref, (job, started) in list(self._running.items()):
            if now - started > hard_limit(job):
                ray.cancel(ref, force=True)
                del self._running[ref]
                row = blank_row(job)
                row.update(
                    status="timeout", error=f"no result after {hard_limit(job):.0f} s; its task was killed"
                )
                yield row

    def stop(self) -> None:
        """Cancel the running attempts: interrupted first, killed after a few seconds."""
        refs = list(self._running)
        for ref in refs:
            ray.cancel(ref, force=False)
        if refs:
            ray.wait(refs, num_returns=len(refs), timeout=STOP_GRACE_S)
        for ref in refs:
            ray.cancel(ref, force=True)
        self._running.clear()

    def close(self) -> None:
        ray.shutdown()


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Fail in seconds, not minutes, on a HOST:PORT nobody listens at (Ray retries a dead address for long);
    other forms ("auto", ray://...) are left to Ray."""
    import socket

    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "/" in address:
        return
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ConnectionError(f"nothing answers at {address} ({exc.strerror or exc})") from None
