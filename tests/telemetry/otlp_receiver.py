"""A real OTLP/HTTP receiver for tests: decodes protobuf and JSON bodies with opentelemetry-proto.

`OtlpReceiver()` listens on 127.0.0.1 (a thread); `metrics()`, `events()` and `spans()` flatten what arrived
into plain dicts: a metric point with its name, unit and attributes; a log record with its attributes and body;
a span with its name, ids, parent and attributes. Headers of every request are kept (`requests`).
"""

from __future__ import annotations

import base64
import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

KINDS = {
    "/v1/metrics": ExportMetricsServiceRequest,
    "/v1/logs": ExportLogsServiceRequest,
    "/v1/traces": ExportTraceServiceRequest,
}


def hex_ids(value: Any) -> Any:
    """The protobuf JSON mapping writes ids in base64; OTLP/JSON (and these tests) use hex."""
    if isinstance(value, dict):
        return {
            k: base64.b64decode(v).hex() if k in ("traceId", "spanId", "parentSpanId") and v else hex_ids(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [hex_ids(v) for v in value]
    return value


def _value(v: dict[str, Any]) -> Any:
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        return int(v["intValue"])
    if "doubleValue" in v:
        return float(v["doubleValue"])
    if "boolValue" in v:
        return v["boolValue"]
    if "arrayValue" in v:
        return [_value(x) for x in v["arrayValue"].get("values", [])]
    return v


def attrs(items: list[dict[str, Any]] | None) -> dict[str, Any]:
    return {a["key"]: _value(a.get("value", {})) for a in items or []}


class OtlpReceiver:
    def __init__(self) -> None:
        self.bodies: dict[str, list[dict[str, Any]]] = {path: [] for path in KINDS}
        self.requests: list[dict[str, Any]] = []  # {path, content_type, headers}
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                if (self.headers.get("content-encoding") or "") == "gzip":
                    raw = gzip.decompress(raw)
                kind = KINDS.get(self.path)
                ctype = self.headers.get("content-type") or ""
                if kind is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                message = kind()
                if "json" in ctype:
                    decoded = json.loads(raw)
                else:
                    message.ParseFromString(raw)
                    decoded = hex_ids(json_format.MessageToDict(message))
                with receiver._lock:
                    receiver.bodies[self.path].append(decoded)
                    receiver.requests.append(
                        {"path": self.path, "content_type": ctype, "headers": dict(self.headers.items())}
                    )
                self.send_response(200)
                self.send_header(
                    "content-type", "application/x-protobuf" if "json" not in ctype else "application/json"
                )
                body = b"" if "json" not in ctype else b"{}"
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add(self, path: str, message: Any, headers: dict[str, str], content_type: str) -> None:
        with self._lock:
            self.bodies[path].append(hex_ids(json_format.MessageToDict(message)))
            self.requests.append({"path": path, "content_type": content_type, "headers": headers})

    def metrics(self) -> list[dict[str, Any]]:
        """Every data point: {name, unit, kind, value, attributes, resource}."""
        points = []
        for body in self.bodies["/v1/metrics"]:
            for rm in body.get("resourceMetrics", []):
                resource = attrs(rm.get("resource", {}).get("attributes"))
                for sm in rm.get("scopeMetrics", []):
                    for metric in sm.get("metrics", []):
                        for kind in ("sum", "gauge", "histogram"):
                            for p in metric.get(kind, {}).get("dataPoints", []):
                                value = p.get("asDouble", p.get("asInt", p.get("sum")))
                                points.append(
                                    {
                                        "name": metric["name"],
                                        "unit": metric.get("unit", ""),
                                        "description": metric.get("description", ""),
                                        "kind": kind,
                                        "value": float(value) if value is not None else None,
                                        "attributes": attrs(p.get("attributes")),
                                        "resource": resource,
                                    }
                                )
        return points

    def events(self) -> list[dict[str, Any]]:
        """Every log record: {body, attributes, resource, scope}."""
        out = []
        for body in self.bodies["/v1/logs"]:
            for rl in body.get("resourceLogs", []):
                resource = attrs(rl.get("resource", {}).get("attributes"))
                for sl in rl.get("scopeLogs", []):
                    for rec in sl.get("logRecords", []):
                        out.append(
                            {
                                "body": _value(rec.get("body", {})),
                                "attributes": attrs(rec.get("attributes")),
                                "resource": resource,
                                "scope": sl.get("scope", {}).get("name", ""),
                            }
                        )
        return out

    def spans(self) -> list[dict[str, Any]]:
        out = []
        for body in self.bodies["/v1/traces"]:
            for rs in body.get("resourceSpans", []):
                for ss in rs.get("scopeSpans", []):
                    for span in ss.get("spans", []):
                        out.append(
                            {
                                "name": span["name"],
                                "trace_id": span.get("traceId", ""),
                                "span_id": span.get("spanId", ""),
                                "parent": span.get("parentSpanId", ""),
                                "attributes": attrs(span.get("attributes")),
                                "status": span.get("status", {}),
                                "events": [e.get("name") for e in span.get("events", [])],
                            }
                        )
        return out

    def wait_for(self, predicate: Any, timeout: float = 15.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self):
                return True
            time.sleep(0.05)
        return predicate(self)


class GrpcOtlpReceiver(OtlpReceiver):
    """The same receiver over OTLP/gRPC (the collector's three services), on 127.0.0.1."""

    def __init__(self) -> None:
        super().__init__()
        from concurrent import futures

        import grpc
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
        from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2, metrics_service_pb2_grpc
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

        receiver = self

        def servicer(base: Any, path: str, reply: Any) -> Any:
            class Servicer(base):
                def Export(self, request: Any, context: Any) -> Any:  # noqa: N802
                    headers = {k: v for k, v in context.invocation_metadata()}
                    receiver.add(path, request, headers, "application/grpc")
                    return reply()

            return Servicer()

        self._grpc = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(
            servicer(
                metrics_service_pb2_grpc.MetricsServiceServicer,
                "/v1/metrics",
                metrics_service_pb2.ExportMetricsServiceResponse,
            ),
            self._grpc,
        )
        logs_service_pb2_grpc.add_LogsServiceServicer_to_server(
            servicer(
                logs_service_pb2_grpc.LogsServiceServicer,
                "/v1/logs",
                logs_service_pb2.ExportLogsServiceResponse,
            ),
            self._grpc,
        )
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(
            servicer(
                trace_service_pb2_grpc.TraceServiceServicer,
                "/v1/traces",
                trace_service_pb2.ExportTraceServiceResponse,
            ),
            self._grpc,
        )
        port = self._grpc.add_insecure_port("127.0.0.1:0")
        self.url = f"http://127.0.0.1:{port}"

    def __enter__(self) -> GrpcOtlpReceiver:
        self._grpc.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._grpc.stop(grace=None)
