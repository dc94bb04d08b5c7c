"""History messages are encoded once and the last body edited at its end; the body reads back as the dict it
came from, byte for byte what a fresh encoder makes."""

from __future__ import annotations

import json

from yoke.providers.encode import BodyEncoder


def test_body_round_trips_and_dead_messages_go():
    encoder = BodyEncoder()
    first = {"role": "user", "content": "héllo \u2603"}
    second = {"role": "assistant", "content": [{"type": "text", "text": 'quote " and \\ backslash'}]}
    body = {"model": "m", "max_tokens": 5, "messages": [first, second], "stream": True}
    assert json.loads(encoder.encode(body)) == body
    third = {"role": "user", "content": "z"}
    grown = {**body, "messages": [first, second, third]}
    assert json.loads(encoder.encode(grown)) == grown
    assert encoder._messages.held() == 3
    compacted = {"model": "m", "messages": [{"role": "user", "content": "summary"}, third]}
    assert json.loads(encoder.encode(compacted)) == compacted
    for _ in range(8):
        grown = {**compacted, "messages": [*compacted["messages"], {"role": "user", "content": "more"}]}
        assert json.loads(encoder.encode(grown)) == grown
        compacted = grown
    assert encoder._messages.held() == len(compacted["messages"])  # the replaced history is not kept alive


def test_a_replaced_message_is_encoded_anew():
    encoder = BodyEncoder()
    message = {"role": "user", "content": "a"}
    encoder.encode({"messages": [message]})
    replacement = {"role": "user", "content": "b"}
    assert json.loads(encoder.encode({"messages": [replacement]}))["messages"][0]["content"] == "b"
    assert json.loads(encoder.encode({})) == {}


def test_an_edited_body_is_byte_for_byte_a_fresh_one():
    """Grown, rewound, its last messages replaced (moved cache marks), a new system prompt, a history of
    another agent in between: each body is what an encoder that never saw the earlier ones makes."""
    kept = BodyEncoder()
    history = [{"role": "user", "content": f"m{i} é"} for i in range(6)]
    marked = [
        *history[:-1],
        {**history[-1], "content": [{"type": "text", "text": "m5 é", "cache_control": {}}]},
    ]
    other = [{"role": "user", "content": "sub-agent"}]
    longer = [{"role": "assistant", "content": "a longer message than those it replaces"}] * 3
    bodies = [
        {"model": "m", "messages": history[:3], "stream": True},
        {"model": "m", "messages": history, "stream": True},
        {"model": "m", "messages": marked, "stream": True},
        {"model": "m", "messages": history[:2], "stream": True},
        {"model": "m", "messages": [*history[:2], *longer], "stream": True},
        {"model": "m", "messages": [*history[:2], *longer, *history], "stream": True},
        {"model": "m", "messages": other, "stream": True},
        {"model": "m", "system": [{"type": "text", "text": "new"}], "messages": history, "stream": True},
        {"model": "m", "messages": [], "stream": True},
        {"messages": history},
        {"model": "m", "messages": history[:4], "stream": True},
    ]
    for body in bodies:
        encoded = kept.encode(body)
        assert encoded == BodyEncoder().encode(body) and json.loads(encoded) == body


def test_a_wire_whose_history_has_another_name_is_kept_too():
    """Gemini sends its history as "contents", the Responses API as "input": rebuilt as fresh but equal
    items each request, which the encoder still recognises."""
    encoder = BodyEncoder("contents")
    history: list[dict] = []
    for turn in range(6):
        history = [dict(item) for item in history]  # fresh objects, as each request converts anew
        history.append({"role": "user" if turn % 2 else "model", "parts": [{"text": f"turn {turn}"}]})
        body = {"contents": history, "systemInstruction": {"parts": [{"text": "be brief"}]}, "n": turn}
        encoded = encoder.encode(body)
        assert json.loads(encoded) == body
        assert encoded == BodyEncoder("contents").encode(body)
    assert encoder._messages.held() == len(history)
    assert json.loads(BodyEncoder("input").encode({"input": [], "model": "m"})) == {"input": [], "model": "m"}
