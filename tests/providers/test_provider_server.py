"""Both HTTP providers against the scripted server: real sockets, real SSE, every fault."""

from __future__ import annotations

import socket

import pytest

from yoke.providers.anthropic import AnthropicProvider
from yoke.providers.base import (
    BlockStop,
    MessageStart,
    MessageStop,
    ModelRequest,
    ProviderError,
    RetryNotice,
    TextDelta,
    ToolSpec,
)
from yoke.providers.gemini import GeminiProvider
from yoke.providers.openai import OpenAIProvider
from yoke.providers.responses import ResponsesProvider
from yoke.providers.retry import RetryPolicy
from yoke.testing import ScriptedServer

WIRES = ["anthropic", "openai", "gemini", "responses"]
KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "gemini": "GEMINI_API_KEY"}
KEY_VARIABLES["responses"] = "OPENAI_API_KEY"
ANSWER = [
    {"type": "thinking", "thinking": "Let me look at the file first.", "signature": "sig-1"},
    {"type": "text", "text": "I will read the file now."},
    {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/tmp/a.txt"}},
]


class Sleeps:
    """Records requested waits instead of sleeping, so retry tests are instant and can check the delays."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def make_provider(
    wire: str, srv: ScriptedServer, *, max_retries: int = 3, idle: float = 90.0, sleeps=None, **kw
):
    policy = RetryPolicy(
        max_retries=max_retries, base_delay=0.001, idle_timeout=idle, sleep=sleeps or Sleeps()
    )
    if wire == "anthropic":
        return AnthropicProvider(api_key="sk-test", base_url=srv.url, retry=policy, **kw)
    if wire == "gemini":
        return GeminiProvider(api_key="g-test", base_url=srv.gemini_url, retry=policy, **kw)
    if wire == "responses":
        return ResponsesProvider(api_key="sk-test", base_url=srv.openai_url, retry=policy, **kw)
    return OpenAIProvider(api_key="sk-test", base_url=srv.openai_url, retry=policy, **kw)


def make_request(stream: bool = True, model: str = "gpt-5.1") -> ModelRequest:
    return ModelRequest(
        model=model,
        messages=[{"role": "user", "content": "Read /tmp/a.txt"}],
        system=[{"type": "text", "text": "You are a test."}],
        tools=[
            ToolSpec(
                "Read", "Read a file", {"type": "object", "properties": {"file_path": {"type": "string"}}}
            )
        ],
        max_tokens=1024,
        stream=stream,
    )


async def collect(provider, request: ModelRequest) -> list:
    try:
        return [event async for event in provider.stream(request)]
    finally:
        await provider.aclose()


def final(events: list) -> MessageStop:
    stops = [e for e in events if isinstance(e, MessageStop)]
    assert len(stops) == 1, "exactly one MessageStop"
    assert events[-1] is stops[0], "MessageStop comes last"
    return stops[0]


def expected_content(wire: str) -> list[dict]:
    """ANSWER as each wire gives it back: Anthropic's signature verbatim, Gemini's and the Responses API's
    tagged with their origin, none from Chat Completions."""
    signature = {
        "anthropic": "sig-1",
        "gemini": "gemini:sig-1",
        "responses": 'openai-responses:{"encrypted_content":"sig-1"}',
    }.get(wire, "")
    return [dict(ANSWER[0], signature=signature), ANSWER[1], ANSWER[2]]


def comparable(content: list[dict]) -> list[dict]:
    """Gemini gives calls no id (one is made up) and signs the first call; set both aside to compare."""
    out = []
    for block in content:
        if block.get("type") == "tool_use" and str(block.get("id", "")).startswith("gemini_"):
            assert str(block.pop("signature", "gemini:")).startswith("gemini:")
            block = dict(block, id="toolu_1")
        out.append(block)
    return out


def after_restart(events: list) -> list:
    """The events a consumer keeps: everything after the last discard notice."""
    marks = [i for i, e in enumerate(events) if isinstance(e, RetryNotice) and e.discard_partial]
    return events[marks[-1] + 1 :] if marks else events


# ---- happy paths -------------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("stream", [True, False])
async def test_answer_with_thinking_text_and_tool_call(wire, stream):
    usage = {"input_tokens": 120, "cache_read_input_tokens": 30, "output_tokens": 45}
    with ScriptedServer([{"content": ANSWER, "usage": usage}]) as srv:
        events = await collect(make_provider(wire, srv), make_request(stream))
        sent = srv.requests
    stop = final(events)
    assert comparable(stop.message["content"]) == expected_content(wire)
    assert stop.stop_reason == "tool_use"
    assert (stop.usage.input_tokens, stop.usage.cache_read_input_tokens, stop.usage.output_tokens) == (
        120,
        30,
        45,
    )
    assert isinstance(events[0], MessageStart)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "I will read the file now."
    assert [e.block["type"] for e in events if isinstance(e, BlockStop)] == ["thinking", "text", "tool_use"]
    assert len(sent) == 1 and sent[0].stream is stream
    if stream and wire == "anthropic":
        assert sum(isinstance(e, TextDelta) for e in events) >= 2, "text arrives in pieces when streaming"


async def test_anthropic_request_headers_and_body():
    with ScriptedServer([{"content": "ok"}]) as srv:
        await collect(make_provider("anthropic", srv), make_request())
        sent = srv.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-test" and sent.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in sent.headers
    assert sent.body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert sent.body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert sent.body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


async def test_anthropic_auth_token_is_sent_as_bearer():
    with ScriptedServer([{"content": "ok"}]) as srv:
        provider = AnthropicProvider.from_env(
            {
                "ANTHROPIC_AUTH_TOKEN": "tok",
                "ANTHROPIC_BASE_URL": srv.url,
                "ANTHROPIC_CUSTOM_HEADERS": "X-Team: core",
            }
        )
        await collect(provider, make_request())
        headers = srv.requests[0].headers
    assert headers["authorization"] == "Bearer tok" and "x-api-key" not in headers
    assert headers["x-team"] == "core"


async def test_openai_request_shape_and_no_key_for_local_servers():
    with ScriptedServer([{"content": "ok"}]) as srv:
        provider = OpenAIProvider.from_env({"OPENAI_BASE_URL": srv.openai_url})
        events = await collect(provider, make_request(model="llama3"))
        sent = srv.requests[0]
    assert final(events).message["content"] == [{"type": "text", "text": "ok"}]
    assert sent.path == "/v1/chat/completions" and "authorization" not in sent.headers
    assert sent.body["max_tokens"] == 1024 and "max_completion_tokens" not in sent.body
    assert sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["messages"][0] == {"role": "system", "content": "You are a test."}
    assert sent.body["tools"][0]["function"]["name"] == "Read"


async def test_openai_interleaved_tool_calls_are_reassembled():
    calls = [
        {"type": "tool_use", "id": "c1", "name": "Read", "input": {"file_path": "/one/two/three.txt"}},
        {"type": "tool_use", "id": "c2", "name": "Bash", "input": {"command": "echo a long enough command"}},
    ]
    with ScriptedServer([{"content": calls, "interleave_tool_calls": True}]) as srv:
        events = await collect(make_provider("openai", srv), make_request())
    assert final(events).message["content"] == calls


async def test_a_conversation_with_tool_results_round_trips_through_both_wires():
    messages = [
        {"role": "user", "content": "Read it"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello"}]},
    ]
    for wire in WIRES:
        # The scripted server rejects, as the real APIs do, a tool call left without its result.
        with ScriptedServer([{"content": "It says hello."}]) as srv:
            request = make_request()
            request.messages = messages
            events = await collect(make_provider(wire, srv), request)
        assert final(events).message["content"] == [{"type": "text", "text": "It says hello."}]


# ---- malformed tool input --------------------------------------------------------------------------


@pytest.mark.parametrize("wire", ["anthropic", "openai", "responses"])  # Gemini: see test_provider_gemini
@pytest.mark.parametrize("stream", [True, False])
async def test_malformed_tool_json_gives_input_error(wire, stream):
    block = {"type": "tool_use", "id": "toolu_bad", "name": "Read", "raw_input": '{"file_path": "/a'}
    with ScriptedServer([{"content": [block]}]) as srv:
        events = await collect(make_provider(wire, srv), make_request(stream))
    stop = final(events)
    assert stop.message["content"][0]["input"] == {}
    assert set(stop.input_errors) == {"toolu_bad"}
    tool_stop = next(e for e in events if isinstance(e, BlockStop))
    assert tool_stop.input_error == stop.input_errors["toolu_bad"]


# ---- retried statuses --------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
async def test_429_with_retry_after_is_retried_after_the_servers_wait(wire):
    sleeps = Sleeps()
    turn = {"content": "finally", "fault": {"status": 429, "retry_after": 3, "times": 2}}
    with ScriptedServer([turn]) as srv:
        events = await collect(make_provider(wire, srv, sleeps=sleeps), make_request())
        count = len(srv.requests)
    notices = [e for e in events if isinstance(e, RetryNotice)]
    assert [(n.attempt, n.status, n.delay_s) for n in notices] == [(1, 429, 3.0), (2, 429, 3.0)]
    assert sleeps.delays == [3.0, 3.0] and count == 3
    assert not any(n.discard_partial for n in notices)
    assert final(events).message["content"] == [{"type": "text", "text": "finally"}]
    assert events.index(notices[-1]) < events.index(next(e for e in events if isinstance(e, MessageStart)))


@pytest.mark.parametrize(
    ("wire", "status"),
    [
        ("anthropic", 529),
        ("anthropic", 500),
        ("openai", 500),
        ("openai", 503),
        ("gemini", 503),
        ("responses", 500),
    ],
)
async def test_overloaded_and_server_errors_are_retried(wire, status):
    turn = {"content": "recovered", "fault": {"status": status, "times": 1}}
    with ScriptedServer([turn]) as srv:
        events = await collect(make_provider(wire, srv), make_request())
    notices = [e for e in events if isinstance(e, RetryNotice)]
    assert len(notices) == 1 and notices[0].status == status and notices[0].max_retries == 3
    assert final(events).message["content"] == [{"type": "text", "text": "recovered"}]


async def test_retries_run_out_with_a_clear_error():
    turn = {"content": "never", "fault": {"status": 529, "times": "always"}}
    with ScriptedServer([turn]) as srv:
        provider = make_provider("anthropic", srv, max_retries=2)
        with pytest.raises(ProviderError) as info:
            await collect(provider, make_request())
        assert len(srv.requests) == 3
    assert info.value.kind == "overloaded" and info.value.status == 529
    assert "gave up after 2 retries" in str(info.value)


async def test_retry_settings_come_from_the_environment():
    turn = {"content": "ok", "fault": {"status": 500, "times": "always"}}
    with ScriptedServer([turn]) as srv:
        env = {
            "ANTHROPIC_API_KEY": "k",
            "ANTHROPIC_BASE_URL": srv.url,
            "CLAUDE_CODE_MAX_RETRIES": "1",
            "YOKE_RETRY_BASE_DELAY": "0.001",
        }
        with pytest.raises(ProviderError) as info:
            await collect(AnthropicProvider.from_env(env), make_request())
        assert len(srv.requests) == 2
    assert info.value.kind == "server"


# ---- broken streams ------------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(
    "fault",
    [{"cut_after": 5}, {"idle_after": 4, "idle_seconds": 5}, {"stream_error_after": 4}],
    ids=["cut", "idle", "error-event"],
)
async def test_broken_stream_is_retried_once_without_streaming(wire, fault):
    with ScriptedServer([{"content": ANSWER, "fault": fault}]) as srv:
        events = await collect(make_provider(wire, srv, idle=0.3), make_request())
        sent = srv.requests
    discards = [e for e in events if isinstance(e, RetryNotice) and e.discard_partial]
    assert len(discards) == 1 and "without streaming" in discards[0].error
    if "idle_after" in fault:  # an idle stream is told apart from a broken one
        assert "no data from the API for 0.3 s" in discards[0].error
    assert [r.stream for r in sent] == [True, False]
    kept = after_restart(events)
    assert isinstance(kept[0], MessageStart)
    assert comparable(final(kept).message["content"]) == expected_content(wire)
    assert sum(isinstance(e, MessageStart) for e in kept) == 1


# ---- errors the user must fix ----------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(
    ("fault", "kind", "words"),
    [
        ({"status": 401}, "authentication", ["Invalid API key", "API_KEY"]),
        ({"status": 403}, "permission", ["403"]),
        ({"status": 404}, "not_found", ["model 'no-such-model' not found", "--model"]),
        ({"status": 400, "prompt_too_long": True}, "prompt_too_long", ["Prompt is too long"]),
        ({"status": 400}, "invalid_request", ["rejected"]),
    ],
)
async def test_client_errors_are_one_clear_line(wire, fault, kind, words):
    with ScriptedServer([{"content": "x", "fault": fault}]) as srv:
        with pytest.raises(ProviderError) as info:
            await collect(make_provider(wire, srv), make_request(model="no-such-model"))
        assert len(srv.requests) == 1, "client errors are not retried"
    message = str(info.value)
    assert info.value.kind == kind and info.value.status == fault["status"]
    assert "\n" not in message
    for word in words:
        assert word in message
    if kind == "authentication":
        assert KEY_VARIABLES[wire] in message


@pytest.mark.parametrize("wire", WIRES)
async def test_unreachable_base_url_is_a_connection_error_naming_it(wire):
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sleeps = Sleeps()
    policy = RetryPolicy(max_retries=2, base_delay=0.001, sleep=sleeps)
    url = f"http://127.0.0.1:{port}"
    if wire == "anthropic":
        provider = AnthropicProvider(api_key="k", base_url=url, retry=policy)
    elif wire == "gemini":
        provider = GeminiProvider(api_key="k", base_url=url + "/v1beta", retry=policy)
    elif wire == "responses":
        provider = ResponsesProvider(base_url=url + "/v1", retry=policy)
    else:
        provider = OpenAIProvider(base_url=url + "/v1", retry=policy)
    events = []
    with pytest.raises(ProviderError) as info:
        async for event in provider.stream(make_request()):
            events.append(event)
    await provider.aclose()
    assert info.value.kind == "connection" and url in str(info.value)
    assert "BASE_URL" in str(info.value) and "\n" not in str(info.value)
    assert [e.attempt for e in events if isinstance(e, RetryNotice)] == [1, 2] and len(sleeps.delays) == 2


@pytest.mark.parametrize(
    ("provider", "variable"),
    [
        (AnthropicProvider(), "ANTHROPIC_API_KEY"),
        (OpenAIProvider(), "OPENAI_API_KEY"),
        (GeminiProvider(), "GEMINI_API_KEY"),
        (ResponsesProvider(), "OPENAI_API_KEY"),
    ],
)
async def test_missing_key_for_the_real_endpoint_says_which_variable(provider, variable):
    with pytest.raises(ProviderError) as info:
        await collect(provider, make_request())
    assert info.value.kind == "authentication" and variable in str(info.value)


async def test_base_url_without_scheme_fails_at_once_as_config():
    sleeps = Sleeps()
    provider = AnthropicProvider(api_key="k", base_url="localhost:9", retry=RetryPolicy(sleep=sleeps))
    with pytest.raises(ProviderError) as info:
        await collect(provider, make_request())
    assert info.value.kind == "config" and "localhost:9" in str(info.value) and sleeps.delays == []


async def test_an_interrupt_landing_as_a_read_completes_is_not_lost(monkeypatch):
    """A cancellation that arrives in the very step in which the socket read returns data must end the
    stream (asyncio.wait_for on Python 3.11 swallowed it, and a UI's Esc did nothing)."""
    import asyncio

    consumer: asyncio.Task | None = None
    reads = 0
    real_read = asyncio.StreamReader.read

    async def read_then_interrupt(self, n=-1):
        nonlocal reads
        data = await real_read(self, n)
        reads += 1
        if reads == 2 and consumer is not None:
            consumer.cancel()  # the interrupt lands now, with the data already in hand
        return data

    monkeypatch.setattr(asyncio.StreamReader, "read", read_then_interrupt)
    long_answer = " ".join(f"w{i}" for i in range(400))
    with ScriptedServer([{"content": long_answer, "delay": 0.005}]) as srv:
        provider = make_provider("anthropic", srv)
        seen: list = []

        async def consume() -> None:
            async for event in provider.stream(make_request(model="claude-sonnet-4-5")):
                seen.append(event)

        consumer = asyncio.ensure_future(consume())
        with pytest.raises(asyncio.CancelledError):
            await consumer
        await provider.aclose()
    assert not any(isinstance(e, MessageStop) for e in seen)
