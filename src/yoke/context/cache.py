"""Anthropic prompt-cache breakpoints.

Four breakpoints (the API's maximum): the last tool definition, the last system block, and the last block
of each of the last two user messages. The second-to-last user message's breakpoint reads the cache the
previous request wrote at its last user message; the last one writes the entry the next request will read.
The functions copy what they mark; the caller's history is never changed.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from yoke.messages import Block, Message

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
USER_BREAKPOINTS = 2


def _marked(block: Block, cache_control: dict[str, Any]) -> Block:
    return {**block, "cache_control": dict(cache_control)}


def mark_system(system: Sequence[Block], cache_control: dict[str, Any] = EPHEMERAL) -> list[Block]:
    blocks = [dict(b) for b in system]
    if blocks:
        blocks[-1] = _marked(blocks[-1], cache_control)
    return blocks


def mark_tools(
    tools: Sequence[dict[str, Any]], cache_control: dict[str, Any] = EPHEMERAL
) -> list[dict[str, Any]]:
    """`tools` in wire shape (name, description, input_schema)."""
    out = [dict(t) for t in tools]
    if out:
        out[-1] = _marked(out[-1], cache_control)
    return out


def mark_messages(
    messages: Sequence[Message], cache_control: dict[str, Any] = EPHEMERAL, count: int = USER_BREAKPOINTS
) -> list[Message]:
    """A copy of `messages` with a breakpoint on the last block of each of the last `count` user messages
    (string content becomes one text block so it can carry the marker). Thinking blocks cannot carry one, so
    the marker goes on the last block that can."""
    out: list[Message] = list(messages)
    marked = 0
    for index in range(len(out) - 1, -1, -1):
        if marked >= count:
            break
        message = out[index]
        if message["role"] != "user":
            continue
        content = message["content"]
        blocks: list[Block] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else copy.copy(list(content))
        )
        for position in range(len(blocks) - 1, -1, -1):
            if blocks[position].get("type") not in ("thinking", "redacted_thinking") and not (
                blocks[position].get("type") == "text" and not blocks[position].get("text")
            ):
                blocks[position] = _marked(blocks[position], cache_control)
                out[index] = {"role": "user", "content": blocks}
                marked += 1
                break
    return out


def breakpoint_positions(messages: Sequence[Message]) -> list[int]:
    """Indexes of messages carrying a cache_control marker (for tests and diagnostics)."""
    return [
        i
        for i, m in enumerate(messages)
        if not isinstance(m["content"], str) and any("cache_control" in b for b in m["content"])
    ]


def strip_cache_control(value: Any) -> Any:
    """A deep copy of a request body without cache_control markers (what the cache key is computed over)."""
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return value
