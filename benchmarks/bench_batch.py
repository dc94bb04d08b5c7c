"""`yoke batch`: 200 tasks of one tool turn each (a Write, then a closing answer) against the scripted
server, graded by a one-line shell command in the sandbox. Prints tasks per second, the per-task overhead
per worker (wall time x workers / tasks: everything Yoke does for an attempt, since the scripted model
answers at once), and the peak memory of the batch process and of its largest process under it; for the local
executor, and for a local Ray when Ray is installed. Goal: local overhead under 0.3 s per task per worker.
Run: `python benchmarks/bench_batch.py [TASKS]`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from yoke.testing import ScriptedServer

TASKS = int(sys.argv[1]) if len(sys.argv) > 1 else 200


def answer(body: dict) -> dict:
    last = body["messages"][-1]["content"]
    if isinstance(last, list) and any(b.get("type") == "tool_result" for b in last):
        return {"content": "done", "usage": {"input_tokens": 100, "output_tokens": 2}}
    call = {
        "type": "tool_use",
        "id": "toolu_w",
        "name": "Write",
        "input": {"file_path": "out.txt", "content": "ok\n"},
    }
    return {"content": [call], "usage": {"input_tokens": 100, "output_tokens": 10}}


def _hwm_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _descendants(pid: int) -> list[int]:
    """Every process below `pid` (children are listed per thread: workers are started from threads)."""
    found, todo = [], [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            try:
                kids = [int(p) for p in (task / "children").read_text().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def run_batch(root: Path, env: dict[str, str], workers: int, extra: list[str]) -> dict:
    out = root / f"out-{'-'.join(extra) or 'local'}"
    argv = [sys.executable, "-m", "yoke", "batch", str(root / "tasks.jsonl"), "--out", str(out)]
    started = time.monotonic()
    proc = subprocess.Popen(
        [*argv, "--workers", str(workers), *extra],
        env=env,
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    batch_peak = worker_peak = 0.0
    while proc.poll() is None:  # peak RSS, read while the processes live
        batch_peak = max(batch_peak, _hwm_mb(proc.pid))
        worker_peak = max([worker_peak, *(_hwm_mb(c) for c in _descendants(proc.pid))])
        time.sleep(0.1)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"yoke batch failed: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == TASKS and all(r["passed"] for r in rows), "every task should pass"
    attempt = sorted(r["wall_s"] for r in rows)
    return {
        "wall": wall,
        "rate": TASKS / wall,
        "overhead": wall * workers / TASKS,
        "attempt_median": attempt[len(attempt) // 2],
        "batch_mb": batch_peak,
        "worker_mb": worker_peak,
    }


def main() -> None:
    workers = os.cpu_count() or 1
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = root / "repo"
        repo.mkdir()
        (repo / "README").write_text("a project\n")
        for args in (
            ["init", "-q"],
            ["add", "-A"],
            ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "i"],
        ):
            subprocess.run(["git", *args], cwd=repo, check=True)
        lines = [
            json.dumps({"id": f"t{i}", "prompt": f"task {i}", "repo": str(repo), "grade": "test -s out.txt"})
            for i in range(TASKS)
        ]
        (root / "tasks.jsonl").write_text("\n".join(lines) + "\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_"))}
        env.update(HOME=str(root), YOKE_HOME=str(root / ".yoke"), CLAUDE_CONFIG_DIR=str(root / ".claude"))
        executors = [("local", [])]
        try:
            import ray  # noqa: F401

            executors.append(("local Ray", ["--ray"]))
        except ImportError:
            print("  (Ray is not installed: the Ray figures are skipped; pip install 'yoke[ray]')")
        print(
            f"yoke batch, {TASKS} one-tool-turn tasks, {workers} workers (load average before: {load[0]:.2f}):"
        )
        for name, extra in executors:
            with ScriptedServer(default_turn=answer) as srv:
                env.update(ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="sk-bench")
                f = run_batch(root, env, workers, extra)
            print(
                f"  {name:10s} {f['wall']:6.1f} s wall, {f['rate']:5.2f} tasks/s, overhead {f['overhead']:.3f} s "
                f"per task per worker (goal < 0.3 for local), attempt median {f['attempt_median']:.3f} s, "
                f"peak RSS: batch process {f['batch_mb']:.0f} MB, largest process under it {f['worker_mb']:.0f} MB"
            )


if __name__ == "__main__":
    main()
