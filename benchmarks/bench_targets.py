"""Issue 16's speed targets, each printed next to its target, with the floor: a stdlib-only script making the
same streaming request (`floor_request.py`), so the ratio to the physical limit is visible.

Run: `make bench` (or `python benchmarks/bench_targets.py`). Figures, never pass/fail: the machine's load
moves them. Per-turn CPU is Yoke's own user+system time between two session lengths, divided by the turns
between them (each turn one Read tool round trip against the local scripted server).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_parallel import bash_speedup, parallel_reads  # noqa: E402
from run import YOKE, bench_env, measure, median_run, read_target, run_session  # noqa: E402

REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "5"))
HELLO = [{"content": [{"type": "text", "text": "hello"}], "usage": {"input_tokens": 5, "output_tokens": 1}}]


def row(measure_name: str, figure: str, target: str, floor: str = "") -> None:
    print(f"| {measure_name:<44} | {figure:>18} | {target:>14} | {floor:>16} |")


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
        version = [measure([YOKE, "--version"], env, cwd)[0] for _ in range(REPEATS * 2)]
        row("`yoke --version`", f"{statistics.median(version):.3f} s", "0.02-0.03 s")

        cpu = {n: run_session(n, env, cwd, target, REPEATS if n <= 50 else 1) for n in (10, 50, 500, 1000)}
        early = (cpu[50][2] - cpu[10][2]) / 40 * 1000
        late = (cpu[1000][2] - cpu[500][2]) / 500 * 1000
        row("per-turn CPU at turns 10-50 / 500-1,000", f"{early:.1f} / {late:.1f} ms", "<= 2 / <= 3 ms")
        row(
            "1,000 Read turns, wall / peak RSS",
            f"{cpu[1000][0]:.1f} s / {cpu[1000][1]:.0f} MB",
            "<= 5 s / 50 MB",
        )
        row("  of which CPU: Yoke / the scripted server", f"{cpu[1000][2]:.1f} s / {cpu[1000][3]:.1f} s", "")

    with tempfile.TemporaryDirectory() as tmp:
        together, apart = bash_speedup(Path(tmp))
    row("8 read-only Bash calls: one turn vs 8 turns", f"{apart / together:.1f}x", ">= 3.5x")
    with tempfile.TemporaryDirectory() as tmp:
        _, rss = parallel_reads(Path(tmp))
    row("8 parallel Reads of 15 MB files, peak RSS", f"{rss:.0f} MB", "<= 60 MB")


if __name__ == "__main__":
    main()
