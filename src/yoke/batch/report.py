"""What a batch came to, per model: pass@1, pass@k (the unbiased estimator), cost and time, failures by kind."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

FAILURE_KINDS = {
    "failed": "grader fail",
    "timeout": "timeout",
    "budget": "budget",
    "model_error": "model error",
    "crashed": "crash",
}


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass@k from n attempts with c passes: 1 - C(n-c, k) / C(n, k)."""
    if k > n:
        raise ValueError("k must not exceed n")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def p95(values: list[float]) -> float:
    """The 95th percentile, linearly interpolated between the nearest ranks."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = 0.95 * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The report of a batch's latest results lines (one per attempt), per model."""
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_model[group_of(row)].append(row)
    return {"models": {model: _model_report(group) for model, group in sorted(by_model.items())}}


def group_of(row: dict[str, Any]) -> str:
    """The model as asked (`--models`, a task's `model`), or "default": an attempt that crashed before its
    session said which model it had still counts with its siblings."""
    return str(row.get("model_spec") or "default")


def _model_report(rows: list[dict[str, Any]]) -> dict[str, Any]:
    per_task: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        per_task[str(row["id"])].append(bool(row.get("passed")))
    k_max = min(len(v) for v in per_task.values())
    pass_k = {
        str(k): round(sum(pass_at_k(len(v), sum(v), k) for v in per_task.values()) / len(per_task), 4)
        for k in range(1, k_max + 1)
    }
    costs = [float(row.get("cost_usd") or 0.0) for row in rows]
    walls = [float(row.get("wall_s") or 0.0) for row in rows]
    failures = {label: 0 for label in FAILURE_KINDS.values()}
    for row in rows:
        label = FAILURE_KINDS.get(str(row.get("status")))
        if label and not row.get("passed"):
            failures[label] += 1
    passed = sum(1 for row in rows if row.get("passed"))
    return {
        "ran": sorted({str(row["model"]) for row in rows if row.get("model")}),
        "tasks": len(per_task),
        "attempts": len(rows),
        "passed": passed,
        "pass_rate": round(passed / len(rows), 4),
        "pass@1": pass_k["1"],
        "pass@k": pass_k,
        "k": k_max,
        "cost_usd": {
            "total": round(sum(costs), 6),
            "mean": round(sum(costs) / len(costs), 6),
            "p95": round(p95(costs), 6),
        },
        "wall_s": {"mean": round(sum(walls) / len(walls), 3), "p95": round(p95(walls), 3)},
        "failures": failures,
    }


def report_text(report: dict[str, Any]) -> str:
    if not report["models"]:
        return "No finished attempts yet."
    lines = []
    for model, r in report["models"].items():
        k = r["k"]
        ran = f" ({', '.join(r['ran'])})" if r["ran"] and r["ran"] != [model] else ""
        lines.append(f"{model}{ran}: {r['tasks']} tasks, {r['attempts']} attempts, {r['passed']} passed")
        ks = "  ".join(f"pass@{n} {100 * v:.1f}%" for n, v in r["pass@k"].items() if n == "1" or int(n) == k)
        lines.append(f"  {ks}")
        c, w = r["cost_usd"], r["wall_s"]
        lines.append(
            f"  cost ${c['total']:.4f} total, ${c['mean']:.4f} mean, ${c['p95']:.4f} p95;"
            f"  time {w['mean']:.2f} s mean, {w['p95']:.2f} s p95"
        )
        kinds = ", ".join(f"{label} {n}" for label, n in r["failures"].items() if n)
        lines.append(f"  failures: {kinds or 'none'}")
    return "\n".join(lines)
