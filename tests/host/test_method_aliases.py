"""The host's older methods `prompt`, `answer`, `interrupt` and `control` are aliases of `op`: each builds
the op it stands for and goes through the one op path (docs/wire.md)."""

from __future__ import annotations

import asyncio

import pytest

from yoke.host import methods
from yoke.host.protocol import ProtocolError


def _through_op(monkeypatch, method: str, params: dict) -> dict:
    seen: list[dict] = []

    async def op(host, client, ident, given):
        seen.append(given["op"])
        return {"via": "op"}

    monkeypatch.setattr(methods, "_op", op)
    reply = asyncio.run(methods.METHODS[method](None, None, "1", {"session": "s", **params}))
    assert reply == {"via": "op"}
    assert len(seen) == 1
    return seen[0]


def test_prompt_is_the_prompt_op(monkeypatch):
    assert _through_op(monkeypatch, "prompt", {"text": "hi"}) == {"op": "prompt", "content": "hi"}


def test_answer_is_the_reply_op_with_the_response_whole(monkeypatch):
    response = {"behavior": "allow", "updatedInput": {"a": 1}}
    op = _through_op(monkeypatch, "answer", {"request_id": "r1", "response": response})
    assert op == {"op": "reply", "request_id": "r1", "answer": response}


def test_interrupt_is_the_interrupt_op(monkeypatch):
    assert _through_op(monkeypatch, "interrupt", {}) == {"op": "interrupt"}


@pytest.mark.parametrize(
    ("request_", "op"),
    [
        ({"subtype": "set_permission_mode", "mode": "plan"}, {"op": "set_mode", "mode": "plan"}),
        ({"subtype": "set_model", "model": "m"}, {"op": "set_model", "model": "m"}),
        ({"subtype": "interrupt"}, {"op": "interrupt"}),
        (
            {"subtype": "mcp_toggle", "serverName": "x", "enabled": False},
            {"op": "mcp_enable", "server": "x", "enabled": False},
        ),
    ],
)
def test_control_is_the_op_its_subtype_stands_for(monkeypatch, request_, op):
    assert _through_op(monkeypatch, "control", {"request": request_}) == op


def test_every_alias_op_is_an_op_the_wire_knows():
    from yoke.wire.ops import OP_NAMES, op_from_wire

    for name, fields in methods.CONTROL_OPS.values():
        assert name in OP_NAMES
        assert set(fields) <= set(OP_NAMES[name][1])
    op_from_wire({"op": "mcp_enable", "server": "x", "enabled": True})


def test_a_control_subtype_without_an_op_is_refused_in_one_line():
    with pytest.raises(ProtocolError, match="subtype is one of"):
        asyncio.run(methods._control(None, None, "1", {"session": "s", "request": {"subtype": "bogus"}}))
