"""History messages are encoded once and joined; the body reads back as the dict it came from."""

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
