"""Telemetry off costs nothing: a plain `yoke -p` imports none of OpenTelemetry, protobuf, gRPC or Yoke's
exporting modules (runs with or without the `otel` extra installed)."""

from __future__ import annotations

import os
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
