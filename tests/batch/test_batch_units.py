"""The arithmetic behind the report and the rate limiter, and task-line checks."""

from __future__ import annotations

import math
import multiprocessing
import time
from itertools import combinations
from pathlib import Path

import pytest

from yoke.batch.plan import ResultsFile, attempt_key, pending, plan_attempts, read_results, slug
from yoke.batch.ratelimit import FileBuckets, TokenBucket
from yoke.batch.report import p95, pass_at_k, summarize
from yoke.batch.tasks import TaskError, parse_task


def _brute_pass_at_k(n: int, c: int, k: int) -> float:
    """Over every k-subset of n attempts (c passing), the share that holds at least one pass."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(combinations(outcomes, k))
    return sum(any(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n,c,k", [(5, 0, 1), (5, 1, 1), (5, 2, 3), (6, 3, 2), (4, 4, 4), (7, 1, 6)])
def test_pass_at_k_is_the_unbiased_estimator(n, c, k):
    assert math.isclose(pass_at_k(n, c, k), _brute_pass_at_k(n, c, k))


def test_p95_and_summary():
    assert p95([]) == 0.0 and p95([3.0]) == 3.0
    assert math.isclose(p95([float(v) for v in range(1, 101)]), 95.05)
    rows = [
        {
            "id": "a",
            "model_spec": "m",
            "attempt": 1,
            "passed": True,
            "status": "passed",
            "cost_usd": 1.0,
            "wall_s": 2.0,
        },
        {
            "id": "a",
            "model_spec": "m",
            "attempt": 2,
            "passed": False,
            "status": "timeout",
            "cost_usd": 3.0,
            "wall_s": 4.0,
        },
        {
            "id": "b",
            "model_spec": "m",
            "attempt": 1,
            "passed": False,
            "status": "failed",
            "cost_usd": 0.0,
            "wall_s": 1.0,
        },
        {
            "id": "b",
            "model_spec": "m",
            "attempt": 2,
            "passed": False,
            "status": "crashed",
            "cost_usd": 0.0,
            "wall_s": 1.0,
        },
    ]
    report = summarize(rows)["models"]["m"]
    assert report["pass@1"] == 0.25 and report["pass@k"]["2"] == 0.5
    assert report["failures"] == {"grader fail": 1, "timeout": 1, "budget": 0, "model error": 0, "crash": 1}
    assert report["cost_usd"]["mean"] == 1.0


def test_token_bucket_refills_at_the_rate():
    bucket = TokenBucket(rpm=60)  # one a second, a burst of 10
    tokens, stamp = bucket.burst, 0.0
    for _ in range(10):
        wait, tokens, stamp = bucket.take(tokens, stamp, 0.0)
        assert wait == 0.0
    wait, tokens, stamp = bucket.take(tokens, stamp, 0.0)
    assert math.isclose(wait, 1.0)
    wait, tokens, stamp = bucket.take(tokens, stamp, 1.0)
    assert wait == 0.0


def _take_many(folder: str, count: int) -> int:
    buckets = FileBuckets(folder, rpm=6)  # a burst of one, then one per ten seconds
    return sum(1 for _ in range(count) if buckets.wait_for("k") == 0.0)


def test_file_buckets_are_shared_by_processes(tmp_path):
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        granted = sum(pool.starmap(_take_many, [(str(tmp_path), 5)] * 3))
    assert granted == 1  # one bucket for the key across all processes
    assert FileBuckets(tmp_path, rpm=6).wait_for("other") == 0.0  # another key has its own


def test_task_lines_are_checked(tmp_path):
    (tmp_path / "repo").mkdir()
    task = parse_task({"id": 7, "prompt": "p", "repo": "repo", "lang": "py"}, tmp_path)
    assert task["id"] == "7" and task["repo"] == str(tmp_path / "repo") and task["extra"] == {"lang": "py"}
    for raw, message in (
        ({"prompt": "p", "repo": "repo"}, "'id' is missing"),
        ({"id": "a", "prompt": "p", "repo": "https://example.com/x.git"}, "needs a 'commit'"),
        (
            {"id": "a", "prompt": "p", "repo": "repo", "timeout_s": "9"},
            "'timeout_s' must be a positive number",
        ),
        (
            {"id": "a", "prompt": "p", "repo": "repo", "permission_mode": "yolo"},
            "'permission_mode' must be one of",
        ),
    ):
        with pytest.raises(TaskError, match=message):
            parse_task(raw, tmp_path)


def test_results_survive_a_torn_line_and_crashes_are_retried(tmp_path):
    tasks = [{"id": "a/b", "model": None, "timeout_s": None, "budget_usd": None}]
    jobs = plan_attempts(tasks, ["m1", "m2"], 2, tmp_path, {})
    assert len(jobs) == 4 and slug("a/b") != "a/b" and "/" not in slug("a/b")
    results = tmp_path / "results.jsonl"
    results.write_text(
        '{"id": "a/b", "model_spec": "m1", "attempt": 1, "status": "passed"}\n{"id": "a/b", "mod'
    )
    out = ResultsFile(results)
    out.append({"id": "a/b", "model_spec": "m1", "attempt": 2, "status": "crashed"})
    out.close()
    assert len(read_results(results)) == 2
    left = {job["key"] for job in pending(jobs, results)}
    assert attempt_key("a/b", "m1", 1) not in left and attempt_key("a/b", "m1", 2) in left and len(left) == 3


def test_the_burst_is_ten_seconds_worth(tmp_path):
    buckets = FileBuckets(Path(tmp_path), rpm=600)
    started = time.monotonic()
    granted = sum(1 for _ in range(200) if buckets.wait_for("k") == 0.0)
    refilled = (time.monotonic() - started) * 10  # what the bucket regained meanwhile, at ten a second
    assert 100 <= granted <= 100 + refilled + 1
