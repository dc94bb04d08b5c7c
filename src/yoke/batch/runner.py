"""Drive a batch: hand the pending attempts to an executor, append each result as it arrives, show progress,
and stop cleanly on Ctrl+C (running attempts cancelled, their workspaces left; nothing recorded for them, so
the next run starts them again)."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Any

from yoke.batch.plan import ResultsFile


class Progress:
    """A rich bar on a terminal (done/total, pass rate, cost, ETA); one plain line per attempt otherwise."""

    def __init__(self, total: int, done_before: int) -> None:
        self.total, self.done, self.passed, self.cost = total, 0, 0, 0.0
        self.done_before = done_before
        self.started = time.monotonic()
        self.bar: Any = None
        if sys.stderr.isatty() and total:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
            from rich.progress import Progress as Bar

            self.bar = Bar(
                TextColumn("batch"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[stats]}"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self.task = self.bar.add_task("batch", total=total, stats="")
            self.bar.start()

    def update(self, row: dict[str, Any]) -> None:
        self.done += 1
        self.passed += bool(row.get("passed"))
        self.cost += float(row.get("cost_usd") or 0.0)
        stats = f"pass {100 * self.passed / self.done:.0f}%  ${self.cost:.4f}"
        if self.bar is not None:
            self.bar.update(self.task, advance=1, stats=stats)
            return
        model = row.get("model") or "default"
        print(
            f"[{self.done}/{self.total}] {row['id']} {model} #{row['attempt']}: {row['status']} "
            f"({row.get('wall_s', 0):.1f} s, ${float(row.get('cost_usd') or 0):.4f})  {stats}",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def run_jobs(jobs: list[dict[str, Any]], executor: Any, results: Path, done_before: int = 0) -> bool:
    """Run `jobs`, appending results to `results`; False when stopped by Ctrl+C (or SIGTERM)."""
    out = ResultsFile(results)
    progress = Progress(len(jobs), done_before)
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        for row in executor.run(jobs):
            if row.get("status") == "cancelled":
                continue
            out.append(row)
            progress.update(row)
        return True
    except KeyboardInterrupt:
        progress.close()
        print("yoke batch: stopping: cancelling the running attempts…", file=sys.stderr, flush=True)
        executor.stop()
        print(
            f"yoke batch: stopped after {progress.done} attempt(s); their workspaces are kept. "
            "Run the same command again to continue.",
            file=sys.stderr,
        )
        return False
    finally:
        progress.close()
        out.close()
        signal.signal(signal.SIGTERM, previous)


def _raise_interrupt(*_: Any) -> None:
    raise KeyboardInterrupt
