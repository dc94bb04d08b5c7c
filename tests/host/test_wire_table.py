"""`wire/table.py` drives both directions: the writer (`wire/stream.py`) writes an event class with the method
the table names for it, the reader (`wire/decode.py`) reads a line kind with the function the table names,
and the line kinds each class is listed with are the ones its writer makes."""

from __future__ import annotations

import random
from types import SimpleNamespace

from test_wire_roundtrip import _samples  # (tests/host is on the path: pytest prepends it)

from yoke import events as ev
from yoke.providers import base as pb
from yoke.wire import decode, table
from yoke.wire.stream import StreamLines


def _kind(line: dict) -> str:
    return f"{line['type']}/{line['subtype']}" if line["type"] == "system" else line["type"]


def test_every_named_writer_and_reader_exists():
    writer = StreamLines()
    for cls, name in table.WRITE.items():
        assert callable(getattr(writer, name)), (cls.__name__, name)
    for kind, name in table.READ.items():
        assert callable(getattr(decode, name)), (kind, name)


def test_each_class_writes_the_line_kinds_the_table_lists_and_they_read_back():
    samples = _samples(random.Random(7))
    for cls, row in table.ROWS.items():
        if cls not in samples or not row.write:
            continue
        writer = StreamLines()
        kinds = {_kind(line) for event in samples[cls][0] for line in writer.lines(event)}
        kinds -= {"system/status"}  # the status lines beside them (wire/status.py)
        assert kinds and kinds <= {*row.lines, *row.unread}, (cls.__name__, kinds, row.lines)
        assert all(table.READ.get(kind) == row.read for kind in kinds - set(row.unread)), cls.__name__


def test_the_table_is_what_the_writer_follows(monkeypatch):
    usage = pb.Usage(1, 2)
    result = ev.Result("completed", False, "done", 1, 10, 5, 0.1, usage, {}, [])
    assert [line["type"] for line in StreamLines().lines(result)] == ["result"]
    monkeypatch.delitem(table.WRITE, ev.Result)
    assert StreamLines().lines(result) == []


def test_the_table_is_what_the_reader_follows(monkeypatch):
    state = SimpleNamespace(model="", permission_mode="default", total_cost_usd=0.0)
    line = {"type": "system", "subtype": "compact_boundary", "compact_metadata": {"trigger": "auto"}}
    assert [type(e) for e in decode.message_events(state, line, False)] == [ev.Compacted]
    monkeypatch.delitem(table.READ, "system/compact_boundary")
    assert decode.message_events(state, line, False) == []
