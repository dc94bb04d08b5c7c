"""Parallel work in one turn, against the local scripted server:
- 8 read-only Bash calls (`sleep 0.5`) in one answer vs one per answer: the speed-up (target >= 3.5x);
- 8 parallel Reads of 15 MB files: peak RSS (target <= 60 MB).
Run: `python benchmarks/bench_parallel.py`."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from yoke.testing import ScriptedServer

sys.path.insert(0, str(Path(__file__).parent))
from run import bench_env, measure  # noqa: E402


def call(i: int, name: str, **input: object) -> dict:
    return {"type": "tool_use", "id": f"toolu_{name}_{i}", "name": name, "input": input}


def bash_speedup(root: Path) -> tuple[float, float]:
    """Wall seconds of 8 read-only `sleep 0.5` calls in one answer, and in eight answers."""
    env = bench_env(root)
    argv = [sys.executable, "-m", "yoke", "-p", "go", "--allowedTools", "Bash(sleep:*)"]
    done = {"content": [{"type": "text", "text": "done"}]}
    sleeps = [call(i, "Bash", command=f"sleep 0.{500 + i}") for i in range(8)]  # distinct: no loop guard
    with ScriptedServer([{"content": sleeps}, done]) as srv:
        env.update(ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="sk-bench")
        together = measure(argv, env, root)[0]
    with ScriptedServer([*({"content": [s]} for s in sleeps), done]) as srv:
        env.update(ANTHROPIC_BASE_URL=srv.url)
        apart = measure(argv, env, root)[0]
    return together, apart


def parallel_reads(root: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of 8 parallel Reads of 15 MB files in one answer."""
    env = bench_env(root)
    done = {"content": [{"type": "text", "text": "done"}]}
    line = ("x" * 99 + "\n").encode()
    files = []
    for i in range(8):
        path = root / f"big{i}.log"
        path.write_bytes(line * (15 * 1024 * 1024 // len(line)))
        files.append(path)
    reads = [call(i, "Read", file_path=str(p), offset=1000, limit=50) for i, p in enumerate(files)]
    with ScriptedServer([{"content": reads}, done]) as srv:
        env.update(ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="sk-bench")
        wall, rss, _ = measure([sys.executable, "-m", "yoke", "-p", "go"], env, root)
    return wall, rss


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        together, apart = bash_speedup(Path(tmp))
    print(
        f"8 read-only Bash calls: one answer {together:.2f} s, eight answers {apart:.2f} s "
        f"-> {apart / together:.1f}x (target >= 3.5x)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        wall, rss = parallel_reads(Path(tmp))
    print(f"8 parallel Reads of 15 MB files: {wall:.2f} s, peak RSS {rss:.0f} MB (target <= 60 MB)")


if __name__ == "__main__":
    main()
