"""The warm start (issue 45): one `yoke -p` turn started cold and forked from the host's template, time to the
first byte on stdout and to the end, median of N, the programs alternating; the stdlib floor in the same run;
`yoke --bg` to the first request with the host running; and what the host and its template hold in memory.

Run: `python benchmarks/bench_warm.py` (YOKE_BENCH_REPEATS, default 9). Figures, never pass/fail."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_targets import HELLO  # noqa: E402
from run import YOKE, bench_env  # noqa: E402

from yoke.config.trust import trust_folder  # noqa: E402
from yoke.host.paths import runtime_dir  # noqa: E402
from yoke.testing import ScriptedServer  # noqa: E402

REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "9"))
FLOOR = str(Path(__file__).parent / "floor_request.py")
ARGV = ["-p", "hi", "--output-format", "stream-json", "--verbose", "--no-session-persistence"]


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Seconds to the first byte on stdout and to the exit."""
    with ScriptedServer(HELLO, validate_requests=False) as srv:
        run_env = dict(env, ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="bench")
        started = time.perf_counter()
        proc = subprocess.Popen(
            [a.replace("{url}", srv.url) for a in argv],
            env=run_env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None
        proc.stdout.read(1)
        first = time.perf_counter() - started
        _, err = proc.communicate()
        total = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"benchmark command failed: {' '.join(argv)}\n{err.decode()}")
    return first, total


def bg_first_request(env: dict[str, str], cwd: Path) -> float:
    with ScriptedServer(default_turn={"content": [{"type": "text", "text": "ok"}]}) as srv:
        run_env = dict(env, ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="bench")
        started = time.perf_counter()
        subprocess.run([YOKE, "--bg", "hi"], env=run_env, cwd=cwd, capture_output=True, check=True)
        while not srv.requests:
            time.sleep(0.001)
        return time.perf_counter() - started


def memory_kb(pid: int) -> tuple[int, int]:
    """Resident and proportional (shared pages split among the processes sharing them) memory, kB."""
    rss = pss = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Rss:"):
            rss = int(line.split()[1])
        elif line.startswith("Pss:"):
            pss = int(line.split()[1])
    return rss, pss


def _pid_with(text: str) -> int | None:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if text.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    return int(entry)
            except OSError:
                pass
    return None


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="ykw") as tmp:
        root = Path(tmp)
        (root / "run").mkdir(mode=0o700)
        env = dict(bench_env(root), XDG_RUNTIME_DIR=str(root / "run"), YOKE_HOST_IDLE_STOP="600")
        folder = runtime_dir(env)
        trust_folder(root, root / ".yoke")  # `--bg` runs only in a trusted folder
        host = subprocess.Popen(
            [YOKE, "host"], env=env, cwd=root, stdin=subprocess.DEVNULL, start_new_session=True
        )
        try:
            deadline = time.monotonic() + 60
            while not (folder / "warm.sock").exists():
                if time.monotonic() > deadline:
                    raise SystemExit("the host started no template")
                time.sleep(0.05)
            programs = {
                "cold": ([YOKE, *ARGV], dict(env, YOKE_NO_WARM="1")),
                "warm": ([YOKE, *ARGV], dict(env, YOKE_WARM_REQUIRE="1")),
                "floor": ([sys.executable, FLOOR, "{url}"], env),
            }
            samples: dict[str, list[tuple[float, float]]] = {name: [] for name in programs}
            timed(*programs["warm"], root)  # the template's first fork pays for its own pages once
            for n in range(REPEATS):
                order = list(programs) if n % 2 == 0 else list(reversed(programs))
                for name in order:
                    argv, run_env = programs[name]
                    samples[name].append(timed(argv, run_env, root))
            bg = [bg_first_request(dict(env, YOKE_WARM_REQUIRE="1"), root) for _ in range(3)]
            template = _pid_with(str(folder / "warm.sock"))
            host_mem = memory_kb(host.pid)
            template_mem = memory_kb(template) if template else (0, 0)
        finally:
            os.killpg(host.pid, signal.SIGTERM)
            host.wait(timeout=30)
    print(f"warm start, one `yoke -p` turn (stream-json), median of {REPEATS}: first byte / total, ms")
    cold_total = statistics.median(s[1] for s in samples["cold"])
    for name, rows in samples.items():
        first = statistics.median(r[0] for r in rows)
        total = statistics.median(r[1] for r in rows)
        print(f"| {name:<5} | {first * 1000:7.1f} | {total * 1000:7.1f} | {total / cold_total:5.2f}x cold |")
    print(f"yoke --bg to the first request, host running, warm: {statistics.median(bg) * 1000:.0f} ms")
    print(
        f"host RSS {host_mem[0] / 1024:.0f} MB; its template RSS {template_mem[0] / 1024:.0f} MB "
        f"(PSS {template_mem[1] / 1024:.0f} MB, shared with each run it forks)"
    )


if __name__ == "__main__":
    main()
