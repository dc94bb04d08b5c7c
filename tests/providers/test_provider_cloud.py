"""Bedrock/Vertex: what can be checked offline (a missing SDK, event mapping, SDK error mapping)."""

from __future__ import annotations

import sys

import pytest

from yoke.providers.base import BlockStop, MessageStart, MessageStop, ModelRequest, ProviderError, TextDelta
from yoke.providers.cloud import CloudProvider


def make_request(stream: bool = True) -> ModelRequest:
    return ModelRequest(
        model="us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        messages=[{"role": "user", "content": "hi"}],
        system=[{"type": "text", "text": "sys"}],
        stream=stream,
    )


class Event:
    """Stands in for an SDK event object (a pydantic model with `type` and `model_dump`)."""

    def __init__(self, data: dict):
        self.data = data

    def model_dump(self, **_: object) -> dict:
        return self.data


class FakeStream:
    def __init__(self, events: list[dict]):
        self.events = events

    def __aiter__(self):
        return self._gen()

    async def _gen(self):
        for data in self.events:
            yield Event(data)


class FakeMessages:
    def __init__(self, outcome):
        self.outcome = outcome
        self.calls: list[dict] = []

    async def create(self, **kwargs):
        self.calls.append(kwargs)
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


class FakeClient:
    def __init__(self, outcome):
        self.messages = FakeMessages(outcome)
        self.closed = False

    async def close(self):
        self.closed = True


STREAM = [
    {
        "type": "message_start",
        "message": {"id": "msg_b", "model": "bedrock-model", "usage": {"input_tokens": 9}},
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " cloud"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}},
    {"type": "message_stop"},
]


async def collect(provider, request):
    return [e async for e in provider.stream(request)]


async def test_missing_sdk_says_which_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "anthropic", None)  # makes `import anthropic` fail
    for platform in ("bedrock", "vertex"):
        provider = CloudProvider.from_env(platform, {})
        with pytest.raises(ProviderError) as info:
            await collect(provider, make_request())
        assert info.value.kind == "config"
        assert f"pip install 'yoke[{platform}]'" in str(info.value)
    assert "Bedrock needs the anthropic package" in str(info.value) or "Vertex AI needs" in str(info.value)


async def test_sdk_stream_events_become_provider_events():
    client = FakeClient(FakeStream(STREAM))
    provider = CloudProvider("bedrock", client=client)
    events = await collect(provider, make_request())
    assert isinstance(events[0], MessageStart) and events[0].id == "msg_b"
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hello", " cloud"]
    assert any(isinstance(e, BlockStop) for e in events)
    stop = events[-1]
    assert isinstance(stop, MessageStop)
    assert stop.message == {"role": "assistant", "content": [{"type": "text", "text": "Hello cloud"}]}
    assert (stop.usage.input_tokens, stop.usage.output_tokens, stop.stop_reason) == (9, 4, "end_turn")
    call = client.messages.calls[0]
    assert call["stream"] is True and call["model"] == "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert call["system"][-1]["cache_control"] == {"type": "ephemeral"}
    await provider.aclose()
    assert client.closed


async def test_sdk_non_streaming_message():
    message = Event(
        {
            "id": "msg_v",
            "type": "message",
            "model": "vertex-model",
            "content": [{"type": "text", "text": "whole"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 3, "output_tokens": 1},
        }
    )
    client = FakeClient(message)
    events = await collect(CloudProvider("vertex", client=client), make_request(stream=False))
    assert events[-1].message["content"] == [{"type": "text", "text": "whole"}]
    assert "stream" not in client.messages.calls[0]


async def test_stream_that_stops_early_is_an_error():
    provider = CloudProvider("bedrock", client=FakeClient(FakeStream(STREAM[:3])))
    with pytest.raises(ProviderError) as info:
        await collect(provider, make_request())
    assert info.value.kind == "connection"


class APIStatusError(Exception):
    """Shaped like the SDK's exception: a status code and the parsed error body."""

    def __init__(self, status_code: int, body: dict):
        super().__init__(body["error"]["message"])
        self.status_code = status_code
        self.body = body


class NoCredentialsError(Exception):
    pass


@pytest.mark.parametrize(
    ("exc", "kind", "words"),
    [
        (
            APIStatusError(
                404, {"type": "error", "error": {"type": "not_found_error", "message": "no model"}}
            ),
            "not_found",
            ["--model"],
        ),
        (
            APIStatusError(
                403, {"type": "error", "error": {"type": "permission_error", "message": "denied"}}
            ),
            "permission",
            ["AWS"],
        ),
        (
            APIStatusError(
                400,
                {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": "prompt is too long: 1 > 0"},
                },
            ),
            "prompt_too_long",
            ["too long"],
        ),
        (NoCredentialsError("Unable to locate credentials"), "authentication", ["AWS credentials"]),
    ],
)
async def test_sdk_errors_become_one_line_provider_errors(exc, kind, words):
    provider = CloudProvider("bedrock", client=FakeClient(exc))
    with pytest.raises(ProviderError) as info:
        await collect(provider, make_request())
    assert info.value.kind == kind and "\n" not in str(info.value)
    for word in words:
        assert word in str(info.value)
