"""Yoke's internal message model.

Messages are plain dicts shaped like the Anthropic Messages API (the richest of the wire formats, and the
one Claude Code's transcripts and stream-json use), so the transcript, the stream-json printer and the
Anthropic provider need no conversion; other providers convert at their edge.

    {"role": "user" | "assistant", "content": str | [block, ...]}

Blocks:
    {"type": "text", "text": str}
    {"type": "thinking", "thinking": str, "signature": str}
    {"type": "redacted_thinking", "data": str}
    {"type": "tool_use", "id": str, "name": str, "input": dict}
    {"type": "tool_result", "tool_use_id": str, "content": str | [text/image blocks], "is_error": bool}
    {"type": "image", "source": {"type": "base64", "media_type": str, "data": str}}
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

Block = dict[str, Any]


class Message(TypedDict):
    role: Literal["user", "assistant"]
    content: str | list[Block]


def text_block(text: str) -> Block:
    return {"type": "text", "text": text}


def user_message(content: str | list[Block]) -> Message:
    return {"role": "user", "content": content}


def tool_result_block(tool_use_id: str, content: str | list[Block], is_error: bool = False) -> Block:
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": is_error}


def blocks_of(message: Message) -> list[Block]:
    """The content of a message as a list of blocks (a bare string becomes one text block)."""
    content = message["content"]
    if isinstance(content, str):
        return [text_block(content)] if content else []
    return content


def text_of(message: Message) -> str:
    """The concatenated text blocks of a message."""
    return "".join(b.get("text", "") for b in blocks_of(message) if b.get("type") == "text")


def tool_uses(message: Message) -> list[Block]:
    return [b for b in blocks_of(message) if b.get("type") == "tool_use"]


def result_text(content: str | list[Block]) -> str:
    """Flatten tool_result content to text (images become a placeholder)."""
    if isinstance(content, str):
        return content
    parts = []
    for b in content:
        if b.get("type") == "text":
            parts.append(b.get("text", ""))
        elif b.get("type") == "image":
            parts.append("[image]")
    return "\n".join(parts)


TASK_NOTICE = "<task-notification>"  # how a background task's notice to the model begins


def task_notice(
    task_id: str, status: str, summary: str, output_file: object, result: str | None = None
) -> str:
    """The notice a background task (a command, a sub-agent) leaves the model when it ends."""
    answer = f"<result>{result}</result>\n" if result is not None else ""
    return (
        f"{TASK_NOTICE}\n<task-id>{task_id}</task-id>\n<status>{status}</status>\n<summary>{summary}</summary>\n"
        f"{answer}<output-file>{output_file}</output-file>\n</task-notification>"
    )
