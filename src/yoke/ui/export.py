"""`/export`: the conversation as plain text, as the screen showed it: prompts, answers, and every tool call
with its result (`● Bash(ls)` and `⎿ output` under it)."""

from __future__ import annotations

from typing import Any

MAX_RESULT_LINES = 40


def export_text(messages: list[dict[str, Any]], cwd: str) -> str:
    parts: list[str] = []
    for message in messages:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            text = _block(block, message.get("role") == "user", cwd)
            if text:
                parts.append(text)
    return "\n\n".join(parts) + "\n"


def _block(block: dict[str, Any], from_user: bool, cwd: str) -> str:
    from yoke.session.store import split_shell_context
    from yoke.ui.tool_view import brief

    kind = block.get("type")
    if kind == "text" and from_user:
        commands, typed = split_shell_context(str(block.get("text") or ""))
        shown = [f"! {command}\n{_under(output or '(no output)')}" for command, output in commands]
        return "\n".join([*shown, *([f"> {typed}"] if typed else [])])
    if kind == "text":
        text = str(block.get("text") or "").strip()
        return f"● {text}" if text else ""
    if kind == "tool_use":
        name = str(block.get("name") or "tool")
        tool_input = block.get("input")
        arg = brief(name, tool_input if isinstance(tool_input, dict) else {}, cwd, limit=200)
        return f"● {name}({arg})" if arg else f"● {name}"
    if kind == "tool_result":
        from yoke.messages import result_text

        body = block.get("content")
        text = body if isinstance(body, str) else result_text(body or [])
        text = text.replace("<tool_use_error>", "").replace("</tool_use_error>", "").strip()
        return _under(text or "(no output)", error=bool(block.get("is_error")))
    return ""


def _under(text: str, error: bool = False) -> str:
    lines = text.splitlines() or [""]
    more = len(lines) - MAX_RESULT_LINES
    lines = lines[:MAX_RESULT_LINES] + ([f"… +{more} lines"] if more > 0 else [])
    first = "  ⎿  Error: " if error else "  ⎿  "
    return "\n".join((first if i == 0 else "     ") + line for i, line in enumerate(lines))
