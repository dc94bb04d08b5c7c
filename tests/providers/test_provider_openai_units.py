"""Pure parts of the OpenAI provider: message conversion, request body, and chunk assembly."""

from __future__ import annotations

import json

import pytest

from yoke.providers.base import (
    BlockStart,
    BlockStop,
    MessageDelta,
    MessageStart,
    MessageStop,
    ModelRequest,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    ToolSpec,
)
from yoke.providers.http import MidStreamError
from yoke.providers.openai import build_request_body, to_openai_messages
from yoke.providers.openai_stream import OpenAIAssembler, usage_from_openai
from yoke.providers.sse import SSEEvent
from yoke.providers.transport import StreamInterrupted

PNG = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}


def test_conversation_converts_to_chat_messages():
    system = [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "cwd: /p"}]
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "look"}, PNG]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "secret", "signature": "s"},
                {"type": "text", "text": "Reading both."},
                {"type": "tool_use", "id": "c1", "name": "Read", "input": {"file_path": "/a"}},
                {"type": "tool_use", "id": "c2", "name": "Read", "input": {"file_path": "/b"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "alpha"},
                {
                    "type": "tool_result",
                    "tool_use_id": "c2",
                    "content": [{"type": "text", "text": "see"}, PNG],
                    "is_error": False,
                },
                {"type": "text", "text": "and now?"},
            ],
        },
    ]
    assert to_openai_messages(system, messages) == [
        {"role": "system", "content": "Be brief.\n\ncwd: /p"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            ],
        },
        {
            "role": "assistant",
            "content": "Reading both.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "Read", "arguments": '{"file_path": "/a"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "Read", "arguments": '{"file_path": "/b"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "alpha"},
        {"role": "tool", "tool_call_id": "c2", "content": "see\n[image]"},
        {"role": "user", "content": "and now?"},
    ]


def test_assistant_with_only_tool_calls_has_null_content_and_plain_strings_pass_through():
    out = to_openai_messages(
        [],
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "x", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": ""}]},
            {"role": "assistant", "content": "done"},
        ],
    )
    assert out[1]["content"] is None and out[1]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert out[2] == {"role": "tool", "tool_call_id": "x", "content": ""}
    assert out[3] == {"role": "assistant", "content": "done"}
    assert len(out) == 4  # no empty user message after a lone tool result


def request(**overrides) -> ModelRequest:
    fields = {
        "model": "gpt-4.1",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [ToolSpec("Read", "read a file", {"type": "object", "properties": {}})],
        "max_tokens": 1000,
    }
    fields.update(overrides)
    return ModelRequest(**fields)


def test_body_uses_max_completion_tokens_only_on_openais_own_api():
    official = build_request_body(request(), stream=True, openai_api=True)
    compatible = build_request_body(request(), stream=True, openai_api=False)
    assert official["max_completion_tokens"] == 1000 and "max_tokens" not in official
    assert compatible["max_tokens"] == 1000 and "max_completion_tokens" not in compatible
    assert official["stream_options"] == {"include_usage": True}
    assert official["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "Read",
                "description": "read a file",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]


def test_non_streaming_body_has_no_stream_options():
    body = build_request_body(
        request(stop_sequences=["END"], temperature=0.5), stream=False, openai_api=False
    )
    assert body["stream"] is False and "stream_options" not in body
    assert body["stop"] == ["END"] and body["temperature"] == 0.5


def test_reasoning_models_get_effort_and_no_temperature():
    body = build_request_body(request(model="o4-mini", thinking_budget=10_000, temperature=0.3), True, True)
    assert body["reasoning_effort"] == "medium" and "temperature" not in body


# ---- assembling chunks ---------------------------------------------------------------------------------


def chunk(delta: dict | None = None, finish: str | None = None, **extra) -> SSEEvent:
    body = {"id": "chatcmpl-1", "model": "gpt-x", **extra}
    if delta is not None or finish is not None:
        body["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    return SSEEvent("message", json.dumps(body))


DONE = SSEEvent("message", "[DONE]")


def feed_all(events: list[SSEEvent]) -> list:
    assembler = OpenAIAssembler("requested")
    out = []
    for event in events:
        out += assembler.feed(event)
    return out


def test_reasoning_text_and_interleaved_tool_calls_become_ordered_blocks():
    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"reasoning_content": "think "}),
        chunk({"reasoning": "more"}),
        chunk({"content": "I'll read."}),
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "a", "type": "function", "function": {"name": "Read", "arguments": ""}}
                ]
            }
        ),
        chunk(
            {
                "tool_calls": [
                    {"index": 1, "id": "b", "type": "function", "function": {"name": "Bash", "arguments": ""}}
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"file_'}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"command": "ls"}'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'path": "/a"}'}}]}),
        chunk({}, "tool_calls"),
        chunk(
            choices=[],
            usage={
                "prompt_tokens": 100,
                "completion_tokens": 20,
                "prompt_tokens_details": {"cached_tokens": 60},
            },
        ),
        DONE,
    ]
    out = feed_all(events)
    assert [type(e) for e in out] == [
        MessageStart, BlockStart, ThinkingDelta, ThinkingDelta, BlockStop, BlockStart, TextDelta, BlockStop,
        BlockStart, BlockStart, ToolInputDelta, ToolInputDelta, ToolInputDelta, BlockStop, BlockStop,
        MessageDelta, MessageStop,
    ]  # fmt: skip
    deltas = [(e.index, e.partial_json) for e in out if isinstance(e, ToolInputDelta)]
    assert deltas == [(2, '{"file_'), (3, '{"command": "ls"}'), (2, 'path": "/a"}')]
    final = out[-1]
    assert final.message["content"] == [
        {"type": "thinking", "thinking": "think more", "signature": ""},
        {"type": "text", "text": "I'll read."},
        {"type": "tool_use", "id": "a", "name": "Read", "input": {"file_path": "/a"}},
        {"type": "tool_use", "id": "b", "name": "Bash", "input": {"command": "ls"}},
    ]
    assert final.stop_reason == "tool_use" and final.id == "chatcmpl-1" and final.model == "gpt-x"
    assert final.usage.as_dict() == {
        "input_tokens": 40, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 60, "output_tokens": 20,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("finish", "stop_reason"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("content_filter", "refusal"),
        ("tool_calls", "tool_use"),
    ],
)
def test_finish_reasons_map_to_stop_reasons(finish, stop_reason):
    out = feed_all([chunk({"content": "x"}), chunk({}, finish), DONE])
    assert out[-1].stop_reason == stop_reason


def test_malformed_arguments_give_an_input_error():
    out = feed_all(
        [
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "a", "function": {"name": "Read", "arguments": '{"file_path": '}}
                    ]
                }
            ),
            chunk({}, "tool_calls"),
            DONE,
        ]
    )
    stop = next(e for e in out if isinstance(e, BlockStop))
    assert stop.block["input"] == {} and stop.input_error and out[-1].input_errors == {"a": stop.input_error}


def test_tool_calls_without_index_are_told_apart_by_id():
    out = feed_all(
        [
            chunk(
                {
                    "tool_calls": [
                        {"id": "a", "function": {"name": "Read", "arguments": '{"file_path": "/a"}'}}
                    ]
                }
            ),
            chunk(
                {
                    "tool_calls": [
                        {"id": "b", "function": {"name": "Read", "arguments": '{"file_path": "/b"}'}}
                    ]
                }
            ),
            chunk({}, "stop"),
            DONE,
        ]
    )
    inputs = [b["input"] for b in out[-1].message["content"]]
    assert inputs == [{"file_path": "/a"}, {"file_path": "/b"}]
    assert out[-1].stop_reason == "tool_use"  # "stop" with tool calls still means run them


def test_stream_ending_after_finish_without_done_is_complete_but_before_finish_is_cut():
    assembler = OpenAIAssembler()
    assembler.feed(chunk({"content": "partial"}))
    with pytest.raises(StreamInterrupted):
        assembler.end_of_stream()
    assembler.feed(chunk({}, "stop"))
    assert isinstance(assembler.end_of_stream()[-1], MessageStop)


def test_error_chunk_mid_stream():
    assembler = OpenAIAssembler()
    with pytest.raises(MidStreamError) as info:
        assembler.feed(
            SSEEvent("message", json.dumps({"error": {"message": "overloaded", "type": "server_error"}}))
        )
    assert info.value.retryable


def test_non_streaming_body_synthesizes_the_same_sequence():
    body = {
        "id": "chatcmpl-9",
        "model": "gpt-x",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Sure.",
                    "reasoning_content": "why",
                    "tool_calls": [
                        {"id": "c", "type": "function", "function": {"name": "Bash", "arguments": "{}"}}
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3},
    }
    out = OpenAIAssembler().from_body(body)
    assert [type(e) for e in out] == [
        MessageStart, BlockStart, ThinkingDelta, BlockStop, BlockStart, TextDelta, BlockStop,
        BlockStart, ToolInputDelta, BlockStop, MessageDelta, MessageStop,
    ]  # fmt: skip
    assert out[-1].usage.input_tokens == 5 and out[-1].usage.output_tokens == 3


def test_usage_counts_cached_tokens_apart():
    usage = usage_from_openai(
        {"prompt_tokens": 10, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 4}}
    )
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.output_tokens) == (6, 4, 1)
