"""Language servers' cost. Run: `make bench` (or `python benchmarks/bench_lsp.py`).

Prints, for basedpyright (Python) and typescript-language-server (TS), each where installed (the dev extra;
`make test` puts the npm one in .venv/node):
- the wall time an edit gains with diagnostics on (noting what the server says before, sending the change,
  waiting for its report), median and p95 over alternating breaking and fixing edits of a warm server, and
  how many of them would pass the default 800 ms bound;
- the median for edits that change no problem, under the default 800 ms bound (a server that reports
  only changes, as typescript-language-server does, stays silent then, so such an edit waits the bound);
- the memory (RSS) of one running server: its process and every one below it, after those edits;
and the median wall time of a one-turn `yoke -p` with no edit, with the servers on PATH and without: no
server starts in a turn that touches no file, so this must not change.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from yoke.lsp.config import builtin_servers
from yoke.lsp.manager import DiagnosticsSettings, LspManager
from yoke.testing import ScriptedServer

ROOT = Path(__file__).resolve().parent.parent
PATHS = f"{Path(sys.executable).parent}:{ROOT / '.venv' / 'node' / 'node_modules' / '.bin'}"
EDITS = int(os.environ.get("YOKE_BENCH_LSP_EDITS", "20"))
REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "5"))
CASES = {
    "basedpyright": ("app.py", "def f(x: int) -> int:\n    return x\n\ny: int = f(1)\n", "y: int", "y: str"),
    "typescript": ("app.ts", "function f(x: number): number {\n  return x;\n}\nconst y: number = f(1);\n",
                   "const y: number", "const y: string"),
}  # fmt: skip


def tree_rss_kib(root: int) -> int:
    """The RSS of `root` and every process below it (a sandboxed server runs in a session of its own)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(
                    Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1]
                )
            except (OSError, IndexError, ValueError):
                continue
    tree, grew = {root}, True
    while grew:
        below = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= below
        grew = bool(below)
    total = 0
    for pid in tree:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


async def edits(name: str, sandboxed: bool) -> None:
    env = {**os.environ, "PATH": f"{PATHS}:{os.environ.get('PATH', '')}"}
    spec = next((s for s in builtin_servers(env) if s.name == name), None)
    if spec is None:
        print(f"lsp {name}: not installed, skipped")
        return
    file_name, text, good, bad = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / file_name
        path.write_text(text)
        confine = None
        if sandboxed:
            from yoke.session.language_servers import server_sandbox

            confine = server_sandbox(None, root, [root], Path.home(), root / ".lsp", [])
        manager = LspManager([spec], [root], env, DiagnosticsSettings(wait_ms=20_000), None, confine)
        try:
            await manager.before_edit(path)  # start and first analysis: not what an edit costs
            times, errors = [], 0
            for i in range(EDITS + 2):
                started = time.perf_counter()
                await manager.before_edit(path)
                path.write_text(text.replace(good, bad) if i % 2 == 0 else text)
                report = await manager.after_edit(path)
                elapsed = time.perf_counter() - started
                if i >= 2:  # two warm-up edits
                    times.append(elapsed)
                errors += bool(report and report.new)
            clean = []  # edits that leave the file as clean as it was: some servers then say nothing
            manager.diagnostics.wait_ms = 800  # the default bound: such an edit may wait all of it
            for i in range(5):
                started = time.perf_counter()
                await manager.before_edit(path)
                path.write_text(text + ("\n" * (i + 1)))
                await manager.after_edit(path)
                clean.append(time.perf_counter() - started)
            server = manager.servers()[0]
            rss = tree_rss_kib(server.proc.pid) if server.proc is not None else 0
        finally:
            await manager.close()
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    within = sum(1 for t in times if t <= 0.8)
    print(
        f"lsp {name}{' (in the sandbox)' if sandboxed else ''}: added per edit median {statistics.median(times) * 1000:.0f} ms, "
        f"p95 {p95 * 1000:.0f} ms over {len(times)} edits ({within} within the 800 ms default; "
        f"{errors} of {EDITS + 2} reported a new error); an edit that changes no problem: median "
        f"{statistics.median(clean) * 1000:.0f} ms; server RSS {rss / 1024:.0f} MiB"
    )


def one_turn(env: dict[str, str], cwd: Path) -> float:
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        run_env = {**env, "ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-bench"}
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "yoke", "-p", "hi"], env=run_env, cwd=cwd, capture_output=True
        )
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"benchmark run failed:\n{proc.stderr.decode()}")
    return wall


def imported(env: dict[str, str], cwd: Path) -> set[str]:
    """The modules a one-turn `yoke -p` imports (a figure the machine's load does not move)."""
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        run_env = {**env, "ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-bench"}
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "yoke", "-p", "hi"],
            env=run_env,
            cwd=cwd,
            capture_output=True,
            text=True,
        )
    return {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.count("|") == 2}


def turns() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "home").mkdir()
        (root / "p").mkdir()
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_", "CLAUDE_"))
        }
        base.update(HOME=str(root / "home"), YOKE_HOME=str(root / "home" / ".yoke"))
        without = {**base, "PATH": "/usr/bin:/bin"}
        with_servers = {**base, "PATH": f"{PATHS}:/usr/bin:/bin"}
        one_turn(without, root / "p")  # warm the bytecode cache
        a_runs, b_runs = [], []
        for _ in range(REPEATS):  # interleaved: a machine's drift weighs on both alike
            a_runs.append(one_turn(without, root / "p"))
            b_runs.append(one_turn(with_servers, root / "p"))
        a, b = statistics.median(a_runs), statistics.median(b_runs)
        plain, served = imported(without, root / "p"), imported(with_servers, root / "p")
    print(
        f"lsp turn with no edit: median {a * 1000:.0f} ms without servers on PATH, "
        f"{b * 1000:.0f} ms with them ({(b - a) * 1000:+.0f} ms; none starts); modules imported: "
        f"{len(plain)} and {len(served)} ({', '.join(sorted(served - plain)) or 'the same'})"
    )


def main() -> None:
    import shutil

    for name in CASES:
        asyncio.run(edits(name, sandboxed=False))
        if sys.platform.startswith("linux") and shutil.which("bwrap"):
            asyncio.run(edits(name, sandboxed=True))
    turns()


if __name__ == "__main__":
    main()
