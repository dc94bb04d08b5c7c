"""Messages between the host's sessions (issue 46): a hosted session's `ListAgents` and `SendMessage` ask
the host over the control protocol (`control_request` subtype `yoke_host`, answered on its stdin), and the
host answers from its own sessions.

- `list_agents`: the host's other sessions (id, name, cwd, state) of the same configuration home.
- `send_message`: the message becomes a prompt of the target session, written to the target's queue journal
  before the sender hears it was delivered, so it is recorded in both transcripts (the sender's tool call,
  the target's prompt). Claude Code 2.1.332's SendMessage has no priority field: a message is held while the
  target is mid-turn and read at its next turn boundary, as a turn of its own (the issue's `later`).
- At most once: a request is answered once by its id; a repeated id is not delivered again.
- A session never reaches a session of another configuration home (YOKE_HOME, CLAUDE_CONFIG_DIR).
"""

from __future__ import annotations

import os
from typing import Any

from yoke.host import records

_DELIVERED: dict[str, dict[str, Any]] = {}  # message id -> the answer given: a repeat is not delivered again


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
    target.prompt(f"Message from session {sender.ident} ({name}):\n{text}", message_id)
    answer = {"id": target.ident, "message_id": message_id}
    _DELIVERED[message_id] = answer
    return answer
