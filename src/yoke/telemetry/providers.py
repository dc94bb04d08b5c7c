"""OpenTelemetry's providers and exporters for the configured signals. Imported only by the telemetry
thread, and only when telemetry is on: this is the one module that imports the SDK."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace.id_generator import IdGenerator

from yoke.telemetry.config import OtelConfig, SignalConfig

if TYPE_CHECKING:
    from opentelemetry._logs import Logger
    from opentelemetry.metrics import Meter
    from opentelemetry.trace import Tracer


class PresetIds(IdGenerator):
    """An id generator that hands out the ids the observer chose (so `traceparent` sent earlier matches)."""

    def __init__(self) -> None:
        self.trace_id = 0
        self.span_id = 0

    def generate_span_id(self) -> int:
        return self.span_id

    def generate_trace_id(self) -> int:
        return self.trace_id

    def is_trace_id_random(self) -> bool:
        return True  # the observer draws them from `os.urandom`


class Providers:
    def __init__(self, config: OtelConfig, resource_attrs: dict[str, Any]) -> None:
        self.resource = Resource.create(resource_attrs)
        self.meter: Meter | None = None
        self.logger: Logger | None = None
        self.tracer: Tracer | None = None
        self._shutdowns: list[Any] = []
        self.config = config
        if config.wants("metrics"):
            self._metrics(config.signals["metrics"])
        if config.wants("logs"):
            self._logs(config.signals["logs"])
        if config.wants("traces"):
            self._traces(config.signals["traces"])

    # ---- metrics --------------------------------------------------------------------------------------

    def _metrics(self, signal: SignalConfig) -> None:
        from opentelemetry.sdk.metrics import Counter, MeterProvider
        from opentelemetry.sdk.metrics.export import AggregationTemporality, PeriodicExportingMetricReader

        temporality = {
            Counter: AggregationTemporality.DELTA if self.config.delta else AggregationTemporality.CUMULATIVE
        }
        readers = []
        for name in signal.exporters:
            if name == "prometheus":
                readers.append(_prometheus_reader(self.config.prometheus_host, self.config.prometheus_port))
                continue
            exporter = _exporter("metrics", name, signal, temporality=temporality)
            readers.append(
                PeriodicExportingMetricReader(exporter, export_interval_millis=self.config.metric_interval_ms)
            )
        provider = MeterProvider(resource=self.resource, metric_readers=readers)
        self.meter = provider.get_meter("com.anthropic.claude_code", _version())
        self._shutdowns.append(provider)

    # ---- logs (events) --------------------------------------------------------------------------------

    def _logs(self, signal: SignalConfig) -> None:
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

        provider = LoggerProvider(resource=self.resource)
        for name in signal.exporters:
            provider.add_log_record_processor(
                BatchLogRecordProcessor(
                    _exporter("logs", name, signal), schedule_delay_millis=self.config.logs_interval_ms
                )
            )
        self.logger = provider.get_logger("com.anthropic.claude_code.events", _version())
        self._shutdowns.append(provider)

    # ---- traces ---------------------------------------------------------------------------------------

    def _traces(self, signal: SignalConfig) -> None:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        self.ids = PresetIds()
        provider = TracerProvider(resource=self.resource, id_generator=self.ids)
        for name in signal.exporters:
            provider.add_span_processor(
                BatchSpanProcessor(
                    _exporter("traces", name, signal), schedule_delay_millis=self.config.traces_interval_ms
                )
            )
        self.tracer = provider.get_tracer("com.anthropic.claude_code.tracing", _version())
        self._shutdowns.append(provider)

    def span(
        self,
        name: str,
        trace_id: int,
        span_id: int,
        parent_id: int,
        start: int,
        end: int,
        attrs: dict,
        error: str,
    ) -> None:
        from opentelemetry import trace
        from opentelemetry.trace import NonRecordingSpan, SpanContext, Status, StatusCode, TraceFlags

        context = None
        if parent_id:
            parent = SpanContext(
                trace_id, parent_id, is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED)
            )
            context = trace.set_span_in_context(NonRecordingSpan(parent))
        if self.tracer is None:  # traces are not among the configured signals
            return
        self.ids.trace_id, self.ids.span_id = trace_id, span_id
        span = self.tracer.start_span(name, context=context, start_time=start, attributes=attrs)
        if error:
            span.set_status(Status(StatusCode.ERROR, error))
        span.end(end_time=end)

    def shutdown(self) -> None:
        for provider in self._shutdowns:
            try:
                provider.shutdown()
            except Exception as exc:
                print(f"yoke: warning: telemetry export failed at exit: {exc}", file=sys.stderr)


def _version() -> str:
    from yoke import __version__

    return __version__


def _exporter(signal: str, name: str, config: SignalConfig, **options: Any) -> Any:
    if name == "console":
        return _console(signal, **options)
    if config.protocol == "grpc":
        from urllib.parse import urlparse

        parsed = urlparse(config.endpoint)
        insecure = parsed.scheme != "https"
        headers = tuple((k.lower(), v) for k, v in config.headers.items())
        if signal == "metrics":
            from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter

            return OTLPMetricExporter(
                endpoint=config.endpoint,
                headers=headers,
                insecure=insecure,
                preferred_temporality=options.get("temporality"),
            )
        if signal == "logs":
            from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter

            return OTLPLogExporter(endpoint=config.endpoint, headers=headers, insecure=insecure)
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter(endpoint=config.endpoint, headers=headers, insecure=insecure)
    from yoke.telemetry.otlp_http import http_exporter

    return http_exporter(signal, config.endpoint, config.headers, config.protocol == "http/json", **options)


def _console(signal: str, **options: Any) -> Any:
    """Console exporters write to stderr: stdout belongs to the run's output (json, stream-json)."""
    if signal == "metrics":
        from opentelemetry.sdk.metrics.export import ConsoleMetricExporter

        return ConsoleMetricExporter(out=sys.stderr, preferred_temporality=options.get("temporality"))
    if signal == "logs":
        from opentelemetry.sdk._logs.export import ConsoleLogRecordExporter

        return ConsoleLogRecordExporter(out=sys.stderr)
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    return ConsoleSpanExporter(out=sys.stderr)


def _prometheus_reader(host: str, port: int) -> Any:
    """A pull exporter: the metrics are served at http://localhost:9464/metrics (OTEL_EXPORTER_PROMETHEUS_HOST
    and OTEL_EXPORTER_PROMETHEUS_PORT change that) for as long as the session runs."""
    try:
        from opentelemetry.exporter.prometheus import PrometheusMetricReader
        from prometheus_client import start_http_server
    except ImportError:
        raise RuntimeError(
            "OTEL_METRICS_EXPORTER=prometheus needs the Prometheus exporter: "
            "pip install opentelemetry-exporter-prometheus"
        ) from None
    start_http_server(port, addr=host)
    return PrometheusMetricReader()
