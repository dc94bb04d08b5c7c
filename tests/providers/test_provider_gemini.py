"""The Gemini wire: request conversion, thought signatures, parallel calls, finish reasons, safety, usage."""

from __future__ import annotations

from tests.providers.histories import read_exchange

from yoke.providers.base import MessageStop, ModelRequest, ToolSpec
from yoke.providers.gemini import SKIP_SIGNATURE, GeminiProvider, build_request_body
from yoke.providers.retry import RetryPolicy
from yoke.testing import ScriptedServer

READ = ToolSpec(
    "Read",
    "Read a file",
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"file_path": {"type": "string"}},
        "required": ["file_path"],
        "additionalProperties": False,
    },
)


def request(messages, **kw) -> ModelRequest:
    return ModelRequest(
        model="gemini-2.5-pro",
        messages=messages,
        system=[{"type": "text", "text": "Be brief."}],
        tools=[READ],
        max_tokens=2048,
        **kw,
    )


async def answer(srv, req) -> MessageStop:
    provider = GeminiProvider(
        api_key="g", base_url=srv.gemini_url, retry=RetryPolicy(max_retries=1, base_delay=0.001)
    )
    try:
        events = [e async for e in provider.stream(req)]
    finally:
        await provider.aclose()
    return events[-1]


def test_request_body_is_gemini_shaped():
    body = build_request_body(
        request([{"role": "user", "content": "hi"}], thinking_budget=4000, temperature=0.2)
    )
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    params = body["tools"][0]["functionDeclarations"][0]["parameters"]
    assert (
        "$schema" not in params
        and "additionalProperties" not in params
        and params["required"] == ["file_path"]
    )
    assert body["generationConfig"] == {
        "maxOutputTokens": 2048,
        "temperature": 0.2,
        "thinkingConfig": {"thinkingBudget": 4000, "includeThoughts": True},
    }


async def test_parallel_calls_round_trip_with_their_signature():
    calls = [
        {"type": "tool_use", "name": "Read", "input": {"file_path": "/a"}},
        {"type": "tool_use", "name": "Read", "input": {"file_path": "/b"}},
    ]
    turns = [
        {"content": [{"type": "thinking", "thinking": "Both files.", "signature": "t-sig"}, *calls]},
        {"content": "Both read."},
    ]
    with ScriptedServer(turns) as srv:
        messages = [{"role": "user", "content": "read a and b"}]
        first = await answer(srv, request(messages))
        uses = [b for b in first.message["content"] if b["type"] == "tool_use"]
        assert first.stop_reason == "tool_use" and len(uses) == 2
        assert uses[0]["id"] != uses[1]["id"] and uses[0]["signature"].startswith("gemini:")
        assert "signature" not in uses[1]  # only the first of parallel calls is signed
        assert first.message["content"][0] == {
            "type": "thinking",
            "thinking": "Both files.",
            "signature": "gemini:t-sig",
        }
        results = [
            {"type": "tool_result", "tool_use_id": u["id"], "content": f"text of {u['input']['file_path']}"}
            for u in uses
        ]
        messages += [first.message, {"role": "user", "content": results}]
        second = await answer(srv, request(messages))
        sent = srv.requests[-1].body
    assert second.message["content"] == [{"type": "text", "text": "Both read."}]
    model_parts = sent["contents"][1]["parts"]
    assert model_parts[0] == {"text": "Both files.", "thought": True, "thoughtSignature": "t-sig"}
    assert [p.get("thoughtSignature") is not None for p in model_parts[1:]] == [True, False]
    responses = [p["functionResponse"] for p in sent["contents"][2]["parts"]]
    assert responses == [
        {"name": "Read", "response": {"output": "text of /a"}},
        {"name": "Read", "response": {"output": "text of /b"}},
    ]


def test_history_from_another_provider_is_readable():
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Claude's own.", "signature": "EqQBCkgIBxABGAIiQ"},
                {"type": "redacted_thinking", "data": "xyz"},
                {"type": "tool_use", "id": "toolu_9", "name": "Read", "input": {"file_path": "/x"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_9",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": "AAA"},
                        }
                    ],
                    "is_error": True,
                }
            ],
        },
    ]
    contents = build_request_body(request(messages))["contents"]
    assert contents[1] == {
        "role": "model",
        "parts": [
            {
                "functionCall": {"name": "Read", "args": {"file_path": "/x"}, "id": "toolu_9"},
                "thoughtSignature": SKIP_SIGNATURE,
            }
        ],
    }
    assert contents[2]["parts"] == [
        {"functionResponse": {"name": "Read", "response": {"error": "[image]"}, "id": "toolu_9"}},
        {"inlineData": {"mimeType": "image/png", "data": "AAA"}},
    ]


async def test_finish_reasons_and_safety_blocks_map_to_stop_reasons():
    turns = [
        {"content": "cut sh", "stop_reason": "max_tokens"},
        {"content": [], "stop_reason": "refusal"},
        {"content": [], "block_reason": "PROHIBITED_CONTENT"},
        {"content": [{"type": "tool_use", "name": "Read", "raw_input": '{"file_path": '}]},
    ]
    with ScriptedServer(turns) as srv:
        stops = [await answer(srv, request([{"role": "user", "content": "x"}])) for _ in turns]
    assert stops[0].stop_reason == "max_tokens" and stops[0].message["content"][0]["text"] == "cut sh"
    assert (
        stops[1].stop_reason == "refusal" and "finishReason SAFETY" in stops[1].message["content"][0]["text"]
    )
    assert stops[2].stop_reason == "refusal"
    assert (
        stops[2].message["content"][0]["text"]
        == "Gemini blocked the prompt (blockReason PROHIBITED_CONTENT)."
    )
    assert stops[3].stop_reason == "end_turn"
    assert "MALFORMED_FUNCTION_CALL" in stops[3].message["content"][0]["text"]


async def test_usage_counts_cached_and_thinking_tokens():
    usage = {"input_tokens": 700, "cache_read_input_tokens": 300, "output_tokens": 90, "thinking_tokens": 40}
    with ScriptedServer([{"content": "ok", "usage": usage}]) as srv:
        stop = await answer(srv, request([{"role": "user", "content": "x"}]))
        sent = srv.requests[0]
    assert (stop.usage.input_tokens, stop.usage.cache_read_input_tokens, stop.usage.output_tokens) == (
        700,
        300,
        90,
    )
    assert (
        sent.headers["x-goog-api-key"] == "g"
        and sent.path == "/v1beta/models/gemini-2.5-pro:streamGenerateContent"
    )


async def test_a_signature_from_another_model_is_refused_by_the_server():
    # The scripted server checks signatures as Gemini does; Yoke never sends another model's, but if a
    # history carried one the request fails with a clear one-line error.
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "thinking", "thinking": "t", "signature": "gemini:made-elsewhere"}],
        },
        {"role": "user", "content": "again"},
    ]
    with ScriptedServer([{"content": "never"}]) as srv:
        provider = GeminiProvider(api_key="g", base_url=srv.gemini_url, retry=RetryPolicy(max_retries=0))
        try:
            events = [e async for e in provider.stream(request(messages))]
        except Exception as exc:  # noqa: BLE001 - the error is the point
            error = exc
        else:
            error = events
        await provider.aclose()
    assert getattr(error, "kind", None) == "invalid_request" and "Corrupted thought signature" in str(error)


def test_turns_kept_across_requests_are_what_a_fresh_conversion_makes():
    from functools import partial

    from yoke.prefix import PrefixMemo
    from yoke.providers.gemini import gemini_turn

    memo = PrefixMemo(partial(gemini_turn, names={}))
    history: list = [{"role": "user", "content": "read it"}]
    bodies = []
    for turn in range(4):
        history = [
            *history,
            *read_exchange(turn),
            {"role": "user", "content": f"and then {turn}"},  # merged into the turn before: Gemini alternates
        ]
        request = ModelRequest(model="gemini-2.5-pro", messages=history, max_tokens=100)
        kept = build_request_body(request, memo)
        assert kept == build_request_body(request)  # the same body as converting afresh
        assert build_request_body(request, memo) == kept  # merging left the kept turns as they were
        bodies.append(kept)
    contents = bodies[-1]["contents"]
    assert [c["role"] for c in contents] == ["user"] + ["model", "user"] * 4
    assert contents[1]["parts"][0]["functionCall"]["name"] == "Read"
    assert contents[2]["parts"][0]["functionResponse"]["name"] == "Read"  # named from the earlier message
    assert contents[2]["parts"][1] == {"text": "and then 0"}
    assert bodies[-1]["contents"][1] is bodies[0]["contents"][1]  # a shared message's turn is reused
    rewound = ModelRequest(
        model="gemini-2.5-pro", messages=[history[0], {"role": "user", "content": "other"}], max_tokens=100
    )
    assert build_request_body(rewound, memo) == build_request_body(rewound)
