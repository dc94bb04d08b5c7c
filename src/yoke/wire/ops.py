"""The session port's ops (`yoke.events.port`) as JSON, both ways: what the host's one `op` method carries
(docs/wire.md). A `Reply`'s answer travels as the `can_use_tool` response object (the Agent SDK's shape)."""

from __future__ import annotations

from typing import Any

from yoke.events import port
from yoke.seams import Answer, plan_mode_choice

# op name on the wire -> (class, its fields)
OP_NAMES: dict[str, tuple[type, tuple[str, ...]]] = {
    "prompt": (port.Prompt, ("content", "id")),
    "interrupt": (port.Interrupt, ("drop_queue",)),
    "reply": (port.Reply, ("request_id", "answer", "by")),
    "set_mode": (port.SetMode, ("mode",)),
    "set_model": (port.SetModel, ("model",)),
    "compact": (port.Compact, ("instructions",)),
    "rewind": (port.Rewind, ("user_message_id",)),
    "stop_task": (port.StopTask, ("task_id",)),
    "mcp_reconnect": (port.McpReconnect, ("server",)),
    "mcp_enable": (port.McpEnable, ("server", "enabled")),
    "describe": (port.Describe, ("what",)),
}
NAME_OF = {cls: name for name, (cls, _) in OP_NAMES.items()}


def op_to_wire(op: port.Op) -> dict[str, Any]:
    name = NAME_OF[type(op)]
    out: dict[str, Any] = {"op": name}
    for field in OP_NAMES[name][1]:
        value = getattr(op, field)
        out[field] = answer_to_wire(value) if field == "answer" else value
    return out


def op_from_wire(data: Any) -> port.Op:
    """ValueError (one line) for what is not an op."""
    if not isinstance(data, dict) or data.get("op") not in OP_NAMES:
        raise ValueError(f"op must be an object whose `op` is one of {', '.join(OP_NAMES)}")
    cls, fields = OP_NAMES[data["op"]]
    values = {f: data[f] for f in fields if f in data}
    if "answer" in values:
        values["answer"] = answer_from_wire(values["answer"])
    try:
        op: port.Op = cls(**values)
    except TypeError as exc:
        raise ValueError(f"{data['op']}: {exc}") from None
    return op


def answer_to_wire(answer: Any) -> Any:
    """An `Answer` as the `can_use_tool` response object; anything else (AskUserQuestion's mapping) as is."""
    if not isinstance(answer, Answer):
        return answer
    if answer.behavior == "allow":
        reply: dict[str, Any] = {"behavior": "allow"}
        if answer.updated_input is not None:
            reply["updatedInput"] = answer.updated_input
        if answer.mode is not None:  # an approved plan's mode to go on in
            reply["updatedPermissions"] = [{"type": "setMode", "mode": answer.mode, "destination": "session"}]
        if answer.remember:  # "allow for this session": the session adds its narrow rules for the call
            reply["remember"] = "session"
        return reply
    return {"behavior": "deny", "message": answer.message or "Denied.", "interrupt": answer.interrupt}


def answer_from_wire(data: Any) -> Any:
    if not isinstance(data, dict) or data.get("behavior") not in ("allow", "deny"):
        return data
    if data["behavior"] == "allow":
        updated = data.get("updatedInput")
        given = data.get("updatedPermissions")
        mode, _ = plan_mode_choice(given if isinstance(given, list) else [])
        remember = data.get("remember") == "session"
        return Answer("allow", updated_input=updated if isinstance(updated, dict) else None, mode=mode,
                      remember=remember)  # fmt: skip
    return Answer("deny", str(data.get("message") or "Denied."), interrupt=bool(data.get("interrupt")))
