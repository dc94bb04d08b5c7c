"""The shape rules a history must keep for every wire format, and cuts that respect them.

Valid means: the first message is a user message; every assistant tool_use is answered by a tool_result in
the very next (user) message; every tool_result answers a tool_use of the message just before it; no
message is empty. Thinking blocks live inside assistant messages, which compaction never edits, so they
stay with their turn.

Compaction cuts only in front of an assistant message: the part before it then ends with a complete
exchange, and a summary (a user message) placed in front of the kept part keeps roles alternating.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from yoke.messages import Block, Message, blocks_of, tool_result_block
from yoke.providers.tokens import estimate_message

T = TypeVar("T")
INTERRUPTED_RESULT = "[Tool call did not finish: the session ended before its result was recorded.]"


def tool_result_ids(message: Message) -> list[str]:
    return [b.get("tool_use_id", "") for b in blocks_of(message) if b.get("type") == "tool_result"]


def tool_use_ids(message: Message) -> list[str]:
    return [b.get("id", "") for b in blocks_of(message) if b.get("type") == "tool_use"]


def is_tool_result_message(message: Message) -> bool:
    return message["role"] == "user" and bool(tool_result_ids(message))


def history_problems(messages: Sequence[Message], for_request: bool = True) -> list[str]:
    """Everything that would make a provider reject this history (empty list = valid). With
    `for_request`, the history must also end with a user message."""
    problems: list[str] = []
    if not messages:
        return ["history is empty"] if for_request else []
    if messages[0]["role"] != "user":
        problems.append("first message is not a user message")
    seen_ids: set[str] = set()
    for index, message in enumerate(messages):
        if not blocks_of(message):
            problems.append(f"message {index} is empty")
        expected = (
            set(tool_use_ids(messages[index - 1]))
            if index and messages[index - 1]["role"] == "assistant"
            else set()
        )
        if message["role"] == "assistant":
            ids = tool_use_ids(message)
            for tool_id in ids:
                if tool_id in seen_ids:
                    problems.append(f"tool_use id {tool_id} is used twice")
                seen_ids.add(tool_id)
            if ids:
                following = messages[index + 1] if index + 1 < len(messages) else None
                answered = (
                    set(tool_result_ids(following)) if following and following["role"] == "user" else set()
                )
                missing = [i for i in ids if i not in answered]
                if missing:
                    problems.append(f"message {index}: tool_use {missing} not answered in the next message")
        else:
            for tool_id in tool_result_ids(message):
                if tool_id not in expected:
                    problems.append(
                        f"message {index}: tool_result {tool_id} answers no tool_use just before it"
                    )
            if any(b.get("type") in ("thinking", "redacted_thinking") for b in blocks_of(message)):
                problems.append(f"message {index}: thinking block in a user message")
    if for_request and messages[-1]["role"] != "user":
        problems.append("history does not end with a user message")
    return problems


def cut_points(messages: Sequence[Message]) -> list[int]:
    """Indexes where a kept tail may start (assistant messages after the first message)."""
    return [i for i in range(1, len(messages)) if messages[i]["role"] == "assistant"]


def tail_start_within(messages: Sequence[Message], max_tokens: int) -> int | None:
    """The earliest cut whose tail fits in `max_tokens` (None when even the last one does not)."""
    sizes = [estimate_message(m) for m in messages]
    suffix = 0
    best: int | None = None
    cuts = set(cut_points(messages))
    for index in range(len(messages) - 1, 0, -1):
        suffix += sizes[index]
        if suffix > max_tokens:
            break
        if index in cuts:
            best = index
    return best


def repair_history(messages: list[Message]) -> list[Message]:
    """Make a history loaded from a transcript valid again after a crash: answer unanswered tool_uses with
    an error result and drop tool_results that answer nothing. Deterministic, so every load of the same
    transcript gives the same messages."""
    return [m for m, _ in repair_tagged([(m, None) for m in messages])]


def repair_tagged(pairs: list[tuple[Message, T]]) -> list[tuple[Message, T | None]]:
    """`repair_history` over (message, tag) pairs; inserted messages get the tag None."""
    out: list[tuple[Message, T | None]] = []
    for index, (message, tag) in enumerate(pairs):
        previous = out[-1][0] if out else None
        expected = tool_use_ids(previous) if previous and previous["role"] == "assistant" else []
        if message["role"] == "user":
            blocks = blocks_of(message)
            kept = [b for b in blocks if b.get("type") != "tool_result" or b.get("tool_use_id") in expected]
            answered = {b.get("tool_use_id") for b in kept if b.get("type") == "tool_result"}
            if answered:  # a partly answered call list gets the missing answers
                kept = [*kept, *_interrupted([i for i in expected if i not in answered])]
            if not kept:
                continue
            out.append((message if kept == blocks else {"role": "user", "content": kept}, tag))
            continue
        out.append((message, tag))
        following = pairs[index + 1][0] if index + 1 < len(pairs) else None
        ids = tool_use_ids(message)
        if ids and (following is None or following["role"] != "user" or not tool_result_ids(following)):
            out.append(({"role": "user", "content": _interrupted(ids)}, None))
    if out and out[0][0]["role"] != "user":
        out.insert(
            0, ({"role": "user", "content": "[The start of this conversation was not recorded.]"}, None)
        )
    return out


def _interrupted(ids: list[str]) -> list[Block]:
    return [tool_result_block(i, INTERRUPTED_RESULT, is_error=True) for i in ids]
