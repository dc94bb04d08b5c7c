"""What telemetry reads off events: commits and pull requests in command lines, the HTTP status of a failed
request, a file's language, an edit's changed lines, Claude Code's decision sources, message text, fresh
span and trace ids and timestamps (`observer.py` builds the items with them)."""

from __future__ import annotations

import os
import time
from typing import Any

from yoke.regex import lazy_compile

# `git [-c k=v | -C dir | --opt]... commit`, `gh pr create`, anywhere in a command line
GIT_COMMIT = lazy_compile(r"\bgit(?:\s+(?:-[cC]\s+\S+|--?[\w-]+(?:=\S+)?))*\s+commit\b")
HTTP_STATUS = lazy_compile(
    r"\bAPI Error: (\d{3})\b"
)  # the failed request's line, as loop/api_errors.py words it
GH_PR_CREATE = lazy_compile(r"\bgh(?:\s+--?[\w-]+(?:[= ]\S+)?)*\s+pr\s+create\b")

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
LANGUAGES = {
    ".py": "Python",
    ".js": "JavaScript",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".jsx": "JavaScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".rb": "Ruby",
    ".c": "C",
    ".h": "C",
    ".cpp": "C++",
    ".cc": "C++",
    ".cs": "C#",
    ".php": "PHP",
    ".sh": "Shell",
    ".md": "Markdown",
    ".json": "JSON",
    ".yaml": "YAML",
    ".yml": "YAML",
    ".toml": "TOML",
    ".html": "HTML",
    ".css": "CSS",
    ".sql": "SQL",
    ".kt": "Kotlin",
    ".swift": "Swift",
}


def new_trace_id() -> int:
    return int.from_bytes(os.urandom(16)) or 1  # (`random` is a module more to import)


def new_span_id() -> int:
    return int.from_bytes(os.urandom(8)) or 1


def language_of(path: str) -> str:
    dot = path.rfind(".")
    return LANGUAGES.get(path[dot:].lower(), "") if dot > path.rfind("/") else ""


def changed_lines(data: Any) -> tuple[int, int]:
    """Lines added and removed, read from an edit tool's structured patch (`structuredPatch` hunks)."""
    added = removed = 0
    hunks = data.get("structuredPatch") if isinstance(data, dict) else None
    for hunk in hunks or []:
        for line in hunk.get("lines", []) if isinstance(hunk, dict) else []:
            if line.startswith("+"):
                added += 1
            elif line.startswith("-"):
                removed += 1
    return added, removed


def decision_source(source: str, behavior: str) -> str:
    """Claude Code's `source` values: config (settings, modes, rules), hook, user_temporary/user_reject."""
    if source.split(":", 1)[0] == "hook":
        return "hook"
    if source.startswith("user"):
        return "user_temporary" if behavior == "allow" else "user_reject"
    return "config"


def json_text(value: Any) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def text_of(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict):
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                parts.append(text_of(block))
    return "".join(parts)


def iso_time(ns: int) -> str:
    seconds, rest = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{rest // 1_000_000:03d}Z"
