"""One limit for a message too large for the model's window, whether it is a new prompt or a message in a
resumed history: a new prompt is refused before it is uploaded; an old message is cut to a head and a tail
with a note, since the user cannot send it again differently."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from yoke.messages import Message
from yoke.providers.tokens import context_window, estimate_message, estimate_text

QUICK_CHARS = 200_000  # far below any window: no estimate needed


def oversized_prompt(prompt: str, model: str, env: Mapping[str, str] | None = None) -> str:
    """Why a new prompt cannot be sent (it alone fills the model's window), or ""."""
    if len(prompt) < QUICK_CHARS:
        return ""
    tokens, window = estimate_text(prompt), context_window(model, env)
    if tokens < window:
        return ""
    return (
        f"Prompt is too long: about {tokens:,} tokens ({len(prompt.encode()):,} bytes) for {model}'s "
        f"{window:,}-token window; send less (a file's path instead of its contents, or a part of it)"
    )


def shrink_oversized(messages: list[Message], window: int) -> tuple[list[Message], int]:
    """The history with each message that alone fills `window` tokens cut down to about a quarter of it
    (its long texts shortened to a head and a tail); the count of messages cut. Others are kept as they are
    (the same objects: history messages are never changed in place)."""
    out: list[Message] = []
    cut = 0
    for message in messages:
        if _small(message) or estimate_message(message) < window:
            out.append(message)
            continue
        cut += 1
        texts = _texts(message["content"])
        budget = max(1_000, window // max(1, texts))  # characters per text: about a quarter of the window
        out.append({**message, "content": _cut_content(message["content"], budget)})
    return out, cut


def _small(message: Message) -> bool:
    content = message.get("content")
    return isinstance(content, str) and len(content) < QUICK_CHARS


def _texts(content: Any) -> int:
    if isinstance(content, str):
        return 1
    count = 0
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict):
            inner = block.get("content") if block.get("type") == "tool_result" else None
            count += _texts(inner) if inner is not None else int(isinstance(block.get("text"), str))
    return count


def _cut_content(content: Any, budget: int) -> Any:
    if isinstance(content, str):
        return _cut(content, budget)
    if not isinstance(content, list):
        return content
    blocks = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result" and "content" in block:
            block = {**block, "content": _cut_content(block["content"], budget)}
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            block = {**block, "text": _cut(block["text"], budget)}
        blocks.append(block)
    return blocks


def _cut(text: str, budget: int) -> str:
    if len(text) <= budget:
        return text
    half = budget // 2
    left_out = len(text) - 2 * half
    return (
        f"{text[:half]}\n\n[... {left_out:,} characters left out on resume: this message alone was larger "
        f"than the model's context window ...]\n\n{text[-half:]}"
    )
