"""MCP start-up cost. Run: `make bench` (or `python benchmarks/bench_mcp.py`).

Prints the median wall time of a one-turn `yoke -p` against the local scripted server
- with no MCP server configured (the `mcp` package is never imported: this must not change), and
- with three stdio MCP servers configured (all start concurrently; the first request waits for them), plus
  the time from launch to the model's first request.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from yoke.testing import ScriptedServer

REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "5"))
SERVER = Path(__file__).resolve().parent.parent / "tests" / "mcp_support" / "mcp_test_server.py"


def one_turn(env: dict[str, str], cwd: Path, extra: list[str]) -> tuple[float, float]:
    """Wall seconds of the run and seconds from launch to the model's first request."""
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        run_env = {**env, "ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-bench"}
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "yoke", "-p", "hi", *extra],
            env=run_env,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        first = None
        while proc.poll() is None:
            if first is None and srv.requests:
                first = time.perf_counter() - start
            time.sleep(0.002)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"benchmark run failed:\n{proc.stderr.read().decode()}")
        first = first if first is not None else wall
    return wall, first


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / "home"
        home.mkdir()
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_", "CLAUDE_"))
        }
        env.update(
            {"HOME": str(home), "YOKE_HOME": str(home / ".yoke"), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
        )
        servers = {f"s{i}": {"command": sys.executable, "args": [str(SERVER), "stdio"]} for i in range(3)}
        config = root / "three.json"
        config.write_text(json.dumps({"mcpServers": servers}))
        for label, extra in (("no MCP", []), ("three stdio MCP servers", ["--mcp-config", str(config)])):
            runs = [one_turn(env, root, extra) for _ in range(REPEATS)]
            wall = statistics.median(r[0] for r in runs)
            first = statistics.median(r[1] for r in runs)
            print(f"one turn, {label}: {wall * 1000:.0f} ms wall, first request after {first * 1000:.0f} ms")


if __name__ == "__main__":
    main()
