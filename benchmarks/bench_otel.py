"""The cost of OpenTelemetry export. Run: `make bench` (or `python benchmarks/bench_otel.py`).

Prints the median of a one-turn `yoke -p` against the local scripted server, with telemetry off and with
metrics, events and traces exported to local receivers over OTLP/HTTP (protobuf; Yoke's own SDK-free
exporter) and over OTLP/gRPC (the OpenTelemetry SDK's): the time until the result is on stdout (the turn's
critical path) and the whole process's wall time (which includes the final export at exit), which is what a
user timing `yoke -p` sees. Goal: under 5% added to the whole process.
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
from typing import Any

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


def one_turn(env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Seconds until the result line is on stdout, the process's wall seconds and its CPU seconds (user and
    system: less sensitive than wall time to other work on the machine)."""
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
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"benchmark run failed:\n{proc.stderr.read().decode()}")
    return result, wall, usage.ru_utime + usage.ru_stime


def _grpc_sink() -> tuple[Any, int]:
    """A gRPC server answering every OTLP Export with an empty (valid) response."""
    from concurrent import futures

    import grpc

    class Any_(grpc.GenericRpcHandler):
        def service(self, details: Any) -> Any:
            return grpc.unary_unary_rpc_method_handler(lambda request, context: b"")

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((Any_(),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, port


def main() -> None:
    try:
        import opentelemetry.sdk  # noqa: F401
    except ImportError:
        print("telemetry: skipped (pip install 'yoke[otel]')")
        return
    sink = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    grpc_server, grpc_port = _grpc_sink()
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
        }
        modes = {
            "off": env,
            "http/protobuf": {
                **on,
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
                "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_address[1]}",
            },
            "grpc": {
                **on,
                "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
                "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{grpc_port}",
            },
        }
        for mode_env in modes.values():
            one_turn(mode_env, root)  # warm the bytecode caches
        runs: dict[str, list[tuple[float, float, float]]] = {mode: [] for mode in modes}
        names = list(modes)
        for i in range(REPEATS):  # interleaved and rotated, so load and order fall on every mode alike
            for mode in names[i % len(names) :] + names[: i % len(names)]:
                runs[mode].append(one_turn(modes[mode], root))
        result = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
        wall = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
        cpu = {k: statistics.median(r[2] for r in v) for k, v in runs.items()}
        for mode in names[1:]:
            print(
                f"telemetry one turn ({mode}, median of {REPEATS}): result on stdout after "
                f"{result['off'] * 1000:.0f} ms off, {result[mode] * 1000:.0f} ms on "
                f"({(result[mode] / result['off'] - 1) * 100:+.1f}%); whole process "
                f"{wall['off'] * 1000:.0f} ms off, {wall[mode] * 1000:.0f} ms on "
                f"({(wall[mode] / wall['off'] - 1) * 100:+.1f}%, goal < 5%); CPU {cpu['off'] * 1000:.0f} ms off, "
                f"{cpu[mode] * 1000:.0f} ms on ({(cpu[mode] / cpu['off'] - 1) * 100:+.1f}%)"
            )
    sink.shutdown()
    grpc_server.stop(grace=None)


if __name__ == "__main__":
    main()
