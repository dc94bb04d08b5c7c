"""The embedded executor: N local worker processes (`yoke.batch.worker`), each running one attempt at a
time; a thread per worker hands it jobs and reads back its results lines."""

from __future__ import annotations

import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from yoke import jsonsafe

SLACK_S = 60.0  # beyond an attempt's own timeouts, before its worker is killed as hung
START_TIMEOUT_S = 60.0
STOP_GRACE_S = 5.0
RECYCLE_AFTER = 200  # attempts per worker process before a fresh one takes over (bounds memory growth)


def hard_limit(job: dict[str, Any]) -> float:
    return float(job["timeout_s"]) + float(job.get("grade_timeout_s") or job["timeout_s"]) + SLACK_S


class _Worker:
    def __init__(self, log: IO[str]) -> None:
        from yoke import spawn

        # its own group (Ctrl+C reaches the batch process only; it stops the workers itself), and it dies
        # with the batch process however that dies (the door's guard)
        self.proc: Any = _forked(log) or spawn.popen(
            [sys.executable, "-m", "yoke.batch.worker"],
            confine=None,
            stdin=spawn.PIPE,
            stdout=spawn.PIPE,
            stderr=log,
            text=True,
        )
        self.done = 0
        self.eof = False  # its stdout ended: the process exited or was killed, whatever poll() says yet
        line = self.read(START_TIMEOUT_S)
        if line is None or "ready" not in line:
            self.kill()
            raise RuntimeError("a worker process did not start (see workers.log in the output folder)")

    def read(self, timeout: float) -> dict[str, Any] | None:
        """The next line the worker writes, or None when it exited or `timeout` passed."""
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, timeout))
        if not ready:
            return None
        line = self.proc.stdout.readline()
        if not line:
            self.eof = True
        return jsonsafe.loads(line) if line.strip() else None

    def exit_code(self) -> int | None:
        """After EOF the process is ending, but `poll()` may not know yet: wait a moment for it."""
        try:
            return self.proc.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            return None

    def send(self, job: dict[str, Any]) -> bool:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return False
        return True

    def signal(self, sig: int) -> None:
        try:
            self.proc.send_signal(sig)
        except OSError:
            pass

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait()


def _forked(log: IO[str]) -> Any:
    """The worker forked from the session host's warm template when one serves this user (docs/warm.md):
    its imports are already done. None: started cold."""
    from yoke import warm_wire
    from yoke.runtime_key import runtime_dir_path

    return warm_wire.fork_process(runtime_dir_path(os.environ), "yoke.batch.worker", log)


class LocalExecutor:
    name = "local"

    def __init__(self, workers: int, log_path: Path) -> None:
        self.workers = max(1, workers)
        self.log_path = log_path
        self._stop = threading.Event()
        self._live: set[_Worker] = set()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def run(self, jobs: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        todo: queue.Queue[dict[str, Any]] = queue.Queue()
        for job in jobs:
            todo.put(job)
        count = todo.qsize()
        out: queue.Queue[dict[str, Any]] = queue.Queue()
        log = open(self.log_path, "a", encoding="utf-8")  # noqa: SIM115 - shared by the workers for the run
        self._threads = [
            threading.Thread(target=self._slot, args=(todo, out, log), daemon=True)
            for _ in range(min(self.workers, count))
        ]
        for thread in self._threads:
            thread.start()
        try:
            for _ in range(count):
                yield out.get()
        finally:
            log.close()

    def _slot(self, todo: queue.Queue, out: queue.Queue, log: IO[str]) -> None:
        worker: _Worker | None = None
        while not self._stop.is_set():
            try:
                job = todo.get_nowait()
            except queue.Empty:
                break
            try:
                if worker is None or worker.done >= RECYCLE_AFTER:
                    if worker is not None:
                        self._retire(worker)
                    worker = self._spawn(log)
                row = self._one(worker, job)
            except Exception as exc:  # a worker that cannot start: the attempt is retried next run
                row = _failed(job, "crashed", f"{type(exc).__name__}: {exc}")
            if row.get("_worker_lost"):
                row.pop("_worker_lost")
                if worker is not None:
                    self._discard(worker)
                worker = None
            out.put(row)
        if worker is not None:
            self._retire(worker)

    def _spawn(self, log: IO[str]) -> _Worker:
        worker = _Worker(log)
        with self._lock:
            self._live.add(worker)
        if self._stop.is_set():
            worker.signal(signal.SIGTERM)
        return worker

    def _one(self, worker: _Worker, job: dict[str, Any]) -> dict[str, Any]:
        started = time.monotonic()
        if not worker.send(job):
            return {**_failed(job, "crashed", "its worker process exited"), "_worker_lost": True}
        row = worker.read(hard_limit(job))
        worker.done += 1
        if row is not None:
            if row.get("status") == "cancelled":  # the worker ends after a cancelled attempt
                row["_worker_lost"] = True
            return row
        if self._stop.is_set():
            return {**_failed(job, "cancelled", "stopped"), "_worker_lost": True}
        if not worker.eof:  # hung past every timeout: the worker goes, the attempt counts as timed out
            row = _failed(job, "timeout", f"no result after {hard_limit(job):.0f} s; its worker was killed")
        else:  # the worker died (killed, out of memory): a crash, which the next run retries
            row = _failed(
                job, "crashed", f"its worker process {_ended(worker.exit_code())} (see workers.log)"
            )
        row["wall_s"] = round(time.monotonic() - started, 3)
        return {**row, "_worker_lost": True}

    def _retire(self, worker: _Worker) -> None:
        try:
            if worker.proc.stdin is not None:
                worker.proc.stdin.close()
            worker.proc.wait(timeout=STOP_GRACE_S)
        except (OSError, subprocess.TimeoutExpired):
            worker.kill()
        self._discard(worker)

    def _discard(self, worker: _Worker) -> None:
        if worker.proc.poll() is None:
            worker.kill()
        with self._lock:
            self._live.discard(worker)

    def stop(self) -> None:
        """Cancel the running attempts (their workspaces stay), and end every worker within a few seconds."""
        self._stop.set()
        with self._lock:
            live = list(self._live)
        for worker in live:
            worker.signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            live = list(self._live)
        for worker in live:
            worker.kill()


def _ended(code: int | None) -> str:
    if code is None:
        return "closed its output"
    if code < 0:
        return f"was killed by signal {-code}"
    return f"exited with {code}"


def _failed(job: dict[str, Any], status: str, error: str) -> dict[str, Any]:
    from yoke.batch.attempt import blank_row

    row = blank_row(job)
    row.update(status=status, error=error, workspace=str(Path(job["attempt_dir"]) / "workspace"))
    return row
