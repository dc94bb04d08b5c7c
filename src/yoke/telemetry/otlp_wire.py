"""OTLP request bodies without the OpenTelemetry SDK: the common case (every chosen exporter `otlp` over
HTTP) needs no SDK at all, and the SDK's import (a tenth of a second or more) was the whole cost of
telemetry at exit.

A request is built once as the protobuf JSON mapping (camelCase names, 64-bit integers as strings, enums as
numbers, ids as hex as OTLP asks) and written either as JSON (`http/json`) or as protobuf (`http/protobuf`)
by a small wire encoder driven by the field table below (field numbers from opentelemetry-proto 1.x). The
test receiver decodes both with opentelemetry-proto, so the table is checked against the real schema."""

from __future__ import annotations

import json
import struct
from typing import Any

# message -> JSON name -> (field number, wire kind, message type of a sub-message)
Field = tuple[int, str, "str | None"]  # (field number, wire kind, message type for "msg")
_ANY: dict[str, Field] = {
    "stringValue": (1, "str", None),
    "boolValue": (2, "varint", None),
    "intValue": (3, "int64", None),
    "doubleValue": (4, "double", None),
    "arrayValue": (5, "msg", "ArrayValue"),
}
_KV: dict[str, Field] = {"key": (1, "str", None), "value": (2, "msg", "AnyValue")}
_SCOPE: dict[str, Field] = {"name": (1, "str", None), "version": (2, "str", None)}
_RESOURCE: dict[str, Field] = {"attributes": (1, "msg", "KeyValue")}
SCHEMA: dict[str, dict[str, Field]] = {
    "AnyValue": _ANY,
    "ArrayValue": {"values": (1, "msg", "AnyValue")},
    "KeyValue": _KV,
    "Resource": _RESOURCE,
    "Scope": _SCOPE,
    "metrics": {"resourceMetrics": (1, "msg", "ResourceMetrics")},
    "ResourceMetrics": {"resource": (1, "msg", "Resource"), "scopeMetrics": (2, "msg", "ScopeMetrics")},
    "ScopeMetrics": {"scope": (1, "msg", "Scope"), "metrics": (2, "msg", "Metric")},
    "Metric": {
        "name": (1, "str", None),
        "description": (2, "str", None),
        "unit": (3, "str", None),
        "sum": (7, "msg", "Sum"),
    },
    "Sum": {
        "dataPoints": (1, "msg", "NumberDataPoint"),
        "aggregationTemporality": (2, "varint", None),
        "isMonotonic": (3, "varint", None),
    },
    "NumberDataPoint": {
        "startTimeUnixNano": (2, "fixed64", None),
        "timeUnixNano": (3, "fixed64", None),
        "asDouble": (4, "double", None),
        "asInt": (6, "fixed64", None),  # sfixed64; counters never go below zero
        "attributes": (7, "msg", "KeyValue"),
    },
    "logs": {"resourceLogs": (1, "msg", "ResourceLogs")},
    "ResourceLogs": {"resource": (1, "msg", "Resource"), "scopeLogs": (2, "msg", "ScopeLogs")},
    "ScopeLogs": {"scope": (1, "msg", "Scope"), "logRecords": (2, "msg", "LogRecord")},
    "LogRecord": {
        "timeUnixNano": (1, "fixed64", None),
        "body": (5, "msg", "AnyValue"),
        "attributes": (6, "msg", "KeyValue"),
        "observedTimeUnixNano": (11, "fixed64", None),
        "eventName": (12, "str", None),
    },
    "traces": {"resourceSpans": (1, "msg", "ResourceSpans")},
    "ResourceSpans": {"resource": (1, "msg", "Resource"), "scopeSpans": (2, "msg", "ScopeSpans")},
    "ScopeSpans": {"scope": (1, "msg", "Scope"), "spans": (2, "msg", "Span")},
    "Span": {
        "traceId": (1, "hex", None),
        "spanId": (2, "hex", None),
        "parentSpanId": (4, "hex", None),
        "name": (5, "str", None),
        "kind": (6, "varint", None),
        "startTimeUnixNano": (7, "fixed64", None),
        "endTimeUnixNano": (8, "fixed64", None),
        "attributes": (9, "msg", "KeyValue"),
        "status": (15, "msg", "Status"),
        "flags": (16, "fixed32", None),
    },
    "Status": {"message": (2, "str", None), "code": (3, "varint", None)},
}
DELTA, CUMULATIVE = 1, 2  # AggregationTemporality
SPAN_KIND_INTERNAL = 1
STATUS_ERROR = 2
HAS_IS_REMOTE = 0x100  # SpanFlags: whether the parent is remote is known (it never is here)


def value(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list | tuple):
        return {"arrayValue": {"values": [value(item) for item in v]}}
    return {"stringValue": str(v)}


def attributes(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": str(k), "value": value(v)} for k, v in attrs.items() if v is not None]


def request(signal: str, resource: dict[str, Any], scope: dict[str, str], items: list) -> dict[str, Any]:
    """One export request for `signal` ("metrics", "logs", "traces") holding one scope's `items`."""
    outer, inner, leaves = {
        "metrics": ("resourceMetrics", "scopeMetrics", "metrics"),
        "logs": ("resourceLogs", "scopeLogs", "logRecords"),
        "traces": ("resourceSpans", "scopeSpans", "spans"),
    }[signal]
    return {
        outer: [{"resource": {"attributes": attributes(resource)}, inner: [{"scope": scope, leaves: items}]}]
    }


def encode(signal: str, message: dict[str, Any], as_json: bool) -> bytes:
    if as_json:
        return json.dumps(message, separators=(",", ":")).encode()
    return bytes(_message(signal, message))


# ---- the protobuf wire format ------------------------------------------------------------------------------


def _varint(n: int, out: bytearray) -> None:
    n &= (1 << 64) - 1
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _message(kind: str, fields: dict[str, Any]) -> bytearray:
    out = bytearray()
    schema = SCHEMA[kind]
    for name, raw in fields.items():
        number, wire, sub = schema[name]
        for item in raw if isinstance(raw, list) else [raw]:
            _field(out, number, wire, sub, item)
    return out


def _field(out: bytearray, number: int, wire: str, sub: str | None, item: Any) -> None:
    if wire in ("varint", "int64"):
        _varint(number << 3, out)
        _varint(int(item), out)
    elif wire == "fixed64":
        _varint(number << 3 | 1, out)
        out += struct.pack("<Q", int(item) & ((1 << 64) - 1))
    elif wire == "double":
        _varint(number << 3 | 1, out)
        out += struct.pack("<d", float(item))
    elif wire == "fixed32":
        _varint(number << 3 | 5, out)
        out += struct.pack("<I", int(item))
    else:
        data = (
            _message(sub or "", item)
            if wire == "msg"
            else bytes.fromhex(item)
            if wire == "hex"
            else item.encode()
        )
        _varint(number << 3 | 2, out)
        _varint(len(data), out)
        out += data
