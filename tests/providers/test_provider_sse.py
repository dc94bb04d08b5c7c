"""The SSE parser: framing rules that real servers exercise (split chunks, CRLF, comments, multi-line data)."""

from __future__ import annotations

from yoke.providers.sse import SSEEvent, SSEParser


def parse_all(*chunks: str, close: bool = True) -> list[SSEEvent]:
    parser = SSEParser()
    events = []
    for chunk in chunks:
        events += parser.feed(chunk)
    if close:
        events += parser.close()
    return events


def test_named_event_and_default_name():
    events = parse_all('event: message_start\ndata: {"a":1}\n\ndata: plain\n\n')
    assert events == [SSEEvent("message_start", '{"a":1}'), SSEEvent("message", "plain")]


def test_multi_line_data_is_joined_with_newlines():
    assert parse_all("data: one\ndata: two\ndata:three\n\n") == [SSEEvent("message", "one\ntwo\nthree")]


def test_comments_and_unknown_fields_are_ignored():
    events = parse_all(": keep-alive\n\nid: 7\nretry: 100\nevent: ping\ndata: {}\n\n")
    assert events == [SSEEvent("ping", "{}")]


def test_event_split_at_every_position_parses_the_same():
    text = 'event: content_block_delta\r\ndata: {"x": "y"}\r\n\r\nevent: message_stop\rdata: {}\r\r'
    whole = parse_all(text)
    assert whole == [SSEEvent("content_block_delta", '{"x": "y"}'), SSEEvent("message_stop", "{}")]
    for cut in range(1, len(text)):
        assert parse_all(text[:cut], text[cut:]) == whole, f"split at {cut}"


def test_crlf_split_between_chunks_is_one_line_end():
    # A CR at the end of a chunk must not end the event early when the LF follows in the next chunk.
    events = parse_all("data: a\r", "\ndata: b\r\n\r\n")
    assert events == [SSEEvent("message", "a\nb")]


def test_half_built_event_at_end_of_stream_is_dropped():
    assert parse_all("data: complete\n\ndata: cut mid-ev") == [SSEEvent("message", "complete")]
    assert parse_all("data: no blank line\n") == []


def test_only_one_leading_space_is_stripped():
    assert parse_all("data:  two spaces\n\n") == [SSEEvent("message", " two spaces")]


def test_blank_line_without_data_dispatches_nothing():
    assert parse_all("event: lonely\n\n\n\n") == []


def test_events_come_out_as_soon_as_they_are_complete():
    parser = SSEParser()
    assert parser.feed("data: first\n") == []
    assert parser.feed("\ndata: sec") == [SSEEvent("message", "first")]
    assert parser.feed("ond\n\n") == [SSEEvent("message", "second")]


def test_every_line_ending_and_every_split_give_the_same_events():
    """LF-only text takes a faster path than text with CRs: both must follow the same rules."""
    lf = (
        ': keep-alive\n\nevent: message_start\ndata: {"a": 1}\n\ndata:  two spaces\ndata:\nid: 3\n\n'
        "event: ping\n\nevent: delta\ndata: x:y\n\n"
    )
    expected = [
        SSEEvent("message_start", '{"a": 1}'),
        SSEEvent("message", " two spaces\n"),
        SSEEvent("delta", "x:y"),
    ]
    for text in (lf, lf.replace("\n", "\r\n"), lf.replace("\n", "\r")):
        assert parse_all(text) == expected, repr(text)
        for cut in range(1, len(text)):
            assert parse_all(text[:cut], text[cut:]) == expected, f"split at {cut} of {text!r}"
    mixed = "data: a\n\ndata: b\r\n\r\n"  # a chunk may hold both
    assert parse_all(mixed[:9], mixed[9:]) == [SSEEvent("message", "a"), SSEEvent("message", "b")]
