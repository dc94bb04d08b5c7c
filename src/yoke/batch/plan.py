"""Attempts: tasks x models x attempt numbers, their folders, and which are done in results.jsonl."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from yoke import jsonsafe

RESULTS = "results.jsonl"
RETRIED = ("crashed",)  # statuses a rerun runs again; every other status is done
DEFAULT_TIMEOUT_S = 1800.0

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def attempt_key(task_id: str, model: str | None, attempt: int) -> str:
    return f"{task_id}\x1f{model or ''}\x1f{attempt}"


def slug(text: str) -> str:
    """A folder name for any text: safe characters kept, a short hash added when anything was changed."""
    safe = _UNSAFE.sub("-", text).strip(".-")[:60] or "x"
    if safe != text:
        safe += "-" + hashlib.sha1(text.encode()).hexdigest()[:8]
    return safe


def plan_attempts(
    tasks: list[dict[str, Any]], models: list[str | None], attempts: int, out: Path, settings: dict[str, Any]
) -> list[dict[str, Any]]:
    """One job per (task, model, attempt). A task's own `model` pins it to that model."""
    jobs = []
    for task in tasks:
        for model in [task["model"]] if task.get("model") else models:
            for n in range(1, attempts + 1):
                folder = out / "attempts" / slug(task["id"]) / slug(model or "default") / str(n)
                job = dict(task)
                job.update(settings)
                job.update(
                    {
                        "key": attempt_key(task["id"], model, n),
                        "model": model,
                        "attempt": n,
                        "attempt_dir": str(folder),
                        "timeout_s": task.get("timeout_s") or settings.get("timeout_s") or DEFAULT_TIMEOUT_S,
                        "budget_usd": task.get("budget_usd") or settings.get("budget_usd"),
                    }
                )
                jobs.append(job)
    return jobs


def read_results(path: Path) -> list[dict[str, Any]]:
    """Every whole line of a results file (a line torn by a kill is skipped)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    rows = []
    for line in text.splitlines():
        try:
            row = jsonsafe.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and "id" in row:
            rows.append(row)
    return rows


def latest_by_key(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The last result of each attempt (a retried crash is superseded by its rerun)."""
    latest: dict[str, dict[str, Any]] = {}
    for row in rows:
        latest[attempt_key(str(row["id"]), row.get("model_spec"), int(row.get("attempt", 1)))] = row
    return latest


def pending(jobs: list[dict[str, Any]], results: Path) -> list[dict[str, Any]]:
    done = {k for k, row in latest_by_key(read_results(results)).items() if row.get("status") not in RETRIED}
    return [job for job in jobs if job["key"] not in done]


class ResultsFile:
    """Appends one JSON line per finished attempt, each in one write, so a kill never mixes two lines."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        size = os.fstat(self.fd).st_size
        if size:  # a line torn by a kill -9: start on a fresh line
            with open(path, "rb") as fh:
                fh.seek(size - 1)
                if fh.read(1) != b"\n":
                    os.write(self.fd, b"\n")

    def append(self, row: dict[str, Any]) -> None:
        os.write(self.fd, (json.dumps(row, ensure_ascii=False) + "\n").encode())

    def close(self) -> None:
        os.close(self.fd)
