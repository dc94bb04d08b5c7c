"""What the previous run of a resumed session had read or written, so that an Edit after `-c` or `-r` of a
file the session already saw works as it did before the restart (Claude Code restores this state too)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.messages import Message, tool_uses
from yoke.tools.base import SessionState

FILE_TOOLS = {"Read": "file_path", "Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path"}
MAX_RESTORED = 200  # the most recent files only: a long session's whole history is not worth hashing


def restore_read_state(state: SessionState, messages: list[Message], cwd: Path) -> None:
    """Mark the files that successful Read/Write/Edit calls in `messages` touched as seen, as they are now."""
    from yoke.tools.files import file_state, read_bytes, state_key

    failed = _failed_calls(messages)
    paths: dict[str, None] = {}
    for message in messages:
        if message["role"] != "assistant":
            continue
        for use in tool_uses(message):
            key = FILE_TOOLS.get(use.get("name", ""))
            raw = (use.get("input") or {}).get(key) if key else None
            if isinstance(raw, str) and raw and use.get("id") not in failed:
                path = Path(raw).expanduser()
                text = str(path if path.is_absolute() else cwd / path)
                paths.pop(text, None)  # keep the order of last use
                paths[text] = None
    for raw in list(paths)[-MAX_RESTORED:]:
        path = Path(raw)
        try:
            data, st = read_bytes(path)
        except Exception:  # gone, unreadable or not a regular file: nothing to restore
            continue
        state.read_files[state_key(path)] = file_state(st, data)


def _failed_calls(messages: list[Message]) -> set[str]:
    failed: set[str] = set()
    for message in messages:
        content: Any = message.get("content")
        if message["role"] != "user" or not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") == "tool_result" and block.get("is_error"):
                failed.add(block.get("tool_use_id", ""))
    return failed
