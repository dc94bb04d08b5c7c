"""Yoke's speed and memory figures on this machine. Run: `make bench` (or `python benchmarks/run.py`).

Prints, each as the median of several runs:
- `yoke --version`: wall time and peak RSS;
- a one-turn `yoke -p` against the local scripted server: wall time and peak RSS;
- 50-turn and 200-turn scripted sessions (each turn one Read tool call): wall time, and the harness's
  cost per tool round trip, (T200 - T1) / 199, as wall time (which includes the scripted server's own work)
  and as Yoke's own CPU time (HTTP client, loop, gate, transcript and the Read tool itself).
Targets (not tests): --version <= 50 ms; one turn <= 0.3 s and <= 50 MB; 50 turns <= 1.2 s; <= 2 ms/round trip.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from yoke.testing import ScriptedServer

REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "5"))


# The command is started by a small launcher that reports its figures: a child forked straight from this
# process would count this process's own memory (the scripted server keeps every request) in its peak RSS,
# since ru_maxrss survives fork and exec.
_LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execvpe(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{time.perf_counter() - start} {usage.ru_maxrss} {usage.ru_utime + usage.ru_stime} {status}")
"""


def measure(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MB) and CPU seconds (user + system) of one child process."""
    with tempfile.NamedTemporaryFile("r", suffix=".figures") as figures:
        proc = subprocess.Popen(
            [sys.executable, "-S", "-c", _LAUNCHER, figures.name, *argv],
            env=env,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        _, launcher_err = proc.communicate()
        wall, maxrss, cpu, status = figures.read().split()
    if proc.returncode != 0 or os.waitstatus_to_exitcode(int(status)) != 0:
        raise SystemExit(f"benchmark command failed: {' '.join(argv)}\n{launcher_err.decode()}")
    return float(wall), int(maxrss) / 1024, float(cpu)


def session_turns(n: int, file_path: Path) -> list[dict]:
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": f"toolu_{i:04d}",
                    "name": "Read",
                    "input": {"file_path": str(file_path), "offset": i % 30 + 1, "limit": 5},
                }
            ],
            "usage": {"input_tokens": 100, "output_tokens": 10},
        }
        for i in range(n - 1)
    ]
    turns.append(
        {"content": [{"type": "text", "text": "done"}], "usage": {"input_tokens": 100, "output_tokens": 2}}
    )
    return turns


def median_run(argv: list[str], turns: list[dict], env: dict[str, str], cwd: Path, repeats: int):
    """Median wall s, peak RSS MB and CPU s of the command against a fresh scripted server (`{url}` in argv
    is its address), and the server's own CPU s (this process's threads) while it ran: a long session's wall
    time is Yoke's work plus the server parsing each request."""
    samples = []
    for _ in range(repeats):
        with ScriptedServer(turns, validate_requests=False) as srv:
            run_env = dict(env, ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="bench")
            before = resource.getrusage(resource.RUSAGE_SELF)
            figures = measure([a.replace("{url}", srv.url) for a in argv], run_env, cwd)
            after = resource.getrusage(resource.RUSAGE_SELF)
            server = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
            samples.append((*figures, server))
    return tuple(statistics.median(s[i] for s in samples) for i in range(4))


def run_session(turns: int, env: dict[str, str], cwd: Path, target: Path, repeats: int = REPEATS):
    """A `turns`-turn session of Read round trips: median_run's four figures."""
    argv = [YOKE, "-p", "go", "--max-turns", str(turns + 1), "--no-session-persistence"]
    return median_run(argv, session_turns(turns, target), env, cwd, repeats)


def read_target(cwd: Path) -> Path:
    """The small file every session turn reads."""
    target = cwd / "small.txt"
    target.write_text("".join(f"line {i}\n" for i in range(40)))
    return target


def yoke_command() -> str:
    exe = Path(sys.executable).parent / "yoke"
    return str(exe) if exe.exists() else "yoke"


YOKE = yoke_command()


def bench_env(root: Path) -> dict[str, str]:
    """This environment without provider and Yoke settings, with a fresh home under `root`. Bytecode caching
    on: a start-up figure without cached bytecode measures compiling."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(HOME=str(root), YOKE_HOME=str(root / ".yoke"), CLAUDE_CONFIG_DIR=str(root / ".claude"))
    return env


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        target = read_target(cwd)
        env = bench_env(cwd)

        version = [measure([YOKE, "--version"], env, cwd) for _ in range(REPEATS * 2)]
        print(
            f"yoke --version            wall {statistics.median(v[0] for v in version) * 1000:7.1f} ms"
            f"   peak RSS {statistics.median(v[1] for v in version):6.1f} MB"
        )

        one_wall, one_rss, one_cpu, _ = run_session(1, env, cwd, target)
        print(f"one-turn yoke -p          wall {one_wall * 1000:7.1f} ms   peak RSS {one_rss:6.1f} MB")

        fifty_wall, fifty_rss, _, _ = run_session(50, env, cwd, target)
        print(f"50-turn session           wall {fifty_wall * 1000:7.1f} ms   peak RSS {fifty_rss:6.1f} MB")

        two_hundred_wall, two_hundred_rss, two_hundred_cpu, _ = run_session(200, env, cwd, target)
        per_trip = (two_hundred_wall - one_wall) / 199 * 1000
        per_trip_cpu = (two_hundred_cpu - one_cpu) / 199 * 1000
        print(
            f"200-turn session          wall {two_hundred_wall * 1000:7.1f} ms   peak RSS {two_hundred_rss:6.1f} MB"
        )
        print(f"per tool round trip       {per_trip:7.2f} ms wall (incl. the local server's time)")
        print(f"harness CPU per round trip {per_trip_cpu:6.2f} ms  (Yoke's own CPU incl. HTTP client + Read)")


if __name__ == "__main__":
    main()
