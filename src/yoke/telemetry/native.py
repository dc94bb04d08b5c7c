"""The SDK-free exporting side, used when every chosen exporter is `otlp` over HTTP (`http/protobuf` or
`http/json`): counters summed in memory, events and spans batched, each signal sent on its own interval
and at close. Runs on the telemetry thread only; imports nothing beyond the standard library."""

from __future__ import annotations

import threading
import time
from typing import Any

from yoke.telemetry import otlp_wire as wire
from yoke.telemetry.config import OtelConfig

TIMEOUT_S = 10.0  # one request's bound while the session runs; the exit's bound is the worker's join


class NativeExport:
    def __init__(
        self, config: OtelConfig, common: dict[str, Any], resource: dict[str, Any], started: float
    ) -> None:
        from yoke import __version__
        from yoke.telemetry.worker import (
            DESCRIPTIONS,
            EVENTS_SCOPE,
            METER_NAME,
            TRACER_NAME,
            UNITS,
            intervals_s,
        )

        self.config = config
        self.common = common
        self.resource = resource
        self.units, self.descriptions = UNITS, DESCRIPTIONS
        self.scopes = {
            "metrics": {"name": METER_NAME, "version": __version__},
            "logs": {"name": EVENTS_SCOPE, "version": __version__},
            "traces": {"name": TRACER_NAME, "version": __version__},
        }
        self.intervals = intervals_s(config)
        self.due = {
            signal: started + self.intervals[signal] for signal in self.intervals if config.wants(signal)
        }
        # the session's start (`started` is its monotonic time): where cumulative sums and the first delta begin
        self.started_ns = self.last_ns = time.time_ns() - int((time.monotonic() - started) * 1e9)
        self.sums: dict[tuple, list] = {}  # (name, attributes) -> [value, attributes]
        self.batches: dict[str, list] = {"logs": [], "traces": []}

    def seconds_to_next(self) -> float:
        return max(0.0, min(self.due.values(), default=60.0) - time.monotonic())

    def add(self, item: tuple) -> None:
        kind = item[0]
        if kind == "metric" and "metrics" in self.due:
            _, name, value, attrs = item
            merged = {**self.common, **attrs}
            entry = self.sums.setdefault((name, tuple(sorted(merged.items(), key=str))), [0, merged])
            entry[0] += value
        elif kind == "log" and "logs" in self.due:
            _, name, attrs, when = item
            self.batches["logs"].append(
                {
                    "timeUnixNano": str(when),
                    "observedTimeUnixNano": str(when),
                    "body": {"stringValue": f"claude_code.{name}"},
                    "attributes": wire.attributes({**self.common, **attrs}),
                    "eventName": f"claude_code.{name}",
                }
            )
        elif kind == "span" and "traces" in self.due:
            self.batches["traces"].append(self._span(item))

    def _span(self, item: tuple) -> dict[str, Any]:
        _, name, trace_id, span_id, parent_id, start, end, attrs, error = item
        span: dict[str, Any] = {
            "traceId": f"{trace_id:032x}",
            "spanId": f"{span_id:016x}",
            "name": name,
            "kind": wire.SPAN_KIND_INTERNAL,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end),
            "attributes": wire.attributes({**self.common, **attrs}),
            "status": {"message": error, "code": wire.STATUS_ERROR} if error else {},
            "flags": wire.HAS_IS_REMOTE,
        }
        if parent_id:
            span["parentSpanId"] = f"{parent_id:016x}"
        return span

    def flush(self, final: bool) -> None:
        """Send each signal whose interval is up (every signal when `final`)."""
        now = time.monotonic()
        ready = []
        for signal in list(self.due):
            if final or now >= self.due[signal]:
                self.due[signal] = now + self.intervals[signal]
                items = self._metrics() if signal == "metrics" else self.batches[signal]
                self.batches[signal] = []
                if items:
                    ready.append((signal, items))
        # the signals' requests go out side by side: at exit the wait is one round trip, not three
        senders = [threading.Thread(target=self._send, args=pair, daemon=True) for pair in ready[1:]]
        for sender in senders:
            sender.start()
        if ready:
            self._send(*ready[0])
        for sender in senders:
            sender.join()

    def _metrics(self) -> list[dict[str, Any]]:
        now_ns = time.time_ns()
        by_name: dict[str, list] = {}
        for (name, _), (total, attrs) in self.sums.items():
            point = {
                "startTimeUnixNano": str(self.last_ns if self.config.delta else self.started_ns),
                "timeUnixNano": str(now_ns),
                "attributes": wire.attributes(attrs),
            }
            if isinstance(total, int):
                point["asInt"] = str(total)
            else:
                point["asDouble"] = total
            by_name.setdefault(name, []).append(point)
        self.last_ns = now_ns
        if self.config.delta:
            self.sums = {}
        temporality = wire.DELTA if self.config.delta else wire.CUMULATIVE
        return [
            {
                "name": name,
                "description": self.descriptions.get(name, ""),
                "unit": self.units.get(name, ""),
                "sum": {"dataPoints": points, "aggregationTemporality": temporality, "isMonotonic": True},
            }
            for name, points in by_name.items()
        ]

    def _send(self, signal: str, items: list) -> None:
        config = self.config.signals[signal]
        as_json = config.protocol == "http/json"
        body = wire.encode(signal, wire.request(signal, self.resource, self.scopes[signal], items), as_json)
        if config.protocol == "grpc":
            sent = grpc_export(signal, config.endpoint, config.headers, body)
        else:
            sent = post(config.endpoint, config.headers, body, as_json)
        if not sent:
            print(f"yoke: warning: telemetry could not send {signal} to {config.endpoint}", file=_stderr())


GRPC_METHODS = {
    "metrics": "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
    "logs": "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
    "traces": "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
}


def grpc_export(signal: str, endpoint: str, headers: dict[str, str], body: bytes) -> bool:
    """One OTLP/gRPC Export call with the already-encoded request (grpcio alone imports in a sixth of the
    time the SDK's gRPC exporter takes)."""
    from urllib.parse import urlsplit

    import grpc

    parts = urlsplit(endpoint if "://" in endpoint else "http://" + endpoint)
    target = parts.netloc.rpartition("@")[2]
    channel = (
        grpc.secure_channel(target, grpc.ssl_channel_credentials())
        if parts.scheme == "https"
        else grpc.insecure_channel(target)
    )
    try:
        call = channel.unary_unary(GRPC_METHODS[signal])  # bytes in, bytes out: no (de)serializers
        call(body, metadata=tuple((k.lower(), v) for k, v in headers.items()), timeout=TIMEOUT_S)
        return True
    except grpc.RpcError:
        return False
    finally:
        channel.close()


def _stderr() -> Any:
    import sys

    return sys.stderr


PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def post(endpoint: str, headers: dict[str, str], body: bytes, as_json: bool) -> bool:
    """POST one body; True on a 2xx answer. A plain socket (urllib.request's import alone costs more than
    all the rest of the exit's work), or urllib when a proxy variable asks for one."""
    import os
    from urllib.parse import urlsplit

    content_type = "application/json" if as_json else "application/x-protobuf"
    if any(os.environ.get(name) or os.environ.get(name.upper()) for name in PROXY_VARIABLES):
        return _post_urllib(endpoint, {**headers, "Content-Type": content_type}, body)
    parts = urlsplit(endpoint)
    secure = parts.scheme == "https"
    host = parts.hostname or "localhost"
    lines = [
        f"POST {parts.path or '/'}{'?' + parts.query if parts.query else ''} HTTP/1.1",
        f"Host: {parts.netloc.rpartition('@')[2]}",
        f"Content-Type: {content_type}",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(
            f"{key}: {value}"
            for key, value in headers.items()
            if "\n" not in key + value and "\r" not in key + value
        ),
    ]
    try:
        return _exchange(host, parts.port or (443 if secure else 80), secure, "\r\n".join(lines), body)
    except (OSError, ValueError):
        return False


def _exchange(host: str, port: int, secure: bool, head: str, body: bytes) -> bool:
    import socket

    # an ASCII host as bytes: a str host would be IDNA-encoded, three modules more to import
    address: Any = host.encode() if host.isascii() else host
    with socket.create_connection((address, port), TIMEOUT_S) as sock:
        if secure:
            import ssl

            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        sock.sendall(head.encode("latin-1") + b"\r\n\r\n" + body)
        status = sock.makefile("rb").readline(1024).split()
    return len(status) >= 2 and status[0].startswith(b"HTTP/") and status[1][:1] == b"2"


def _post_urllib(endpoint: str, headers: dict[str, str], body: bytes) -> bool:
    import urllib.request

    request = urllib.request.Request(endpoint, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return 200 <= response.status < 300
    except OSError:
        return False
