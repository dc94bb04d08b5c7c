"""Start-up speed (issue 45): one turn (in a plain folder and in a git repository) and 50 Read turns, each
against the stdlib floor (`floor_request.py`: the same streaming request from a script that imports only the
standard library), measured in the same run, the programs alternating.

Run: `python benchmarks/bench_startup.py`. With YOKE_BENCH_BASE=/path/to/other/src, the same figures for
that source tree too (PYTHONPATH), alternating with this one: a before/after on the same loaded machine.
Figures, never pass/fail.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_targets import HELLO, git_repository  # noqa: E402
from run import YOKE, bench_env, measure, read_target, session_turns  # noqa: E402

from yoke.testing import ScriptedServer  # noqa: E402

REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "7"))
FLOOR = str(Path(__file__).parent / "floor_request.py")


def one(argv: list[str], turns: list[dict], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    with ScriptedServer(turns, validate_requests=False) as srv:
        run_env = dict(env, ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="bench")
        wall, rss, cpu = measure([a.replace("{url}", srv.url) for a in argv], run_env, cwd)
    return wall, cpu, rss


def main() -> None:
    base = os.environ.get("YOKE_BENCH_BASE")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = bench_env(root)
        target = read_target(root)
        repo = git_repository(root / "repo")
        programs = {"yoke": env}
        if base:
            programs["base"] = dict(env, PYTHONPATH=base)
        yoke_one = [YOKE, "-p", "hi", "--no-session-persistence"]
        fifty = session_turns(50, target)
        yoke_fifty = [YOKE, "-p", "go", "--max-turns", "51", "--no-session-persistence"]
        cases = {
            "one turn": (yoke_one, HELLO, root),
            "one turn in a git repository": (yoke_one, HELLO, repo),
            "50 Read turns": (yoke_fifty, fifty, root),
        }
        samples: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
        for n in range(REPEATS):
            for case, (argv, turns, cwd) in cases.items():
                order = list(programs.items()) if n % 2 == 0 else list(reversed(programs.items()))
                for name, run_env in order:
                    samples.setdefault((case, name), []).append(one(argv, turns, run_env, cwd))
                samples.setdefault((case, "floor"), []).append(
                    one([sys.executable, FLOOR, "{url}"], HELLO, env, cwd)
                )
    print(
        f"start-up, median of {REPEATS} (wall s / CPU s / peak RSS MB; CPU is the steadier figure on a busy "
        "machine); floor: a stdlib script making one request"
    )
    names = [*programs, "floor"]
    print(f"| {'case':<30} | " + " | ".join(f"{n:>22}" for n in names) + " | yoke/floor |")
    for case in cases:
        cells, walls = [], {}
        for name in names:
            rows = samples[(case, name)]
            walls[name] = statistics.median(r[0] for r in rows)
            cpu, rss = statistics.median(r[1] for r in rows), statistics.median(r[2] for r in rows)
            cells.append(f"{walls[name]:.3f} / {cpu:.3f} / {rss:3.0f}")
        print(
            f"| {case:<30} | "
            + " | ".join(f"{c:>22}" for c in cells)
            + f" | {walls['yoke'] / walls['floor']:9.2f}x |"
        )


if __name__ == "__main__":
    main()
