"""`yoke batch TASKS.jsonl --out DIR ...`, `yoke batch report DIR`, `yoke batch regrade DIR`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

USAGE = "yoke batch TASKS.jsonl --out DIR [options] | yoke batch report DIR | yoke batch regrade DIR"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        raise SystemExit(_fail(f"{message} (see yoke batch --help)"))


def _fail(message: str) -> int:
    print(f"yoke batch: {message}", file=sys.stderr)
    return 2


def batch_command(argv: list[str]) -> int:
    try:
        if argv and argv[0] == "report":
            return _report_command(argv[1:])
        if argv and argv[0] == "regrade":
            return _regrade_command(argv[1:])
        return _run_command(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="parallel attempts (default: cores)"
    )
    parser.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS", help="run on Ray")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--html", metavar="FILE", help="also write the report as a self-contained HTML page")


def _run_command(argv: list[str]) -> int:
    parser = _Parser(prog="yoke batch", usage=USAGE, description="Run tasks as headless attempts, graded.")
    parser.add_argument("tasks", help="TASKS.jsonl: one task per line")
    parser.add_argument("--out", required=True, metavar="DIR", help="results, workspaces and reports")
    parser.add_argument("--models", help="comma-separated models (default: the configured model)")
    parser.add_argument("--attempts", type=int, default=1, metavar="K", help="attempts per task and model")
    parser.add_argument("--budget-usd", type=float, metavar="X", help="per-attempt spending cap")
    parser.add_argument("--timeout", type=float, metavar="S", help="per-attempt time limit (default 1800)")
    parser.add_argument(
        "--rpm", type=float, metavar="N", help="model requests per minute per API key (shared)"
    )
    parser.add_argument("--no-sandbox", action="store_true", help="run Bash and the grader unsandboxed")
    parser.add_argument(
        "--permission-mode", choices=("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"),
        default="acceptEdits", help="the sessions' mode, and the most a task line may ask for (default acceptEdits)",
    )  # fmt: skip
    _common(parser)
    args = parser.parse_args(argv)
    from yoke.batch.tasks import TaskError, load_tasks

    for name, value in (("--workers", args.workers), ("--attempts", args.attempts)):
        if value < 1:
            return _fail(f"{name} must be at least 1")
    for name, value in (("--budget-usd", args.budget_usd), ("--timeout", args.timeout), ("--rpm", args.rpm)):
        if value is not None and value <= 0:
            return _fail(f"{name} must be a positive number")
    try:
        tasks, errors = load_tasks(Path(args.tasks))
    except TaskError as exc:
        return _fail(str(exc))
    from yoke.batch.tasks import beyond

    for task in [t for t in tasks if beyond(t.get("permission_mode"), args.permission_mode)]:
        errors.append(f"task {task['id']!r}: 'permission_mode' {task['permission_mode']} asks for more than "
                      f"this batch allows ({args.permission_mode}; the command line's --permission-mode)")  # fmt: skip
        tasks.remove(task)
    for task in tasks:
        task["permission_mode"] = task.get("permission_mode") or args.permission_mode
    for error in errors:
        print(f"yoke batch: {args.tasks} {error}; skipped", file=sys.stderr)
    if not tasks:
        return _fail(f"{args.tasks} has no task to run")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    models = [m.strip() for m in args.models.split(",") if m.strip()] if args.models else [None]
    settings = {
        "sandbox": not args.no_sandbox,
        "timeout_s": args.timeout,
        "budget_usd": args.budget_usd,
        "rpm": args.rpm,
        "ratelimit_dir": str(out / ".ratelimit"),
        "cache_dir": str(out / "repos"),
    }
    from yoke.batch.plan import RESULTS, pending, plan_attempts

    jobs = plan_attempts(tasks, models, args.attempts, out, settings)
    todo = pending(jobs, out / RESULTS)
    if len(todo) < len(jobs):
        print(
            f"yoke batch: {len(jobs) - len(todo)} of {len(jobs)} attempts already done; running {len(todo)}",
            file=sys.stderr,
        )
    finished = _execute(todo, args, out, out / RESULTS, len(jobs) - len(todo))
    if finished is None:
        return 2
    code = _print_report(out / RESULTS, args, out)
    return code if finished else 130


def _execute(
    jobs: list[dict[str, Any]], args: argparse.Namespace, out: Path, results: Path, done: int
) -> bool | None:
    from yoke.batch.runner import run_jobs

    if not jobs:
        return True
    if args.ray is not None:
        try:
            from yoke.batch.ray_executor import RayExecutor

            executor: Any = RayExecutor(args.ray or None, args.workers)
        except ImportError:
            _fail("--ray needs Ray: pip install 'yoke[ray]'")
            return None
        except Exception as exc:  # Ray's own failure to start or connect, as one line
            line = (str(exc).strip().splitlines() or [type(exc).__name__])[-1]
            _fail(f"could not {'reach Ray at ' + args.ray if args.ray else 'start a local Ray'}: {line}")
            return None
    else:
        from yoke.batch.local import LocalExecutor

        executor = LocalExecutor(args.workers, out / "workers.log")
    try:
        return run_jobs(jobs, executor, results, done)
    finally:
        close = getattr(executor, "close", None)
        if close is not None:
            close()


def _print_report(results: Path, args: argparse.Namespace, out: Path) -> int:
    from yoke.batch.plan import latest_by_key, read_results
    from yoke.batch.report import report_text, summarize

    rows = list(latest_by_key(read_results(results)).values())
    report = summarize(rows)
    print(json.dumps(report, indent=2) if args.json else report_text(report))
    if args.html:
        from yoke.batch.html import report_html

        Path(args.html).write_text(report_html(report, rows, title=str(out)), encoding="utf-8")
        print(f"yoke batch: wrote {args.html}", file=sys.stderr)
    return 0


def _report_command(argv: list[str]) -> int:
    parser = _Parser(prog="yoke batch report", description="Summarise a batch's results.")
    parser.add_argument("dir", help="the batch's --out folder")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--html", metavar="FILE", help="also write the report as a self-contained HTML page")
    args = parser.parse_args(argv)
    from yoke.batch.plan import RESULTS

    results = Path(args.dir) / RESULTS
    if not results.is_file():
        return _fail(f"{args.dir} has no {RESULTS}; is it a batch's --out folder?")
    return _print_report(results, args, Path(args.dir).resolve())


def _regrade_command(argv: list[str]) -> int:
    parser = _Parser(prog="yoke batch regrade", description="Replay each attempt's cassette and grade again.")
    parser.add_argument("dir", help="the batch's --out folder")
    parser.add_argument("--grade", metavar="CMD", help="a new grader (default: each task's own)")
    _common(parser)
    args = parser.parse_args(argv)
    from yoke.batch.regrade import regrade_jobs

    out = Path(args.dir).resolve()
    try:
        jobs, skipped = regrade_jobs(out, args.grade)
    except ValueError as exc:
        return _fail(str(exc))
    for line in skipped:
        print(f"yoke batch regrade: {line}", file=sys.stderr)
    results = out / "regrade" / "results.jsonl"
    results.unlink(missing_ok=True)
    finished = _execute(jobs, args, out / "regrade", results, 0)
    if finished is None:
        return 2
    code = _print_report(results, args, out / "regrade")
    return code if finished else 130
