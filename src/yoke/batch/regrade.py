"""`yoke batch regrade DIR`: each attempt replayed from its cassette in a fresh workspace (tools run for
real, the model's answers come from the recording: no model call), then graded again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from yoke import jsonsafe
from yoke.batch.plan import RESULTS, latest_by_key, read_results


def regrade_jobs(out: Path, grade: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    results = out / RESULTS
    if not results.is_file():
        raise ValueError(f"{out} has no {RESULTS}; is it a batch's --out folder?")
    jobs, skipped = [], []
    for row in latest_by_key(read_results(results)).values():
        cassette = row.get("cassette")
        name = f"{row['id']} {row.get('model') or 'default'} #{row.get('attempt')}"
        if row.get("status") not in ("passed", "failed"):
            skipped.append(f"{name}: {row.get('status')}, never graded; skipped")
            continue
        if not cassette or not Path(cassette).is_file():
            skipped.append(f"{name}: no cassette ({row.get('status')}); skipped")
            continue
        folder = Path(cassette).parent
        try:
            job = jsonsafe.loads((folder / "job.json").read_text())
        except (OSError, json.JSONDecodeError):
            skipped.append(f"{name}: {folder / 'job.json'} is missing or damaged; skipped")
            continue
        relative = (
            folder.relative_to(out / "attempts")
            if folder.is_relative_to(out / "attempts")
            else Path(folder.name)
        )
        job.update(
            replay=str(cassette),
            attempt_dir=str(out / "regrade" / "attempts" / relative),
            cache_dir=str(out / "repos"),
            rpm=None,
        )
        if grade:
            job["grade"] = grade
        jobs.append(job)
    return jobs, skipped
