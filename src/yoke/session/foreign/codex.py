"""Codex sessions: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (default `~/.codex`).

The format, from openai/codex `codex-rs/protocol` (`RolloutItem`, `ResponseItem`; checked against files
Codex CLI 0.171.0 wrote, tests/session/foreign/): one JSON object a line, `{"timestamp", "type",
"payload"}`, the first a `session_meta` (`id`, `cwd`, `cli_version`). The model-facing history is the
`response_item` lines (`message` with role user/assistant/developer, `reasoning`, `function_call` /
`function_call_output`, `custom_tool_call` / `custom_tool_call_output`, `local_shell_call`,
`web_search_call`); a `compacted` line with a `replacement_history` replaces everything before it.
`event_msg`, `turn_context` and the other lines are the interface's and are skipped.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from yoke.jsonsafe import loads as safe_loads
from yoke.session.foreign.history import ForeignFormatError, History, Imported, in_folder
from yoke.session.foreign.listing import ForeignInfo, mtime, one_line, one_match

AGENT = "Codex"
# Context Codex writes as user messages for its own model, not typed by the person.
CONTEXT_PREFIXES: tuple[str, ...] = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "# AGENTS.md",
    "<user_shell_command>",
    "<turn_aborted>",
    "<skills_instructions>",
    "<INSTRUCTIONS>",
)


def home(env: Mapping[str, str]) -> Path:
    return Path(env.get("CODEX_HOME") or Path(env.get("HOME") or Path.home()) / ".codex").expanduser()


def session_files(env: Mapping[str, str]) -> list[Path]:
    root = home(env) / "sessions"
    if not root.is_dir():
        return []
    return sorted(root.glob("**/rollout-*.jsonl"), key=mtime, reverse=True)


def find(ref: str, env: Mapping[str, str]) -> Path:
    """A rollout by its session id (the file name ends with it) or a unique prefix of it."""
    matches = [p for p in session_files(env) if p.stem.endswith(ref) or _id_of_name(p).startswith(ref)]
    return one_match(matches, AGENT, ref, home(env) / "sessions")


def _id_of_name(path: Path) -> str:
    # rollout-2026-11-28T06-38-46-<uuid>: the uuid is the last five dash-separated groups
    parts = path.stem.split("-")
    return "-".join(parts[-5:]) if len(parts) >= 5 else path.stem


def started_in(path: Path) -> str:
    """The folder a rollout's session started in, from its first line alone ("" when unknown)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            first = safe_loads(fh.readline() or "{}")
    except (OSError, ValueError):
        return ""
    payload = first.get("payload") if isinstance(first, dict) else None
    return str(payload.get("cwd") or "") if isinstance(payload, dict) else ""


def info(path: Path) -> ForeignInfo | None:
    try:
        lines = _lines(path)
    except ForeignFormatError:
        return None
    meta = _meta(lines, path)
    prompts = [t for t in (_user_text(p) for p in _items(lines)) if t]
    count = sum(1 for item in _items(lines) if item.get("type") == "message")
    return ForeignInfo(
        source="codex",
        id=str(meta.get("id") or _id_of_name(path)),
        path=path,
        cwd=str(meta.get("cwd") or ""),
        modified=datetime.fromtimestamp(mtime(path)),
        first_prompt=one_line(prompts[0]) if prompts else "",
        messages=count,
    )


def read(path: Path) -> Imported:
    lines = _lines(path)
    meta = _meta(lines, path)
    imported = Imported(
        source="codex",
        id=str(meta.get("id") or _id_of_name(path)),
        path=str(path),
        cwd=str(meta.get("cwd") or "") or None,
        version=str(meta.get("cli_version") or "") or None,
    )
    for line in lines:
        if line.get("type") == "turn_context" and isinstance(line.get("payload"), dict):
            imported.model = line["payload"].get("model") or imported.model
    history = History(AGENT, _tool_map, imported.cwd or os.getcwd())
    for item in _items(lines):
        _add_item(history, item)
    return history.finish(imported)


# ---- reading the file ---------------------------------------------------------------------------------


def _lines(path: Path) -> list[dict[str, Any]]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ForeignFormatError(f"{path}: cannot read it ({exc.strerror or exc}).") from None
    out: list[dict[str, Any]] = []
    text = raw.decode("utf-8", errors="replace")
    rows = text.split("\n")
    for number, row in enumerate(rows, 1):
        if not row.strip():
            continue
        try:
            value = safe_loads(row)
        except ValueError:
            where = "is cut off (the file is truncated)" if number >= len(rows) - 1 else "is not JSON"
            raise ForeignFormatError(f"{path}: line {number} {where}; nothing was imported.") from None
        if isinstance(value, dict):
            out.append(value)
    return out


def _meta(lines: list[dict[str, Any]], path: Path) -> dict[str, Any]:
    first = lines[0] if lines else {}
    if first.get("type") != "session_meta" or not isinstance(first.get("payload"), dict):
        raise ForeignFormatError(
            f"{path}: not a Codex rollout this Yoke reads (the first line is not a session_meta record; "
            "Codex CLI 0.171 writes one); nothing was imported."
        )
    payload: dict[str, Any] = first["payload"]
    return payload


def _items(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The model-facing items in order, with compactions applied."""
    items: list[dict[str, Any]] = []
    for line in lines:
        payload = line.get("payload")
        if not isinstance(payload, dict):
            continue
        if line.get("type") == "response_item":
            items.append(payload)
        elif line.get("type") == "compacted":
            replacement = payload.get("replacement_history")
            if isinstance(replacement, list):
                items = [i for i in replacement if isinstance(i, dict)]
            elif payload.get("message"):
                # an older compaction: as Codex rebuilt it, the person's messages and then the summary
                kept = [i for i in items if _user_text(i)]
                items = [*kept, {"type": "message", "role": "user", "content": [_text(payload["message"])]}]
    return items


def _text(text: str) -> dict[str, str]:
    return {"type": "input_text", "text": text}


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        str(c.get("text") or "")
        for c in content
        if isinstance(c, dict) and c.get("type") in ("input_text", "output_text", "text")
    )


def _user_text(item: dict[str, Any]) -> str:
    if item.get("type") != "message" or item.get("role") != "user":
        return ""
    text = _content_text(item.get("content"))
    return "" if text.lstrip().startswith(CONTEXT_PREFIXES) else text


def _add_item(history: History, item: dict[str, Any]) -> None:
    kind = item.get("type")
    if kind == "message":
        role = item.get("role")
        if role == "user":
            history.user_text(_user_text(item))
        elif role == "assistant":
            history.assistant_text(_content_text(item.get("content")))
        # developer/system messages are Codex's own instructions: Yoke has its own
    elif kind == "reasoning":
        history.reasoning()
    elif kind == "function_call":
        history.tool_call(
            item.get("call_id"), str(item.get("name") or "?"), _arguments(item.get("arguments"))
        )
    elif kind == "custom_tool_call":
        history.tool_call(item.get("call_id"), str(item.get("name") or "?"), {"input": item.get("input")})
    elif kind == "local_shell_call":
        action = item.get("action") if isinstance(item.get("action"), dict) else {}
        history.tool_call(item.get("call_id") or item.get("id"), "local_shell", dict(action or {}))
    elif kind in ("function_call_output", "custom_tool_call_output"):
        output, failed = _output(item.get("output"))
        history.tool_result(item.get("call_id"), output, failed)
    elif kind == "web_search_call":
        action = item.get("action") if isinstance(item.get("action"), dict) else {}
        query = (action or {}).get("query") or ""
        history.assistant_text(f"[{AGENT} searched the web for {query!r}]" if query else "")


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = safe_loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": raw}


def _output(raw: Any) -> tuple[str, bool]:
    """`FunctionCallOutputPayload` is written as a plain string, or as content items; older files wrote
    an object with `content` and `success`."""
    if isinstance(raw, str):
        return raw, False
    if isinstance(raw, list):
        return _content_text(raw) or json.dumps(raw), False
    if isinstance(raw, dict):
        return str(raw.get("content") or ""), raw.get("success") is False
    return "", False


# ---- tools -----------------------------------------------------------------------------------------


def _tool_map(name: str, args: dict[str, Any], cwd: str) -> tuple[str, dict[str, Any]] | None:
    """Codex's shell tools are Yoke's Bash; its other tools (apply_patch's freeform patch, plans, goals,
    images, MCP tools) have no counterpart that reads the same input."""
    command: Any = None
    if name in ("exec_command", "shell_command"):
        command = args.get("cmd") if name == "exec_command" else args.get("command")
    elif name in ("shell", "container.exec", "local_shell"):
        argv = args.get("command")
        if isinstance(argv, list) and all(isinstance(a, str) for a in argv):
            command = _unwrap_shell(argv)
    if not isinstance(command, str) or not command:
        return None
    workdir = args.get("workdir") or args.get("working_directory")
    return "Bash", {"command": in_folder(command, workdir if isinstance(workdir, str) else None, cwd)}


def _unwrap_shell(argv: list[str]) -> str:
    if (
        len(argv) == 3
        and argv[0] in ("bash", "sh", "zsh", "/bin/bash", "/bin/sh")
        and argv[1] in ("-lc", "-c")
    ):
        return argv[2]
    return shlex.join(argv)
