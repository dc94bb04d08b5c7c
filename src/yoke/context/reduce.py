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

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yoke.context.tokens import estimate_content
from yoke.messages import Block, Message, blocks_of, result_text

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


@dataclass
class Reduction:
    messages: list[Message]
    changed_ids: list[str] = field(default_factory=list)
    saved_tokens: int = 0


# ---- level 1 -------------------------------------------------------------------------------------


def snip_large_results(
    messages: Sequence[Message],
    spill_dir: Path,
    result_budget: int = RESULT_BUDGET_CHARS,
    message_budget: int = MESSAGE_BUDGET_CHARS,
) -> Reduction:
    out: list[Message] = []
    reduction = Reduction(out)
    budgets = (result_budget, message_budget)
    for message in messages:
        seen = _WITHIN_BUDGET.get(id(message))
        if seen is not None and seen[0] is message and seen[1] == budgets:
            out.append(message)  # checked on an earlier turn; history messages never change in place
            continue
        blocks = blocks_of(message)
        if message["role"] != "user" or not any(b.get("type") == "tool_result" for b in blocks):
            out.append(message)
            _remember_within_budget(message, budgets)
            continue
        sizes = [
            len(result_text(b.get("content", ""))) if b.get("type") == "tool_result" else 0 for b in blocks
        ]
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
            out.append(message)
            _remember_within_budget(message, budgets)
        else:
            out.append({"role": "user", "content": new_blocks})
    return reduction


_WITHIN_BUDGET: dict[int, tuple[Message, tuple[int, int]]] = {}


def _remember_within_budget(message: Message, budgets: tuple[int, int]) -> None:
    if len(_WITHIN_BUDGET) >= 20_000:
        _WITHIN_BUDGET.clear()
    _WITHIN_BUDGET[id(message)] = (message, budgets)


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
