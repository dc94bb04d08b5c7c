"""Grep speed: Yoke's Grep tool against bare `rg` on the installed Python standard library.

Run: `python benchmarks/bench_grep.py`. For each search, prints the median wall time of Yoke's Grep (called
in-process, as the loop calls it: ripgrep subprocess, parsing, mtime ordering, paging) and of the same
search run as a bare `rg` subprocess with its output captured, and their ratio. Target: within 1.1x.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sysconfig
import time
from pathlib import Path

from yoke.tools.base import SessionState, ToolContext
from yoke.tools.builtin.grep import GrepInput, GrepTool
from yoke.tools.ripgrep import rg_binary

REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "15"))
SEARCHES = [
    # (label, Grep input, the bare rg arguments for the same search)
    ("files: def __init__", {"pattern": "def __init__"}, ["--files-with-matches", "def __init__"]),
    (
        "files: -i todo|fixme",
        {"pattern": "todo|fixme", "-i": True},
        ["--files-with-matches", "-i", "todo|fixme"],
    ),
    (
        "files: type py, rare",
        {"pattern": "zlib\\.crc32", "type": "py"},
        ["--files-with-matches", "--type", "py", "zlib\\.crc32"],
    ),
    (
        "count: import os",
        {"pattern": "^import os$", "output_mode": "count"},
        ["--count-matches", "^import os$"],
    ),
    (
        "content: raise ValueError, all",
        {"pattern": "raise ValueError\\(", "output_mode": "content", "head_limit": 0},
        ["--line-number", "raise ValueError\\("],
    ),
]


def paired_medians(first, second) -> tuple[float, float]:
    """Median wall times of two runs, interleaved (and alternating which goes first) so that load from
    other processes on the machine falls on both alike."""
    first()
    second()  # warm the page cache and the code paths
    times: tuple[list[float], list[float]] = ([], [])
    for n in range(REPEATS):
        order = ((0, first), (1, second)) if n % 2 == 0 else ((1, second), (0, first))
        for slot, run in order:
            began = time.perf_counter()
            run()
            times[slot].append(time.perf_counter() - began)
    return statistics.median(times[0]), statistics.median(times[1])


def main() -> None:
    rg = rg_binary()
    if rg is None:
        raise SystemExit("ripgrep is not installed")
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sum(1 for _ in stdlib.rglob("*.py"))
    print(f"tree: {stdlib} ({files} .py files); ripgrep: {rg}; median of {REPEATS} runs\n")
    ctx = ToolContext(cwd=stdlib, session=SessionState("bench", Path("/tmp/yoke-bench-grep")))
    tool = GrepTool()
    loop = asyncio.new_event_loop()
    ratios = []
    print(f"{'search':<34} {'yoke Grep':>10} {'bare rg':>10} {'ratio':>7}  found")
    for label, grep_input, rg_args in SEARCHES:
        parsed = GrepInput.model_validate(grep_input)
        outcome = {}

        def yoke_run(parsed=parsed, outcome=outcome) -> None:
            outcome["result"] = loop.run_until_complete(tool.run(parsed, ctx))

        def rg_run(rg_args=rg_args) -> None:
            subprocess.run(
                [rg, *rg_args], cwd=stdlib, capture_output=True, stdin=subprocess.DEVNULL, check=False
            )

        yoke_s, rg_s = paired_medians(yoke_run, rg_run)
        result = outcome["result"]
        first_line = result.content.split("\n", 1)[0]
        if result.data["mode"] == "count":
            found = f"{result.data['numMatches']} matches in {result.data['numFiles']} files"
        elif result.data["mode"] == "content":
            found = f"{result.data['numLines']} lines"
        else:
            found = first_line
        ratios.append(yoke_s / rg_s)
        print(f"{label:<34} {yoke_s * 1000:>8.1f}ms {rg_s * 1000:>8.1f}ms {yoke_s / rg_s:>6.2f}x  {found}")
    loop.close()
    print(f"\nmedian ratio {statistics.median(ratios):.2f}x, worst {max(ratios):.2f}x (target <= 1.10x)")


if __name__ == "__main__":
    main()
