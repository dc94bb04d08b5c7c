"""Recall quality and speed: Yoke's FTS5 memory recall on 200 memories and 50 prompts with known answers.

Run: `python benchmarks/bench_recall.py`. Writes the corpus (benchmarks/recall_corpus.py) as memory files
in a temporary folder, builds the index once, then for each prompt runs what a session runs per prompt
(`AutoMemory.recall_for_prompt`: the mtime check of every file, the search, the formatting) and checks
whether the memory written for that prompt is among the recalled ones. Prints the hit rate at 5, how many
memories a prompt gets on average, and the median and 95th-percentile time per prompt (goal: under 5 ms).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_corpus import TARGETS, distractors  # noqa: E402

from yoke.memory.auto import AutoMemoryConfig  # noqa: E402
from yoke.memory.session import AutoMemory  # noqa: E402
from yoke.memory.store import index_line, render_memory  # noqa: E402

ROUNDS = 5


def write_corpus(directory: Path) -> None:
    directory.mkdir(parents=True)
    lines = []
    for stem, kind, name, description, body, _prompt in TARGETS:
        (directory / f"{stem}.md").write_text(render_memory(name, description, kind, body))
        lines.append(index_line(name, f"{stem}.md", description))
    for stem, kind, name, description, body in distractors():
        (directory / f"{stem}.md").write_text(render_memory(name, description, kind, body))
        lines.append(index_line(name, f"{stem}.md", description))
    (directory / "MEMORY.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "memory"
        write_corpus(directory)
        total = len(list(directory.glob("*.md"))) - 1
        memory = AutoMemory(AutoMemoryConfig(True, directory, False), Path(tmp) / "yoke-home")
        started = time.perf_counter()
        memory.index.refresh()
        build_ms = (time.perf_counter() - started) * 1000

        hits, recalled, times, misses = 0, 0, [], []
        for round_no in range(ROUNDS):
            for stem, *_rest, prompt in TARGETS:
                seen: set[str] = set()  # a fresh session per prompt: nothing surfaced yet
                t0 = time.perf_counter()
                text = memory.recall_for_prompt(prompt, seen)
                times.append((time.perf_counter() - t0) * 1000)
                if round_no:
                    continue
                recalled += len(seen)
                if text is not None and str(directory / f"{stem}.md") in seen:
                    hits += 1
                else:
                    misses.append(prompt)
        memory.close()

    n = len(TARGETS)
    times.sort()
    print(f"recall: {total} memories, {n} prompts with known answers; index built in {build_ms:.1f} ms")
    print(f"  hit rate at 5:        {hits}/{n} = {hits / n:.0%}")
    print(f"  memories per prompt:  {recalled / n:.2f} on average (at most 5)")
    print(
        f"  time per prompt:      median {statistics.median(times):.2f} ms, "
        f"p95 {times[int(len(times) * 0.95)]:.2f} ms, max {times[-1]:.2f} ms (goal: under 5 ms)"
    )
    for prompt in misses:
        print(f"  missed: {prompt}")


if __name__ == "__main__":
    main()
