"""Messages between the host's sessions (issue 46): a hosted session's `ListAgents` and `SendMessage` ask
the host over the control protocol (`control_request` subtype `yoke_host`, answered on its stdin), and the
host answers from its own sessions.

- `list_agents`: the host's other sessions (id, name, cwd, state) of the same configuration home.
- `send_message`: the message becomes a prompt of the target session, written to the target's queue journal
  before the sender hears it was delivered, so it is recorded in both transcripts (the sender's tool call,
  the target's prompt). Claude Code 2.1.332's SendMessage has no priority field; Yoke's optional
  `priority` (docs/scheduling.md) rides on the target's stream-json user message as 2.1.332's SDK names it:
  `later` (the default) is read at the target's turn boundary as a turn of its own, `next` joins the
  target's running turn at its next model request, `now` interrupts that turn and starts one with it.
- At most once: a request is answered once by its id; a repeated id is not delivered again.
- A session never reaches a session of another configuration home (YOKE_HOME, CLAUDE_CONFIG_DIR).
- Held for approval: a target started with `holdMessages`, or whose settings say `holdIncomingMessages: true`,
  gets a message only once a client approves it (the host's `message` method): every attached client sees
  it as a `system/message_held` line (and those attaching later in `attach`'s `heldMessages`).
"""

from __future__ import annotations

import os
from typing import Any

from yoke.host import records

_DELIVERED: dict[str, dict[str, Any]] = {}  # message id -> the answer given: a repeat is not delivered again
_HELD: dict[str, dict[str, Any]] = {}  # message id -> {session, text, from}: waiting for a person


def handle(host: Any, sender: Any, message: dict[str, Any]) -> None:
    """Answer one `yoke_host` control request of `sender` (a HostedSession) on its stdin."""
    request = message.get("request") or {}
    request_id = str(message.get("request_id") or "")
    try:
        action = request.get("action")
        if action == "list_agents":
            response: dict[str, Any] = {"sessions": list_sessions(host, sender)}
        elif action == "send_message":
            response = send(host, sender, request, request_id)
        else:
            raise ValueError(f"unknown host request {action!r}")
        reply = {"subtype": "success", "request_id": request_id, "response": response}
    except (LookupError, ValueError, RuntimeError, OSError) as exc:
        reply = {"subtype": "error", "request_id": request_id, "error": str(exc).strip("'\"")}
    try:
        sender._write({"type": "control_response", "response": reply})
    except RuntimeError:
        pass  # the sender ended meanwhile


def config_home(env: dict[str, str]) -> tuple[str, str]:
    from yoke.session.transcript import yoke_home

    claude = env.get("CLAUDE_CONFIG_DIR") or ""
    return os.path.realpath(yoke_home(env)), os.path.realpath(claude) if claude else ""


def list_sessions(host: Any, sender: Any) -> list[dict[str, Any]]:
    mine = config_home(sender.env)
    rows = []
    for record in records.all_records():
        if record["id"] == sender.ident:
            continue
        running = host.sessions.get(record["id"])
        if running is not None and config_home(running.env) != mine:
            continue
        row = records.public_row(running.record if running is not None else record)
        rows.append({key: row.get(key) for key in ("id", "name", "cwd", "state")})
    return rows


def send(host: Any, sender: Any, request: dict[str, Any], request_id: str) -> dict[str, Any]:
    message_id = f"msg-{sender.ident}-{request_id}"
    if message_id in _DELIVERED:
        return _DELIVERED[message_id]
    to = str(request.get("to") or "")
    text = str(request.get("message") or "")
    priority = str(request.get("priority") or "later")
    if priority not in ("now", "next", "later"):
        raise ValueError(f"priority must be now, next or later, not {priority!r}")
    if not to or not text.strip():
        raise ValueError("SendMessage needs `to` (a session's id or name) and a message")
    try:
        target = host._session({"session": to})
    except KeyError:
        raise LookupError(f"no running session {to!r} on this host (ListAgents lists them)") from None
    if target is sender:
        raise ValueError("a session cannot send a message to itself")
    if config_home(target.env) != config_home(sender.env):
        raise PermissionError(f"session {target.ident} belongs to another configuration home; not sent")
    name = sender.record.get("name") or sender.ident
    text = f"Message from session {sender.ident} ({name}):\n{text}"
    answer: dict[str, Any] = {"id": target.ident, "message_id": message_id}
    if holds(target):
        summary = str(request.get("summary") or "")
        _HELD[message_id] = {"session": target.ident, "text": text, "from": sender.ident, "summary": summary,
                             "priority": priority}  # fmt: skip
        target.publish({"type": "system", "subtype": "message_held", "message_id": message_id,
                        "from": sender.ident, "summary": summary, "content": text})  # fmt: skip
        answer["held"] = True
    else:
        target.prompt(text, message_id, "" if priority == "later" else priority)
    _DELIVERED[message_id] = answer
    return answer


def holds(target: Any) -> bool:
    """Whether the target's incoming messages wait for a person: its start said so, or its settings do."""
    if target.record.get("holdMessages"):
        return True
    from pathlib import Path

    from yoke.config.settings import load_settings

    home = target.env.get("HOME")
    loaded = load_settings(Path(target.record["cwd"]), home=Path(home) if home else None)
    return loaded.merged.get("holdIncomingMessages") is True


def held_for(ident: str) -> list[dict[str, Any]]:
    """The messages waiting for approval to reach session `ident` (for a client that attaches)."""
    return [{"message_id": m, "from": h["from"], "summary": h["summary"], "content": h["text"]}
            for m, h in _HELD.items() if h["session"] == ident]  # fmt: skip


async def release(host: Any, client: Any, ident: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The host's `message {session, message_id, approve}`: a person lets a held message through (it
    becomes the session's prompt, journalled first) or drops it; either is said to every attached client."""
    session = host._session(params)
    message_id = str(params.get("message_id") or "")
    held = _HELD.get(message_id)
    if held is None or held["session"] != session.ident:
        raise KeyError(f"no held message {message_id!r} for session {session.ident}")
    approve = params.get("approve") is True
    if approve:
        session.prompt(held["text"], message_id, "" if held["priority"] == "later" else held["priority"])
    del _HELD[message_id]
    session.publish({"type": "system", "subtype": "message_released", "message_id": message_id,
                     "approved": approve})  # fmt: skip
    return {"message_id": message_id, "delivered": approve}
