"""The cost of OpenTelemetry export. Run: `make bench` (or `python benchmarks/bench_otel.py`).

Prints the median of a one-turn `yoke -p` against the local scripted server, with telemetry off and with
metrics, events and traces exported over OTLP/HTTP (protobuf) to a local receiver: the time until the result
is on stdout (the turn's critical path) and the process's wall time (which includes the final flush at exit).
Goal: under 5% added to the critical path; the SDK's import and all export run in a thread of their own.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from yoke.testing import ScriptedServer

REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "7"))


class _Sink(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def one_turn(env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Seconds until the result line is on stdout, and the process's wall seconds."""
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        run_env = {**env, "ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-bench"}
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "yoke", "-p", "hi", "--output-format", "json"],
            env=run_env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None
        proc.stdout.readline()
        result = time.perf_counter() - start
        proc.wait()
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"benchmark run failed:\n{proc.stderr.read().decode()}")
    return result, wall


def main() -> None:
    try:
        import opentelemetry.sdk  # noqa: F401
    except ImportError:
        print("telemetry: skipped (pip install 'yoke[otel]')")
        return
    sink = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / "home"
        home.mkdir()
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_", "CLAUDE_", "OTEL_"))
        }
        env.update(
            {"HOME": str(home), "YOKE_HOME": str(home / ".yoke"), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
        )
        on = {
            **env,
            "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
            "OTEL_METRICS_EXPORTER": "otlp",
            "OTEL_LOGS_EXPORTER": "otlp",
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_address[1]}",
        }
        one_turn(env, root)  # warm the bytecode caches
        one_turn(on, root)
        runs: dict[str, list[tuple[float, float]]] = {"off": [], "on": []}
        for _ in range(REPEATS):  # interleaved, so load on the machine falls on both alike
            runs["off"].append(one_turn(env, root))
            runs["on"].append(one_turn(on, root))
        result = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
        wall = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
        print(
            f"telemetry one turn: result after {result['off'] * 1000:.0f} ms off, {result['on'] * 1000:.0f} ms on "
            f"({(result['on'] / result['off'] - 1) * 100:+.1f}%, goal < 5%); process wall "
            f"{wall['off'] * 1000:.0f} ms off, {wall['on'] * 1000:.0f} ms on ({(wall['on'] / wall['off'] - 1) * 100:+.1f}%)"
        )
    sink.shutdown()


if __name__ == "__main__":
    main()
