"""OTLP over HTTP from the SDK's data, for the runs that need the SDK anyway (a `console` or `prometheus`
exporter beside `otlp`; otherwise telemetry/native.py does it all without the SDK).

The request is built by the OTLP exporter package's protobuf encoders and sent by native.post (the SDK's HTTP
exporters import `requests`, a tenth of a second more at exit). JSON bodies follow the protobuf JSON mapping,
except that trace and span ids are hex strings (the OTLP specification's one rule)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from google.protobuf import json_format


def _hex_ids(value: Any) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(item, str):
                import base64

                out[key] = base64.b64decode(item).hex()
            else:
                out[key] = _hex_ids(item)
        return out
    if isinstance(value, list):
        return [_hex_ids(item) for item in value]
    return value


def post(endpoint: str, headers: dict[str, str], message: Any, as_json: bool) -> bool:
    from yoke.telemetry.native import post as send

    if as_json:
        body = json.dumps(_hex_ids(json_format.MessageToDict(message))).encode()
    else:
        body = message.SerializeToString()
    return send(endpoint, headers, body, as_json)


def http_exporter(signal: str, endpoint: str, headers: dict[str, str], as_json: bool, **options: Any) -> Any:
    def send(message: Any) -> bool:
        return post(endpoint, headers, message, as_json)

    if signal == "metrics":
        return _metric_exporter(send, options.get("temporality"))
    if signal == "logs":
        return _log_exporter(send)
    return _span_exporter(send)


def _metric_exporter(send: Any, temporality: Any) -> Any:
    from opentelemetry.exporter.otlp.proto.common._internal.metrics_encoder import encode_metrics
    from opentelemetry.sdk.metrics.export import MetricExporter, MetricExportResult

    class HttpMetricExporter(MetricExporter):
        def __init__(self) -> None:
            super().__init__(preferred_temporality=temporality)

        def export(self, metrics_data: Any, timeout_millis: float = 10_000, **kwargs: Any) -> Any:
            ok = send(encode_metrics(metrics_data))
            return MetricExportResult.SUCCESS if ok else MetricExportResult.FAILURE

        def force_flush(self, timeout_millis: float = 10_000) -> bool:
            return True

        def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
            pass

    return HttpMetricExporter()


def _log_exporter(send: Any) -> Any:
    from opentelemetry.exporter.otlp.proto.common._internal._log_encoder import encode_logs
    from opentelemetry.sdk._logs.export import LogRecordExporter, LogRecordExportResult

    class HttpLogExporter(LogRecordExporter):
        def export(self, batch: Sequence[Any]) -> Any:
            ok = send(encode_logs(batch))
            return LogRecordExportResult.SUCCESS if ok else LogRecordExportResult.FAILURE

        def force_flush(self, timeout_millis: int = 30_000) -> bool:
            return True

        def shutdown(self) -> None:
            pass

    return HttpLogExporter()


def _span_exporter(send: Any) -> Any:
    from opentelemetry.exporter.otlp.proto.common._internal.trace_encoder import encode_spans
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class HttpSpanExporter(SpanExporter):
        def export(self, spans: Sequence[Any]) -> Any:
            ok = send(encode_spans(spans))
            return SpanExportResult.SUCCESS if ok else SpanExportResult.FAILURE

    return HttpSpanExporter()
