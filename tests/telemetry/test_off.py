"""Telemetry off costs nothing: a plain `yoke -p` imports none of OpenTelemetry, protobuf, gRPC or Yoke's
exporting modules (runs with or without the `otel` extra installed)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

PROBE = (
    "import sys\n"
    "from yoke.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print('OTEL:' + ','.join(sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'google.protobuf', 'grpc', 'yoke.telemetry.')))))\n"
)


def _loaded(env: dict[str, str], project) -> str:
    """The telemetry-related modules a `yoke -p hi` run has imported when it ends."""
    with ScriptedServer([{"content": "ok"}]) as srv:
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, "-p", "hi"],
            env={**env, **anthropic_env(srv)},
            cwd=project,
            capture_output=True,
            text=True,
            timeout=60,
        )
    line = [x for x in proc.stdout.splitlines() if x.startswith("OTEL:")]
    assert len(line) == 1, proc.stdout + proc.stderr
    return line[0][len("OTEL:") :]


def test_telemetry_off_imports_no_opentelemetry(base_env, project):
    assert _loaded(base_env, project) == ""


def test_on_without_an_exporter_imports_nothing_either(base_env, project):
    loaded = _loaded({**base_env, "CLAUDE_CODE_ENABLE_TELEMETRY": "1"}, project)
    assert loaded == "yoke.telemetry.attach,yoke.telemetry.config"


def test_without_the_extra_one_line_says_what_to_install(yoke, project, tmp_path):
    shadow = tmp_path / "shadow" / "opentelemetry"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")  # an `opentelemetry` without the SDK
    with ScriptedServer([{"content": "ok"}]) as srv:
        # the console exporter is the SDK's (`otlp` alone needs no SDK: see test_otel_export)
        env = {**anthropic_env(srv), "CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_METRICS_EXPORTER": "console"}
        env["PYTHONPATH"] = str(shadow.parent) + os.pathsep + os.environ.get("PYTHONPATH", "")
        run = yoke("-p", "hi", env=env)
    assert run.code == 0 and run.stdout.strip() == "ok"
    hint = [line for line in run.stderr.splitlines() if "yoke[otel]" in line]
    assert len(hint) == 1 and "pip install" in hint[0]


def test_otlp_exporters_need_no_sdk_and_import_none_of_it(base_env, project):
    """Every exporter `otlp` (over HTTP here): Yoke's own encoder sends it, so neither OpenTelemetry nor
    protobuf is imported. (The collector is unreachable: the run still ends normally.)"""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **base_env,
        "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_LOGS_EXPORTER": "otlp",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
    }
    loaded = _loaded(env, project).split(",")
    assert "yoke.telemetry.native" in loaded
    assert not [m for m in loaded if m.startswith(("opentelemetry", "google.protobuf", "grpc"))], loaded


def test_a_collector_that_never_answers_holds_the_exit_at_most_the_shutdown_bound(yoke, project):
    """A collector that accepts the connection and never answers: the run ends within the shutdown bound
    (CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS, 2 s by default), not the request's own 10 s."""
    import time

    with socket.socket() as silent, ScriptedServer([{"content": "ok"}]) as srv:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # the kernel completes connections; nobody reads or answers
        env = {
            **anthropic_env(srv),
            "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
            "OTEL_LOGS_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{silent.getsockname()[1]}",
            "CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS": "500",
        }
        start = time.monotonic()
        run = yoke("-p", "hi", env=env)
        elapsed = time.monotonic() - start
    assert run.code == 0 and run.stdout.strip() == "ok"
    assert elapsed < 8, elapsed  # 10 s if the request's own timeout held the exit
