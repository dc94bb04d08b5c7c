"""The exporters, endpoints, headers and intervals, read from Claude Code's variables and settings.

Variables (the OpenTelemetry SDK's own names, as Claude Code reads them): `OTEL_{METRICS,LOGS,TRACES}_EXPORTER`
(comma-separated: otlp, console, none; prometheus for metrics), `OTEL_EXPORTER_OTLP_PROTOCOL` and the per-signal
`OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL` (grpc, http/json, http/protobuf), `OTEL_EXPORTER_OTLP_ENDPOINT` and the
per-signal endpoints, `OTEL_EXPORTER_OTLP_HEADERS` (and per signal), `OTEL_METRIC_EXPORT_INTERVAL` (ms, 60000),
`OTEL_LOGS_EXPORT_INTERVAL` (ms, 5000), `OTEL_LOG_USER_PROMPTS`, `OTEL_RESOURCE_ATTRIBUTES`. The setting
`otelHeadersHelper` names a command whose standard output is a JSON object of headers, merged over the
variables' headers.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from yoke import jsonsafe
from yoke.telemetry import truthy

SIGNALS = ("metrics", "logs", "traces")
PROTOCOLS = ("grpc", "http/json", "http/protobuf")
EXPORTERS = {"metrics": ("otlp", "console", "prometheus", "none"), "logs": ("otlp", "console", "none")}
EXPORTERS["traces"] = EXPORTERS["logs"]
HELPER_TIMEOUT_S = 10.0


class ConfigError(Exception):
    """A variable or setting with a value Yoke cannot use; the text says which and what to write."""


def _split(value: str | None) -> list[str]:
    return [part.strip().lower() for part in (value or "").split(",") if part.strip()]


def parse_pairs(value: str | None) -> dict[str, str]:
    """`k1=v1,k2=v2` (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES), values URL-decoded."""
    pairs: dict[str, str] = {}
    for item in (value or "").split(","):
        if "=" not in item:
            continue
        key, _, val = item.partition("=")
        if key.strip():
            pairs[unquote(key.strip())] = unquote(val.strip())
    return pairs


class SignalConfig:
    __slots__ = ("signal", "exporters", "protocol", "endpoint", "headers")

    def __init__(
        self, signal: str, exporters: list[str], protocol: str, endpoint: str, headers: dict[str, str]
    ):
        self.signal = signal
        self.exporters = exporters
        self.protocol = protocol
        self.endpoint = endpoint
        self.headers = headers


class OtelConfig:
    def __init__(self, env: Mapping[str, str]) -> None:
        self.signals: dict[str, SignalConfig] = {}
        for signal in SIGNALS:
            exporters = _split(env.get(f"OTEL_{signal.upper()}_EXPORTER"))
            unknown = [e for e in exporters if e not in EXPORTERS[signal]]
            if unknown:
                raise ConfigError(
                    f"OTEL_{signal.upper()}_EXPORTER={unknown[0]} is not known; use one of "
                    + ", ".join(EXPORTERS[signal])
                )
            exporters = [e for e in exporters if e != "none"]
            key = f"OTEL_EXPORTER_OTLP_{signal.upper()}_"
            protocol = (env.get(key + "PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL") or "grpc").strip()
            if protocol not in PROTOCOLS:
                raise ConfigError(
                    f"OTLP protocol {protocol!r} is not known; use one of {', '.join(PROTOCOLS)}"
                )
            endpoint = (env.get(key + "ENDPOINT") or "").strip()
            if not endpoint:
                base = (env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or "").strip()
                if protocol == "grpc":
                    endpoint = base or "http://localhost:4317"
                else:
                    endpoint = (base or "http://localhost:4318").rstrip("/") + f"/v1/{signal}"
            headers = parse_pairs(env.get("OTEL_EXPORTER_OTLP_HEADERS"))
            headers.update(parse_pairs(env.get(key + "HEADERS")))
            self.signals[signal] = SignalConfig(signal, exporters, protocol, endpoint, headers)
        self.metric_interval_ms = _millis(env, "OTEL_METRIC_EXPORT_INTERVAL", 60000)
        self.logs_interval_ms = _millis(env, "OTEL_LOGS_EXPORT_INTERVAL", 5000)
        self.traces_interval_ms = _millis(env, "OTEL_BSP_SCHEDULE_DELAY", 5000)
        self.log_user_prompts = truthy(env.get("OTEL_LOG_USER_PROMPTS"))
        self.resource_attributes = parse_pairs(env.get("OTEL_RESOURCE_ATTRIBUTES"))
        self.delta = (
            env.get("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE") or "delta"
        ).lower() != "cumulative"
        self.prometheus_host = env.get("OTEL_EXPORTER_PROMETHEUS_HOST") or "localhost"
        self.prometheus_port = _millis(env, "OTEL_EXPORTER_PROMETHEUS_PORT", 9464, "a port")
        self.account_uuid = env.get("CLAUDE_CODE_ACCOUNT_UUID") or ""
        self.organization_id = env.get("CLAUDE_CODE_ORGANIZATION_UUID") or ""
        self.user_email = env.get("CLAUDE_CODE_USER_EMAIL") or ""

    def add_helper_headers(self, env: Mapping[str, str], settings: Mapping[str, Any], cwd: str) -> None:
        """Run the `otelHeadersHelper` once and add its headers to every OTLP exporter's."""
        command = settings.get("otelHeadersHelper")
        wanted = [signal for signal in self.signals.values() if "otlp" in signal.exporters]
        if command and wanted:
            headers = run_headers_helper(str(command), env, cwd)
            for signal in wanted:
                signal.headers.update(headers)

    def wants(self, signal: str) -> bool:
        return bool(self.signals[signal].exporters)

    @property
    def any(self) -> bool:
        return any(self.wants(signal) for signal in SIGNALS)


def _millis(env: Mapping[str, str], name: str, default: int, what: str = "milliseconds") -> int:
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} must be a whole number ({what})") from None
    if value <= 0:
        raise ConfigError(f"{name}={raw!r} must be positive ({what})")
    return value


def run_headers_helper(command: str, env: Mapping[str, str], cwd: str) -> dict[str, str]:
    """Run the `otelHeadersHelper` command (a shell command line, as Claude Code runs it) and read the JSON
    object of headers it prints. Bounded: a helper that hangs is stopped after HELPER_TIMEOUT_S."""
    from yoke import spawn

    try:
        # the user's own settings' helper, run as configured (no gate decision names it)
        done = spawn.run(
            spawn.shell_argv(command),
            confine=None,
            cwd=cwd,
            env=dict(env),
            text=True,
            timeout=HELPER_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise ConfigError(f"otelHeadersHelper did not finish within {HELPER_TIMEOUT_S:g} s") from None
    except OSError as exc:
        raise ConfigError(f"otelHeadersHelper could not run: {exc}") from None
    if done.returncode != 0:
        detail = (done.stderr or "").strip().splitlines()
        raise ConfigError(
            f"otelHeadersHelper exited with status {done.returncode}" + (f": {detail[-1]}" if detail else "")
        )
    try:
        headers = jsonsafe.loads(done.stdout)
    except ValueError:
        raise ConfigError("otelHeadersHelper must print a JSON object of header names to values") from None
    if not isinstance(headers, dict):
        raise ConfigError("otelHeadersHelper must print a JSON object of header names to values")
    return {str(k): str(v) for k, v in headers.items()}
