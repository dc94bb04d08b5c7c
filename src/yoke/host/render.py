"""Stream-json messages as the lines `yoke logs` and the line client of `yoke attach` print."""

from __future__ import annotations

import json
from typing import Any


def render(message: dict[str, Any]) -> str:
    kind = message.get("type")
    if kind == "assistant":
        parts = []
        for block in (message.get("message") or {}).get("content") or []:
            if block.get("type") == "text" and block.get("text"):
                parts.append(block["text"])
            elif block.get("type") == "tool_use":
                parts.append(f"● {block.get('name')}({_short(block.get('input'))})")
        return "\n".join(parts)
    if kind == "user" and isinstance((message.get("message") or {}).get("content"), str):
        return f"> {message['message']['content']}"
    if kind == "result":
        return f"[{message.get('subtype')}] {message.get('num_turns', 0)} turns, ${message.get('total_cost_usd') or 0:.4f}"
    if kind == "control_request" and (message.get("request") or {}).get("subtype") == "can_use_tool":
        request = message["request"]
        return f"? allow {request.get('tool_name')}({_short(request.get('input'))})  [y/n]"
    if kind == "control_response":
        behavior = ((message.get("response") or {}).get("response") or {}).get("behavior")
        return f"  answered: {behavior}" if behavior else ""
    if kind == "system" and message.get("subtype") == "session_ended":
        return "(session ended)"
    return ""


def _short(value: Any, width: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= width else text[: width - 1] + "…"


def render_log(message: dict[str, Any]) -> str:
    """A line of `yoke logs`: what `render` prints, plus each tool's output (its first lines), a failed
    turn's error, and no per-turn `[success]` tally."""
    kind = message.get("type")
    if kind == "result":
        return f"Error: {message.get('result') or message.get('subtype')}" if message.get("is_error") else ""
    if kind == "system" and message.get("subtype") == "informational":  # a /goal's end, a capped schedule
        return f"[{message.get('level') or 'info'}] {message.get('content') or ''}"
    inner = message.get("message")  # a string on some system lines (permission_denied)
    content = inner.get("content") if isinstance(inner, dict) else None
    if kind == "user" and isinstance(content, list):
        return "\n".join(
            _tool_output(b) for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
        )
    return render(message)


def _tool_output(block: dict[str, Any], lines: int = 4) -> str:
    content = block.get("content")
    if isinstance(content, list):
        content = "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    text = str(content or "").rstrip("\n").splitlines() or ["(no output)"]
    more = f"\n    … (+{len(text) - lines} lines)" if len(text) > lines else ""
    mark = "  ⎿ Error: " if block.get("is_error") else "  ⎿ "
    return mark + "\n    ".join(text[:lines]) + more
