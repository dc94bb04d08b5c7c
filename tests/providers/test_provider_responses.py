"""The Responses API wire: stateless use with encrypted reasoning passed back, incomplete answers, failures."""

from __future__ import annotations

import pytest
from tests.providers.histories import read_exchange

from yoke.providers.base import MessageStop, ModelRequest, ProviderError, RetryNotice, ToolSpec
from yoke.providers.responses import ResponsesProvider, build_request_body
from yoke.providers.retry import RetryPolicy
from yoke.testing import ScriptedServer

BASH = ToolSpec("Bash", "Run a command", {"type": "object", "properties": {"command": {"type": "string"}}})


def request(messages, model="gpt-5.1", **kw) -> ModelRequest:
    return ModelRequest(
        model=model,
        messages=messages,
        system=[{"type": "text", "text": "Be brief."}],
        tools=[BASH],
        max_tokens=4096,
        **kw,
    )


async def events_of(srv, req) -> list:
    provider = ResponsesProvider(
        api_key="o", base_url=srv.openai_url, retry=RetryPolicy(max_retries=2, base_delay=0.001)
    )
    try:
        return [e async for e in provider.stream(req)]
    finally:
        await provider.aclose()


def test_body_is_stateless_and_asks_for_encrypted_reasoning():
    body = build_request_body(request([{"role": "user", "content": "hi"}], thinking_budget=20000), True)
    assert body["store"] is False and "previous_response_id" not in body
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["instructions"] == "Be brief." and body["max_output_tokens"] == 4096
    assert body["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
    assert body["tools"][0] == {
        "type": "function",
        "name": "Bash",
        "description": "Run a command",
        "parameters": BASH.input_schema,
    }
    plain = build_request_body(
        request([{"role": "user", "content": "hi"}], model="gpt-4.1", temperature=0.3), False
    )
    assert "include" not in plain and "reasoning" not in plain and plain["temperature"] == 0.3


async def test_reasoning_is_carried_between_turns_without_server_state():
    turns = [
        {
            "content": [
                {"type": "thinking", "thinking": "List the files.", "signature": "enc-1"},
                {"type": "tool_use", "id": "call_1", "name": "Bash", "input": {"command": "ls"}},
            ],
            "usage": {"input_tokens": 100, "cache_read_input_tokens": 60, "output_tokens": 25},
        },
        {"content": "Two files."},
    ]
    with ScriptedServer(turns) as srv:
        messages = [{"role": "user", "content": "what is here?"}]
        first: MessageStop = (await events_of(srv, request(messages)))[-1]
        assert first.message["content"] == [
            {
                "type": "thinking",
                "thinking": "List the files.",
                "signature": 'openai-responses:{"encrypted_content":"enc-1"}',
            },
            {"type": "tool_use", "id": "call_1", "name": "Bash", "input": {"command": "ls"}},
        ]
        assert (first.usage.input_tokens, first.usage.cache_read_input_tokens, first.usage.output_tokens) == (
            100,
            60,
            25,
        )
        messages += [
            first.message,
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "a\nb"}],
            },
        ]
        second = (await events_of(srv, request(messages)))[-1]
        sent = srv.requests[-1].body
    assert second.message["content"] == [{"type": "text", "text": "Two files."}]
    assert sent["input"][1:] == [
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "List the files."}],
            "encrypted_content": "enc-1",
        },
        {"type": "function_call", "call_id": "call_1", "name": "Bash", "arguments": '{"command": "ls"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "a\nb"},
    ]


async def test_incomplete_answer_is_max_tokens():
    with ScriptedServer([{"content": "partial ans", "stop_reason": "max_tokens"}]) as srv:
        stop = (await events_of(srv, request([{"role": "user", "content": "x"}])))[-1]
    assert stop.stop_reason == "max_tokens" and stop.message["content"] == [
        {"type": "text", "text": "partial ans"}
    ]


async def test_failure_mid_stream_is_retried_without_streaming():
    with ScriptedServer([{"content": "steady", "fault": {"stream_error_after": 5}}]) as srv:
        events = await events_of(srv, request([{"role": "user", "content": "x"}]))
        streams = [r.stream for r in srv.requests]
    assert streams == [True, False]
    assert any(isinstance(e, RetryNotice) and e.discard_partial for e in events)
    assert events[-1].message["content"] == [{"type": "text", "text": "steady"}]


async def test_reasoning_with_an_id_is_refused_when_nothing_is_stored():
    # What the server enforces, as OpenAI does with store=false: Yoke never sends the item id.
    messages = [
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": "",
                    "signature": 'openai-responses:{"id":"rs_1","encrypted_content":"e"}',
                }
            ],
        },
        {"role": "user", "content": "y"},
    ]
    with ScriptedServer([{"content": "never"}]) as srv, pytest.raises(ProviderError) as info:
        await events_of(srv, request(messages))
    assert info.value.kind == "invalid_request" and "store" in str(info.value)


def test_items_kept_across_requests_are_what_a_fresh_conversion_makes():
    from yoke.prefix import PrefixMemo
    from yoke.providers.responses import responses_items

    memo = PrefixMemo(responses_items)
    history: list = [{"role": "user", "content": "read it"}]
    bodies = []
    for turn in range(4):
        history = [*history, *read_exchange(turn)]
        request = ModelRequest(model="gpt-5", messages=history, max_tokens=100)
        kept = build_request_body(request, True, memo)
        assert kept == build_request_body(request, True)  # the same body as converting afresh
        bodies.append(kept)
    assert bodies[-1]["input"][0] is bodies[0]["input"][0]  # a shared message's items are reused, not rebuilt
    rewound = ModelRequest(
        model="gpt-5", messages=[history[0], {"role": "user", "content": "other"}], max_tokens=100
    )
    assert build_request_body(rewound, True, memo) == build_request_body(rewound, True)
