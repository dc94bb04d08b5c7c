"""The stream-json mapping both ways (`wire/stream.py` writes, `wire/decode.py` reads, `wire/table.py` lists):
every event class is listed, and every carried one, with random field values, comes back as what the table
says with the same fields. The port's ops round-trip through `wire/ops.py` too."""

from __future__ import annotations

import random
import string
from types import SimpleNamespace
from typing import Any, get_args

import pytest

from yoke import events as ev
from yoke.events import port
from yoke.providers import base as pb
from yoke.seams import Answer
from yoke.wire.decode import message_events
from yoke.wire.ops import OP_NAMES, op_from_wire, op_to_wire
from yoke.wire.stream import StreamLines
from yoke.wire.table import CARRIED, PORT_CARRIED


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + " éü✓") for _ in range(rng.randint(1, 30)))


def _samples(rng: random.Random) -> dict[type, tuple[list[Any], Any]]:
    """class -> (the events fed to the writer, a check of what is read back)."""
    text, thought, ident, name = (
        _word(rng),
        _word(rng),
        f"toolu_{rng.randrange(10**6)}",
        rng.choice(["Bash", "Read"]),
    )
    tool_input = {"command": _word(rng), "n": rng.randrange(100)}
    usage = pb.Usage(rng.randrange(1000), rng.randrange(1000))
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": text},
            {"type": "tool_use", "id": ident, "name": name, "input": tool_input},
        ],
    }
    assistant = ev.AssistantMessage(message, "msg_1", "claude-x", "tool_use", usage, "u1")
    block = {"type": "tool_result", "tool_use_id": ident, "content": text, "is_error": False}
    result_event = ev.ToolResultEvent(ident, name, block, {"stdout": text})
    results = ev.ToolResultsMessage({"role": "user", "content": [block]}, "u2", [result_event])
    cost = round(rng.random(), 4)
    result = ev.Result("completed", False, text, rng.randint(1, 9), 10, 5, cost, usage, {}, [])
    started = ev.SessionStarted("sid", "claude-x", "/w", ["Bash", "Read"], "acceptEdits", "anthropic")
    return {  # fmt: skip
        ev.SessionStarted: (
            [started],
            lambda e: (
                (e.session_id, e.model, e.tools, e.permission_mode)
                == ("sid", "claude-x", ["Bash", "Read"], "acceptEdits")
            ),
        ),
        ev.StreamEvent: ([ev.StreamEvent(pb.TextDelta(0, text))], lambda e: e.text == text),
        ev.TextDelta: ([ev.StreamEvent(pb.TextDelta(0, text))], lambda e: e.text == text),
        ev.ThinkingDelta: ([ev.StreamEvent(pb.ThinkingDelta(0, thought))], lambda e: e.thinking == thought),
        ev.ToolCallStarted: ([assistant], lambda e: (e.tool_use_id, e.name) == (ident, name)),
        ev.ToolCallCompleted: (
            [assistant],
            lambda e: (e.tool_use_id, e.name, e.input) == (ident, name, tool_input),
        ),
        ev.AssistantMessage: (
            [assistant],
            lambda e: e.id == "msg_1" and e.usage.input_tokens == usage.input_tokens,
        ),
        ev.ToolResultEvent: ([results], lambda e: (e.tool_use_id, e.data) == (ident, {"stdout": text})),
        ev.ToolResultsMessage: ([results], lambda e: (e.tool_use_id, e.block["content"]) == (ident, text)),
        ev.ContinuationMessage: (
            [ev.ContinuationMessage({"role": "user", "content": text}, "u3")],
            lambda e: e.message["content"][0]["text"] == text,
        ),
        ev.Notice: ([ev.Notice("warning", text)], lambda e: (e.kind, e.message) == ("warning", text)),
        ev.Compacted: ([ev.Compacted("auto", 1234)], lambda e: (e.trigger, e.pre_tokens) == ("auto", 1234)),
        ev.TaskEvent: (
            [ev.TaskEvent("started", "t1", ident, {"description": text, "prompt": text})],
            lambda e: (
                (e.phase, e.task_id, e.tool_use_id, e.data["description"]) == ("started", "t1", ident, text)
            ),
        ),
        ev.Result: (
            [result],
            lambda e: (
                (e.text, e.num_turns, e.total_cost_usd, e.reason)
                == (text, result.num_turns, cost, "completed")
            ),
        ),
    }


def test_every_event_class_is_in_the_table():
    for cls in get_args(ev.Event):
        assert cls in CARRIED, f"{cls.__name__}: say in wire/table.py how it travels"
    for cls in port.PORT_EVENTS:
        assert cls in PORT_CARRIED, f"{cls.__name__}: say in wire/table.py how it travels"


@pytest.mark.parametrize("seed", range(20))
def test_every_carried_event_class_round_trips(seed):
    rng = random.Random(seed)
    samples = _samples(rng)
    carried = {cls: row for cls, row in CARRIED.items() if row is not None}
    assert set(carried) == set(samples)
    for cls, (_line, read_as) in carried.items():
        fed, check = samples[cls]
        writer = StreamLines(partial=True)
        lines = [line for event in fed for line in writer.lines(event)]
        assert lines, f"{cls.__name__} made no line"
        state = SimpleNamespace(model="", permission_mode="default", total_cost_usd=0.0)
        back = [e for line in lines for e in message_events(state, line, False)]
        found = [e for e in back if isinstance(e, read_as)]
        assert found and any(check(e) for e in found), (cls.__name__, lines, back)


def test_every_op_round_trips():
    ops = [
        port.Prompt("hello", id="p1"), port.Prompt([{"type": "text", "text": "x"}]), port.Interrupt(drop_queue=True),
        port.Reply("r1", Answer("allow", updated_input={"a": 1}), by="here"),
        port.Reply("r4", Answer("allow", mode="acceptEdits")), port.Reply("r2", Answer("deny", "no")),
        port.Reply("r5", Answer("allow", remember=True)),  # "allow for this session"
        port.Reply("r3", {"Which?": "A"}), port.SetMode("plan"), port.SetModel("haiku"), port.Compact("keep it short"),
        port.Rewind("m1"), port.StopTask("t1"), port.McpReconnect("srv"), port.McpEnable("srv", False),
        port.Describe("hooks"),
    ]  # fmt: skip
    assert {type(op) for op in ops} == {cls for cls, _ in OP_NAMES.values()} == set(port.OPS)
    for op in ops:
        back = op_from_wire(op_to_wire(op))
        if isinstance(op, port.Reply) and isinstance(op.answer, Answer):
            assert (
                back.answer.behavior == op.answer.behavior
                and back.answer.updated_input == op.answer.updated_input
                and back.answer.mode == op.answer.mode
                and back.answer.remember == op.answer.remember
            )
            continue
        assert back == op
    with pytest.raises(ValueError):
        op_from_wire({"op": "nonsense"})
