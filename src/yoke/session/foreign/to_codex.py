"""`yoke export --to codex <id>`: a Yoke (or Claude Code) session written as a Codex rollout that `codex
resume <id>` continues.

Codex finds a session by the id at the end of a rollout file's name under `$CODEX_HOME/sessions/YYYY/MM/DD/`
and rebuilds its model's history from the `response_item` lines (checked with Codex CLI 0.171.0: a rollout
placed there and resumed with `codex exec resume <id> "..."` sent the history in order;
tests/session/test_foreign_sessions.py builds the same shape). So the file holds a `session_meta` line and the
history as `response_item`s, in the shapes Codex itself writes: messages as `input_text` / `output_text`,
Bash calls as Codex's own `exec_command` with their output. A call to a tool Codex does not have becomes
text saying so, as an import does the other way round; thinking is dropped (signed for the model that wrote
it). A new id is used each time: the Yoke session is only read.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.messages import Message
from yoke.session.foreign.history import clip


def export_to_codex(
    messages: list[Message], cwd: str, env: Mapping[str, str], source_id: str
) -> tuple[str, Path]:
    """Write the rollout; returns the Codex session id and the file."""
    from yoke import __version__
    from yoke.session.foreign.codex import home

    session_id = str(_uuid7())
    now = time.time()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
    folder = home(env) / "sessions" / time.strftime("%Y/%m/%d", time.gmtime(now))
    name = f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', time.gmtime(now))}-{session_id}.jsonl"
    meta = {
        "id": session_id,
        "timestamp": stamp,
        "cwd": cwd,
        "originator": "yoke",
        "cli_version": __version__,
        "source": "cli",
        "instructions": None,
    }
    lines = [{"timestamp": stamp, "type": "session_meta", "payload": meta}]
    lines += [
        {"timestamp": stamp, "type": "response_item", "payload": item} for item in response_items(messages)
    ]
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    partial = folder / f".{name}.tmp"
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
    os.replace(partial, target)
    return session_id, target


def response_items(messages: list[Message]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    shell_calls: set[str] = set()
    names: dict[str, str] = {}
    for message in messages:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        role = message["role"]
        for block in blocks:
            kind = block.get("type")
            if kind == "text" and str(block.get("text") or "").strip():
                items.append(_message(role, str(block["text"])))
            elif kind == "tool_use" and role == "assistant":
                items.append(_call(block, shell_calls, names))
            elif kind == "tool_result" and role == "user":
                items.append(_result(block, shell_calls, names))
            elif kind == "image":
                items.append(_message(role, "[an image was attached here in Yoke]"))
    return items


def _message(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _call(block: dict[str, Any], shell_calls: set[str], names: dict[str, str]) -> dict[str, Any]:
    call_id, name = str(block.get("id") or ""), str(block.get("name") or "?")
    tool_input = block.get("input") if isinstance(block.get("input"), dict) else {}
    names[call_id] = name
    command = (tool_input or {}).get("command")
    if name == "Bash" and isinstance(command, str):
        shell_calls.add(call_id)
        arguments = json.dumps({"cmd": command})
        return {"type": "function_call", "name": "exec_command", "arguments": arguments, "call_id": call_id}
    shown = clip(json.dumps(tool_input, ensure_ascii=False))
    return _message("assistant", f"[Yoke called its tool `{name}`, which Codex does not have, with {shown}]")


def _result(block: dict[str, Any], shell_calls: set[str], names: dict[str, str]) -> dict[str, Any]:
    from yoke.messages import result_text

    call_id = str(block.get("tool_use_id") or "")
    output = result_text(block.get("content") or "")
    if call_id in shell_calls:
        return {"type": "function_call_output", "call_id": call_id, "output": output}
    label = "error" if block.get("is_error") else "result"
    return _message("user", f"[{label} of Yoke's `{names.get(call_id, '?')}` call: {clip(output)}]")


def _uuid7() -> uuid.UUID:
    """A time-ordered UUID (version 7), the kind Codex gives its sessions."""
    millis = int(time.time() * 1000)
    raw = millis.to_bytes(6, "big") + os.urandom(10)
    value = int.from_bytes(raw, "big")
    value = (value & ~(0xF << 76)) | (0x7 << 76)  # version
    value = (value & ~(0x3 << 62)) | (0x2 << 62)  # variant
    return uuid.UUID(int=value)
