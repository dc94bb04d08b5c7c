"""Issue 16's speed targets, each printed next to its target, with the floor: a stdlib-only script making the
same streaming request (`floor_request.py`), so the ratio to the physical limit is visible.

Run: `make bench` (or `python benchmarks/bench_targets.py`). Figures, never pass/fail: the machine's load
moves them. Per-turn CPU is measured inside one session (each turn one Read tool round trip against the
local scripted server): the scripted server reads the Yoke process's CPU time (Linux schedstat, every
thread) as requests 10, 50, 500 and 999 arrive, while Yoke waits for the answer. Subtracting two whole runs'
totals, as before, let the noise of two start-ups into a figure of a few milliseconds.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_parallel import bash_speedup, parallel_reads  # noqa: E402
from run import YOKE, bench_env, measure, median_run, read_target, run_session, session_turns  # noqa: E402

from yoke.testing import ScriptedServer  # noqa: E402

REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "5"))
HELLO = [{"content": [{"type": "text", "text": "hello"}], "usage": {"input_tokens": 5, "output_tokens": 1}}]


def row(measure_name: str, figure: str, target: str, floor: str = "") -> None:
    print(f"| {measure_name:<44} | {figure:>18} | {target:>14} | {floor:>16} |")


def cpu_ns(pid: int) -> int:
    """A live process's time on the CPU so far, all its threads, in nanoseconds (Linux schedstat)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as stat:
                total += int(stat.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended meanwhile
    return total


def cpu_at_requests(turns: int, marks: tuple[int, ...], env: dict[str, str], cwd: Path, target: Path):
    """Yoke's CPU nanoseconds as each request in `marks` (0-based) reaches the scripted server."""
    stamps: dict[int, int] = {}
    pid: list[int] = []

    def stamped(index: int, turn: dict):
        def answer(body: dict) -> dict:
            stamps[index] = cpu_ns(pid[0])
            return turn

        return answer

    script = [stamped(i, t) if i in marks else t for i, t in enumerate(session_turns(turns, target))]
    with ScriptedServer(script, validate_requests=False) as srv:
        proc = subprocess.Popen(
            [YOKE, "-p", "go", "--max-turns", str(turns + 1), "--no-session-persistence"],
            env=dict(env, ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="bench"),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        pid.append(proc.pid)  # the console script runs as this very process
        _, err = proc.communicate()
    if proc.returncode != 0 or len(stamps) != len(marks):
        raise SystemExit(f"per-turn session failed ({proc.returncode}): {err.decode()[-2000:]}")
    return stamps


def per_turn_cpu(env: dict[str, str], cwd: Path, target: Path) -> tuple[float, float]:
    """Median CPU ms per round trip over turns 10-50 and 500-999 of 1,000-turn sessions."""
    if not os.path.isdir("/proc/self/task"):
        raise SystemExit(
            "bench_targets: per-turn figures read Linux's /proc/<pid>/task/*/schedstat; run on Linux"
        )
    early, late = [], []
    for _ in range(REPEATS):
        at = cpu_at_requests(1000, (10, 50, 500, 999), env, cwd, target)
        early.append((at[50] - at[10]) / 40 / 1e6)
        late.append((at[999] - at[500]) / 499 / 1e6)
    return statistics.median(early), statistics.median(late)


FIRST_CALL = """
import asyncio, sys, time
from pathlib import Path
from yoke.tools.base import SessionState, ToolContext
from yoke.tools.builtin import builtin_tools

read = next(t for t in builtin_tools() if t.name == "Read")
cwd = Path(sys.argv[1])
(cwd / "first.txt").write_text("hello\\n")
ctx = ToolContext(cwd=cwd, session=SessionState("s", cwd / "session"))


async def main() -> float:
    began = time.process_time()
    await read.run(read.validate({"file_path": "first.txt"}), ctx)
    return time.process_time() - began


print(asyncio.run(main()) * 1000)
"""


def first_tool_call_cpu(cwd: Path) -> float:
    """CPU ms of a run's first tool call (validating its input and running it), in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", FIRST_CALL, str(cwd)], capture_output=True, text=True, check=True
    )
    return float(out.stdout)


def git_repository(root: Path) -> Path:
    """A small repository: 20 files in 3 commits, one changed and one new file (`git status` has work)."""
    root.mkdir()
    identity = ["-c", "user.name=Bench", "-c", "user.email=bench@example.com"]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    for commit in range(3):
        for i in range(commit * 7, commit * 7 + 7):
            (root / f"module_{i}.py").write_text(f"VALUE = {i}\n" * 40)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        subprocess.run(["git", *identity, "commit", "-q", "-m", f"step {commit}"], cwd=root, check=True)
    (root / "module_0.py").write_text("VALUE = -1\n")
    (root / "notes.txt").write_text("new\n")
    return root


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        target = read_target(cwd)
        env = bench_env(cwd)

        print(f"| {'measure':<44} | {'Yoke':>18} | {'target':>14} | {'stdlib floor':>16} |")
        print(f"|{'-' * 46}|{'-' * 20}|{'-' * 16}|{'-' * 18}|")
        one = median_run([YOKE, "-p", "hi", "--no-session-persistence"], HELLO, env, cwd, REPEATS)
        floor_script = str(Path(__file__).parent / "floor_request.py")
        floor = median_run([sys.executable, floor_script, "{url}"], HELLO, env, cwd, REPEATS)
        row(
            "`yoke -p hi`, one turn, wall / peak RSS",
            f"{one[0]:.3f} s / {one[1]:.0f} MB",
            "<= 0.10 s",
            f"{floor[0]:.3f} s / {floor[1]:.0f} MB",
        )
        repo = git_repository(cwd / "repo")  # where users run it: git context and auto memory ask git
        in_repo = median_run([YOKE, "-p", "hi", "--no-session-persistence"], HELLO, env, repo, REPEATS)
        row("  the same inside a git repository", f"{in_repo[0]:.3f} s / {in_repo[1]:.0f} MB", "")
        first = statistics.median(first_tool_call_cpu(cwd) for _ in range(REPEATS))
        row("first tool call (Read) in a fresh process, CPU", f"{first:.1f} ms", "(was ~90 ms)")
        version = [measure([YOKE, "--version"], env, cwd)[0] for _ in range(REPEATS * 2)]
        row("`yoke --version`", f"{statistics.median(version):.3f} s", "0.02-0.03 s")

        early, late = per_turn_cpu(env, cwd, target)
        row("per-turn CPU at turns 10-50 / 500-1,000", f"{early:.2f} / {late:.2f} ms", "<= 2 / <= 3 ms")
        thousand = run_session(1000, env, cwd, target, 1)
        row(
            "1,000 Read turns, wall / peak RSS",
            f"{thousand[0]:.1f} s / {thousand[1]:.0f} MB",
            "<= 5 s / 50 MB",
        )
        row("  of which CPU: Yoke / the scripted server", f"{thousand[2]:.1f} s / {thousand[3]:.1f} s", "")

    with tempfile.TemporaryDirectory() as tmp:
        together, apart = bash_speedup(Path(tmp))
    row("8 read-only Bash calls: one turn vs 8 turns", f"{apart / together:.1f}x", ">= 3.5x")
    with tempfile.TemporaryDirectory() as tmp:
        _, rss = parallel_reads(Path(tmp))
    row("8 parallel Reads of 15 MB files, peak RSS", f"{rss:.0f} MB", "<= 60 MB")


if __name__ == "__main__":
    main()
