"""Whole-tree checkpoints: the cost of a turn's snapshot on a 10,000-file git repository.

Run: `python benchmarks/bench_checkpoints.py`. Builds a repository of 10,000 committed files (100 folders of
100), then times what a turn costs the session (`Checkpoints.snapshot_tree`, start and end): the first
snapshot of a session (its scratch index seeded from the repository's), a turn when nothing changed (goal:
under 50 ms), and a turn after 10 files changed. Also the restore of those 10 files (a rewind). Prints the
median of several rounds.
"""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from yoke.session.checkpoints import Checkpoints

FILES, ROUNDS = 10_000, 7


def make_repo(root: Path) -> None:
    for d in range(FILES // 100):
        folder = root / f"pkg{d}"
        folder.mkdir(parents=True)
        for f in range(100):
            (folder / f"mod{f}.py").write_text(f"VALUE = {d * 100 + f}\n" * 20)
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    git = ["git", "-c", "user.email=b@b", "-c", "user.name=b", "-c", "gc.auto=0"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "bench"], cwd=root, check=True)


def timed(work) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        make_repo(root)
        checkpoints = Checkpoints(Path(tmp) / "session", root)
        first = timed(lambda: checkpoints.snapshot_tree("m0", "start"))
        unchanged, changed, restore = [], [], []
        for n in range(ROUNDS):  # a turn whose tools changed nothing: its start and end snapshots
            unchanged.append(
                timed(lambda n=n: checkpoints.snapshot_tree(f"u{n}", "start"))
                + timed(lambda n=n: checkpoints.snapshot_tree(f"u{n}", "end"))
            )
        for n in range(ROUNDS):  # a turn whose tools changed 10 files
            start = timed(lambda n=n: checkpoints.snapshot_tree(f"c{n}", "start"))
            for i in range(10):
                (root / f"pkg{i}" / "mod0.py").write_text(f"changed {n}\n")
            changed.append(start + timed(lambda n=n: checkpoints.snapshot_tree(f"c{n}", "end")))
        store = checkpoints.tree_store()
        assert store is not None
        entries = checkpoints.tree_entries()
        for n in range(ROUNDS):  # rewinding those 10 files and back
            before, after = entries[-2]["tree"], entries[-1]["tree"]
            paths = store.changed_paths(before, after)
            assert len(paths) == 10, paths
            restore.append(timed(lambda t=(after if n % 2 else before), p=paths: store.restore(t, p)))
        status = [
            timed(lambda: subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True))
            for _ in range(ROUNDS)
        ]
        print(f"checkpoints: {FILES}-file repository; a session's first snapshot {first:.0f} ms")
        print(
            f"checkpoints: for scale, one plain `git status` there: median {statistics.median(status):.1f} ms"
        )
        print(
            f"checkpoints: per turn (start + end snapshot), unchanged tree: median {statistics.median(unchanged):.1f} ms, "
            f"best {min(unchanged):.1f} ms"
            " (goal < 50)"
        )
        print(
            f"checkpoints: per turn (start + end snapshot), 10 changed files: median {statistics.median(changed):.1f} ms"
        )
        print(
            f"checkpoints: restoring those 10 files (a rewind's writes): median {statistics.median(restore):.1f} ms"
        )


if __name__ == "__main__":
    main()
