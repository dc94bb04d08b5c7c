"""Pure parts of the Anthropic provider: request body, cache breakpoints, and the event assembler."""

from __future__ import annotations

import copy
import json

import pytest

from yoke.providers.anthropic import build_request_body, place_cache_breakpoints
from yoke.providers.anthropic_stream import AnthropicAssembler
from yoke.providers.base import (
    BlockStart,
    BlockStop,
    MessageDelta,
    MessageStart,
    MessageStop,
    ModelRequest,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    ToolSpec,
)
from yoke.providers.http import MidStreamError
from yoke.providers.sse import SSEEvent
from yoke.providers.transport import StreamInterrupted

EPHEMERAL = {"type": "ephemeral"}


def history() -> list[dict]:
    return [
        {"role": "user", "content": "read it"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "ok", "signature": "s"},
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a"}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "data"}]},
    ]


def request(**overrides) -> ModelRequest:
    fields = {
        "model": "claude-sonnet-4-5",
        "messages": history(),
        "system": [{"type": "text", "text": "You are Yoke."}, {"type": "text", "text": "Env: linux"}],
        "tools": [
            ToolSpec("Read", "read a file", {"type": "object"}),
            ToolSpec("Bash", "run", {"type": "object"}),
        ],
    }
    fields.update(overrides)
    return ModelRequest(**fields)


def breakpoints(body: dict) -> list[str]:
    """Where cache_control markers sit, as readable labels."""
    found = [f"system[{i}]" for i, b in enumerate(body.get("system", [])) if "cache_control" in b]
    found += [f"tools[{i}]" for i, t in enumerate(body.get("tools", [])) if "cache_control" in t]
    for m, msg in enumerate(body["messages"]):
        if isinstance(msg["content"], list):
            found += [f"messages[{m}][{i}]" for i, b in enumerate(msg["content"]) if "cache_control" in b]
    return found


def test_body_has_the_request_fields_and_four_breakpoints():
    req = request(thinking_budget=4000, stop_sequences=["STOP"], max_tokens=8000)
    body = build_request_body(req, stream=True)
    assert body["model"] == "claude-sonnet-4-5" and body["max_tokens"] == 8000 and body["stream"] is True
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 4000, "display": "updates"}
    assert body["stop_sequences"] == ["STOP"]
    assert body["tools"][0] == {
        "name": "Read",
        "description": "read a file",
        "input_schema": {"type": "object"},
    }
    # the last two user turns, the system prompt and the tools
    assert breakpoints(body) == ["system[1]", "tools[1]", "messages[0][0]", "messages[2][0]"]
    assert body["system"][1]["cache_control"] == EPHEMERAL


def test_building_the_body_does_not_touch_the_callers_request():
    req = request()
    before = copy.deepcopy((req.messages, req.system))
    body = build_request_body(req, stream=False)
    assert (req.messages, req.system) == before
    assert body["messages"][1] is req.messages[1]  # unmarked messages are shared, not copied
    assert body["stream"] is False


def test_temperature_is_sent_without_thinking_and_dropped_with_it():
    assert build_request_body(request(temperature=0.2), True)["temperature"] == 0.2
    with_thinking = build_request_body(request(temperature=0.2, thinking_budget=2000), True)
    assert "temperature" not in with_thinking


def test_thinking_budget_is_kept_below_max_tokens():
    body = build_request_body(request(thinking_budget=50_000, max_tokens=16_000), True)
    assert body["thinking"]["budget_tokens"] == 15_999


def test_string_content_becomes_a_marked_text_block():
    body = build_request_body(request(messages=[{"role": "user", "content": "hello"}]), True)
    assert body["messages"][0]["content"] == [{"type": "text", "text": "hello", "cache_control": EPHEMERAL}]


def test_breakpoint_skips_empty_text_at_the_end_and_assistant_turns():
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "  "}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "answer"},
                {"type": "thinking", "thinking": "x", "signature": "s"},
            ],
        },
        {"role": "user", "content": "next"},
    ]
    body = build_request_body(request(messages=messages), True)
    assert breakpoints(body) == ["system[1]", "tools[1]", "messages[0][0]", "messages[2][0]"]


def test_empty_system_text_is_dropped_and_not_marked():
    body = build_request_body(
        request(system=[{"type": "text", "text": "real"}, {"type": "text", "text": ""}]), True
    )
    assert body["system"] == [{"type": "text", "text": "real", "cache_control": EPHEMERAL}]


def test_existing_breakpoints_count_toward_the_limit_of_four():
    messages = history()
    messages[0] = {"role": "user", "content": [{"type": "text", "text": "a", "cache_control": EPHEMERAL}]}
    messages[1]["content"][1] = {**messages[1]["content"][1], "cache_control": EPHEMERAL}
    system = [{"type": "text", "text": "s", "cache_control": EPHEMERAL}]
    tools: list[dict] = [{"name": "x", "description": "", "input_schema": {}}]
    place_cache_breakpoints(system, tools, messages)
    body = {"system": system, "tools": tools, "messages": messages}
    # three were already there; only the latest message gets the fourth
    assert breakpoints(body) == ["system[0]", "messages[0][0]", "messages[1][1]", "messages[2][0]"]


def test_no_system_and_no_tools_are_omitted():
    body = build_request_body(request(system=[], tools=[]), True)
    assert "system" not in body and "tools" not in body


# ---- the assembler ----------------------------------------------------------------------------------


def sse(kind: str, **fields) -> SSEEvent:
    return SSEEvent(kind, json.dumps({"type": kind, **fields}))


def stream_events(tool_json_parts: list[str]) -> list[SSEEvent]:
    return [
        sse(
            "message_start",
            message={
                "id": "msg_1",
                "model": "m",
                "usage": {"input_tokens": 10, "cache_read_input_tokens": 7, "output_tokens": 1},
            },
        ),
        sse("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
        sse("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "hm"}),
        sse("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "SIG"}),
        sse("content_block_stop", index=0),
        SSEEvent("ping", '{"type": "ping"}'),
        sse("content_block_start", index=1, content_block={"type": "text", "text": ""}),
        sse("content_block_delta", index=1, delta={"type": "text_delta", "text": "Hi "}),
        sse("content_block_delta", index=1, delta={"type": "text_delta", "text": "there"}),
        sse("content_block_stop", index=1),
        sse(
            "content_block_start",
            index=2,
            content_block={"type": "tool_use", "id": "tu", "name": "Read", "input": {}},
        ),
        *[
            sse("content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": p})
            for p in tool_json_parts
        ],
        sse("content_block_stop", index=2),
        sse("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 42}),
        sse("message_stop"),
    ]


def feed_all(events: list[SSEEvent]) -> list:
    assembler = AnthropicAssembler("fallback")
    out = []
    for event in events:
        out += assembler.feed(event)
    assert assembler.done
    return out


def test_stream_assembles_blocks_usage_and_final_message():
    out = feed_all(stream_events(["", '{"file_', 'path": "/a"}']))
    kinds = [type(e) for e in out]
    assert kinds == [
        MessageStart, BlockStart, ThinkingDelta, SignatureDelta, BlockStop,
        BlockStart, TextDelta, TextDelta, BlockStop,
        BlockStart, ToolInputDelta, ToolInputDelta, ToolInputDelta, BlockStop,
        MessageDelta, MessageStop,
    ]  # fmt: skip
    assert out[0].usage.input_tokens == 10
    tool_stop = out[13]
    assert tool_stop.block["input"] == {"file_path": "/a"} and tool_stop.input_error is None
    final = out[-1]
    assert final.id == "msg_1" and final.stop_reason == "tool_use"
    assert final.usage.as_dict() == {
        "input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 7, "output_tokens": 42,
    }  # fmt: skip
    assert final.message == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hm", "signature": "SIG"},
            {"type": "text", "text": "Hi there"},
            {"type": "tool_use", "id": "tu", "name": "Read", "input": {"file_path": "/a"}},
        ],
    }
    assert out[1].block == {"type": "thinking", "thinking": "", "signature": ""}  # the opening, not the end


def test_malformed_tool_json_sets_input_error_and_empty_input():
    out = feed_all(stream_events(['{"file_path": "/a', "}"]))
    stop = next(e for e in out if isinstance(e, BlockStop) and e.block["type"] == "tool_use")
    assert stop.block["input"] == {} and "not valid JSON" in (stop.input_error or "")
    assert out[-1].input_errors == {"tu": stop.input_error}


def test_empty_tool_json_is_an_empty_object():
    out = feed_all(stream_events([""]))
    assert out[-1].message["content"][2]["input"] == {} and out[-1].input_errors == {}


def test_tool_json_that_is_not_an_object_is_an_input_error():
    out = feed_all(stream_events(["[1, 2]"]))
    assert "JSON object" in out[-1].input_errors["tu"]


def test_stream_without_message_stop_is_interrupted():
    assembler = AnthropicAssembler()
    for event in stream_events([])[:5]:
        assembler.feed(event)
    assert not assembler.done
    with pytest.raises(StreamInterrupted):
        assembler.end_of_stream()


def test_error_event_is_retryable_when_overloaded_and_final_when_invalid():
    assembler = AnthropicAssembler()
    with pytest.raises(MidStreamError) as info:
        assembler.feed(sse("error", error={"type": "overloaded_error", "message": "Overloaded"}))
    assert info.value.retryable and info.value.error.kind == "overloaded"
    with pytest.raises(MidStreamError) as info:
        assembler.feed(
            sse("error", error={"type": "invalid_request_error", "message": "prompt is too long: 9 > 8"})
        )
    assert not info.value.retryable and info.value.error.kind == "prompt_too_long"


def test_json_body_gives_the_same_events_as_the_stream():
    body = {
        "id": "msg_2",
        "model": "m",
        "content": [
            {"type": "thinking", "thinking": "hm", "signature": "SIG"},
            {"type": "text", "text": "Hi there"},
            {"type": "tool_use", "id": "tu", "name": "Read", "input": {"file_path": "/a"}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 10, "cache_read_input_tokens": 7, "output_tokens": 42},
    }
    out = AnthropicAssembler().from_body(body)
    streamed = feed_all(stream_events(['{"file_path": "/a"}']))
    assert [type(e) for e in out if not isinstance(e, (TextDelta, ToolInputDelta))] == [
        type(e) for e in streamed if not isinstance(e, (TextDelta, ToolInputDelta))
    ]
    assert out[-1].message == streamed[-1].message
    assert out[-1].usage == streamed[-1].usage
    assert out[0].usage.output_tokens == 0  # output is only known at the end


def test_empty_text_blocks_are_left_out_of_the_final_message():
    out = AnthropicAssembler().from_body(
        {
            "id": "m",
            "model": "m",
            "content": [
                {"type": "text", "text": ""},
                {"type": "tool_use", "id": "a", "name": "X", "input": {}},
            ],
            "stop_reason": "tool_use",
            "usage": {},
        }
    )
    assert [b["type"] for b in out[-1].message["content"]] == ["tool_use"]
