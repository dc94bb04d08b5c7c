"""Yoke's own OTLP encoding (telemetry/otlp_wire.py) against opentelemetry-proto's schema: the protobuf bytes
parse into the real messages and read back as the same JSON that the `http/json` body holds, and the JSON
parses strictly (no unknown field) into the same messages."""

from __future__ import annotations

import base64
import json

import pytest

pytest.importorskip("opentelemetry.proto")

from google.protobuf import json_format  # noqa: E402
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest  # noqa: E402
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (  # noqa: E402
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest  # noqa: E402
from tests.telemetry.otlp_receiver import hex_ids  # noqa: E402

from yoke.telemetry import otlp_wire as wire  # noqa: E402

ATTRS = {"s": "text", "i": 7, "neg": -3, "f": 0.25, "b": True, "no": False, "list": ["a", 1], "none": None}
RESOURCE = {"service.name": "yoke", "service.version": "0.1"}
SCOPE = {"name": "com.anthropic.claude_code", "version": "0.1"}
METRICS = [
    {
        "name": "claude_code.cost.usage",
        "description": "Cost",
        "unit": "USD",
        "sum": {
            "dataPoints": [
                {
                    "startTimeUnixNano": "1",
                    "timeUnixNano": "2",
                    "attributes": wire.attributes(ATTRS),
                    "asDouble": 0.5,
                },
                {"startTimeUnixNano": "1", "timeUnixNano": "2", "asInt": "12"},
            ],
            "aggregationTemporality": wire.DELTA,
            "isMonotonic": True,
        },
    }
]
LOGS = [
    {
        "timeUnixNano": "1764000000000000000",
        "observedTimeUnixNano": "1764000000000000001",
        "body": {"stringValue": "claude_code.user_prompt"},
        "attributes": wire.attributes(ATTRS),
        "eventName": "claude_code.user_prompt",
    }
]
SPANS = [
    {
        "traceId": "0123456789abcdef0123456789abcdef",
        "spanId": "0123456789abcdef",
        "parentSpanId": "fedcba9876543210",
        "name": "claude_code.tool",
        "kind": wire.SPAN_KIND_INTERNAL,
        "startTimeUnixNano": "5",
        "endTimeUnixNano": "9",
        "attributes": wire.attributes(ATTRS),
        "status": {"message": "boom", "code": wire.STATUS_ERROR},
        "flags": wire.HAS_IS_REMOTE,
    }
]
CASES = [
    ("metrics", METRICS, ExportMetricsServiceRequest),
    ("logs", LOGS, ExportLogsServiceRequest),
    ("traces", SPANS, ExportTraceServiceRequest),
]


def _b64_ids(value):
    if isinstance(value, dict):
        return {
            k: base64.b64encode(bytes.fromhex(v)).decode()
            if k in ("traceId", "spanId", "parentSpanId")
            else _b64_ids(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_b64_ids(v) for v in value]
    return value


@pytest.mark.parametrize(("signal", "items", "kind"), CASES)
def test_protobuf_and_json_bodies_are_the_same_valid_message(signal, items, kind):
    message = wire.request(signal, RESOURCE, SCOPE, items)
    from_protobuf = kind()
    from_protobuf.ParseFromString(wire.encode(signal, message, as_json=False))
    from_json = json_format.ParseDict(
        _b64_ids(json.loads(wire.encode(signal, message, as_json=True))), kind()
    )
    assert from_protobuf == from_json
    # OTLP's JSON has enums as numbers
    as_dict = json_format.MessageToDict(from_protobuf, use_integers_for_enums=True)
    assert hex_ids(as_dict) == json.loads(wire.encode(signal, message, True))
    assert from_protobuf.ByteSize() > 0


def test_attribute_values_keep_their_types():
    values = {kv["key"]: kv["value"] for kv in wire.attributes(ATTRS)}
    assert values == {
        "s": {"stringValue": "text"},
        "i": {"intValue": "7"},
        "neg": {"intValue": "-3"},
        "f": {"doubleValue": 0.25},
        "b": {"boolValue": True},
        "no": {"boolValue": False},
        "list": {"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "1"}]}},
    }
