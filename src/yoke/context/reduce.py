"""The two compaction levels that need no model call.

Level 1 (budget/snip): a tool result over its budget is saved to a file in the session folder and
replaced by a preview plus the path. It runs on every request, so a result is trimmed before it is ever
sent and the prompt-cache prefix never changes because of it.

Level 2 (microcompact): old results of the bulky tools (file reads, shell output, searches, fetches,
edits) beyond the most recent few become a one-line stub saying what the call was. The tool_use and
tool_result blocks themselves stay, so the history keeps its shape.

Both return new message lists and never mutate their input.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yoke.messages import Block, Message, blocks_of, result_text
from yoke.prefix import PrefixMemo
from yoke.providers.tokens import estimate_content
from yoke.records import Record

RESULT_BUDGET_CHARS = 50_000  # one tool result
MESSAGE_BUDGET_CHARS = 150_000  # all results of one message together
PREVIEW_CHARS = 2_000
SNIP_MARK = "[Output too large for the context"
STUB_MARK = "[Old tool result cleared"
MICROCOMPACT_TOOLS = frozenset(
    {
        "Read",
        "Bash",
        "Grep",
        "Glob",
        "WebFetch",
        "WebSearch",
        "Edit",
        "Write",
        "MultiEdit",
        "NotebookEdit",
        "LS",
    }
)
KEEP_RECENT_RESULTS = 5
MIN_STUB_SAVING_TOKENS = 50  # results smaller than this are not worth a stub


class Reduction(Record):
    __slots__ = ("messages", "changed_ids", "saved_tokens")

    def __init__(
        self, messages: list[Message], changed_ids: list[str] | None = None, saved_tokens: int = 0
    ) -> None:
        self.messages = messages
        self.changed_ids = [] if changed_ids is None else changed_ids
        self.saved_tokens = saved_tokens


# ---- level 1 -------------------------------------------------------------------------------------


def snip_large_results(
    messages: Sequence[Message],
    spill_dir: Path,
    result_budget: int = RESULT_BUDGET_CHARS,
    message_budget: int = MESSAGE_BUDGET_CHARS,
    memo: PrefixMemo[bool] | None = None,
) -> Reduction:
    """Level 1. `memo` (the compactor's, made by `within_budget_memo` for the same budgets) remembers which of
    the history's leading messages were already found within budget, so a turn looks only at new ones."""
    if memo is not None:
        fits = memo.values(messages)
        none_over = not memo.total()  # known without a walk
    else:
        fits = [within_budget(m, result_budget, message_budget) for m in messages]
        none_over = all(fits)
    out = list(messages)
    reduction = Reduction(out)
    if none_over:
        return reduction
    for index, fit in enumerate(fits):
        if not fit:
            out[index] = _snip_message(out[index], spill_dir, result_budget, message_budget, reduction)
    return reduction


def within_budget_memo(
    result_budget: int = RESULT_BUDGET_CHARS, message_budget: int = MESSAGE_BUDGET_CHARS
) -> PrefixMemo[bool]:
    return PrefixMemo(
        lambda message: within_budget(message, result_budget, message_budget), tallies=(operator.not_,)
    )


def within_budget(message: Message, result_budget: int, message_budget: int) -> bool:
    """Whether no tool result of the message needs snipping."""
    if message["role"] != "user" or isinstance(message["content"], str):
        return True
    sizes = _result_sizes(blocks_of(message))
    if not any(sizes):
        return True
    blocks = blocks_of(message)
    over = sum(sizes) > message_budget
    return not any(
        size and not _already_reduced(block) and (size > result_budget or over)
        for size, block in zip(sizes, blocks, strict=True)
    )


def _result_sizes(blocks: list[Block]) -> list[int]:
    return [len(result_text(b.get("content", ""))) if b.get("type") == "tool_result" else 0 for b in blocks]


def _snip_message(
    message: Message, spill_dir: Path, result_budget: int, message_budget: int, reduction: Reduction
) -> Message:
    blocks = blocks_of(message)
    sizes = _result_sizes(blocks)
    over_total = sum(sizes) - message_budget
    # biggest first: a single huge result, then the largest ones until the message fits its budget
    order = sorted(range(len(blocks)), key=lambda i: -sizes[i])
    new_blocks = list(blocks)
    for index in order:
        size = sizes[index]
        if size == 0 or _already_reduced(blocks[index]):
            continue
        if size <= result_budget and over_total <= 0:
            break
        new_blocks[index] = _snip(blocks[index], spill_dir)
        over_total -= size - len(result_text(new_blocks[index]["content"]))
        reduction.changed_ids.append(blocks[index].get("tool_use_id", ""))
        reduction.saved_tokens += estimate_content(blocks[index].get("content", "")) - estimate_content(
            new_blocks[index]["content"]
        )
    if new_blocks == blocks:
        return message
    return {"role": "user", "content": new_blocks}


def _already_reduced(block: Block) -> bool:
    text = result_text(block.get("content", ""))
    return SNIP_MARK in text[-600:] or text.startswith(STUB_MARK)


def _snip(block: Block, spill_dir: Path) -> Block:
    tool_id = block.get("tool_use_id", "") or "result"
    text = result_text(block.get("content", ""))
    spill_dir.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in tool_id)
    path = spill_dir / f"{safe}.txt"
    path.write_text(text, encoding="utf-8")
    note = (
        f"\n...\n{SNIP_MARK} ({len(text):,} characters, about {estimate_content(text):,} tokens). "
        f"The full output is saved in {path}; read parts of it with Read (offset/limit) or search it with Grep.]"
    )
    preview: Any = text[:PREVIEW_CHARS] + note
    content = block.get("content")
    if isinstance(content, list):  # keep images; replace the text
        images = [b for b in content if b.get("type") == "image"]
        preview = [{"type": "text", "text": preview}, *images]
    return {**block, "content": preview}


# ---- level 2 -------------------------------------------------------------------------------------


def tool_calls_by_id(messages: Sequence[Message]) -> dict[str, Block]:
    return {
        b.get("id", ""): b
        for m in messages
        if m["role"] == "assistant"
        for b in blocks_of(m)
        if b.get("type") == "tool_use"
    }


def describe_call(call: Block | None) -> str:
    """A few words saying what a tool call was, for stubs."""
    if call is None:
        return "a tool call"
    name = call.get("name", "tool")
    args = call.get("input") or {}
    for key in ("file_path", "path", "notebook_path", "command", "pattern", "url", "query"):
        value = args.get(key)
        if isinstance(value, str) and value:
            value = value if len(value) <= 120 else value[:117] + "..."
            return f"{name} {key}={value!r}"
    return name


def microcompact(
    messages: Sequence[Message],
    keep_recent: int = KEEP_RECENT_RESULTS,
    tools: frozenset[str] = MICROCOMPACT_TOOLS,
) -> Reduction:
    calls = tool_calls_by_id(messages)
    positions = [
        (mi, bi)
        for mi, m in enumerate(messages)
        if m["role"] == "user"
        for bi, b in enumerate(blocks_of(m))
        if b.get("type") == "tool_result" and calls.get(b.get("tool_use_id", ""), {}).get("name") in tools
    ]
    old = positions[: max(0, len(positions) - keep_recent)]
    out = list(messages)
    reduction = Reduction(out)
    by_message: dict[int, list[int]] = {}
    for mi, bi in old:
        by_message.setdefault(mi, []).append(bi)
    for mi, block_indexes in by_message.items():
        blocks = list(blocks_of(out[mi]))
        for bi in block_indexes:
            block = blocks[bi]
            before = estimate_content(block.get("content", ""))
            if result_text(block.get("content", "")).startswith(STUB_MARK) or before < MIN_STUB_SAVING_TOKENS:
                continue
            stub = f"{STUB_MARK} to save context: {describe_call(calls.get(block.get('tool_use_id', '')))}. Run it again if you need it.]"
            blocks[bi] = {**block, "content": stub}
            reduction.changed_ids.append(block.get("tool_use_id", ""))
            reduction.saved_tokens += before - estimate_content(stub)
        out[mi] = {"role": "user", "content": blocks}
    return reduction
