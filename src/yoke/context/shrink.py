"""Shrinking a history without the model, for `compaction.py`: where collapse cuts it in two, fitting it
into a summary request's budget, dropping the oldest turns (the user's messages kept in a note, tool pairs
kept valid), and how much of a new history is the old one's verbatim tail."""

from __future__ import annotations

from pathlib import Path

from yoke.context.history import cut_points, tail_start_within
from yoke.context.reduce import microcompact, snip_large_results
from yoke.context.summary import DROPPED_HEAD, select_prompts, summary_text, user_prompts
from yoke.messages import Message, text_block
from yoke.providers.tokens import estimate_message, estimate_messages


def collapse_cut(messages: list[Message]) -> int:
    """Where collapse folds the history: the first cut point past half its size (0 or 1: nowhere)."""
    sizes = [estimate_message(m) for m in messages]
    total = sum(sizes)
    cuts = cut_points(messages)
    if len(cuts) < 2:
        return 0
    running, cut, cut_set = 0, cuts[-1], set(cuts)
    for index, size in enumerate(sizes):
        running += size
        if running >= total // 2 and index + 1 in cut_set:
            cut = index + 1
            break
    return cut


def fit_history(messages: list[Message], budget: int, spill_dir: Path) -> list[Message]:
    """The history cut down to fit a summary request: bulky results stubbed, then the oldest turns
    dropped (the user's messages survive in a note at the start)."""
    if estimate_messages(messages) <= budget:
        return messages
    reduced = snip_large_results(microcompact(messages, keep_recent=0).messages, spill_dir).messages
    if estimate_messages(reduced) <= budget:
        return reduced
    note = summary_text(DROPPED_HEAD, None, select_prompts(user_prompts(reduced)), continue_line=False)
    start = tail_start_within(reduced, max(1, budget - len(note) // 4)) or (cut_points(reduced) or [0])[-1]
    if start == 0:
        return reduced
    return [{"role": "user", "content": [text_block(note)]}, *reduced[start:]]


def drop_oldest(messages: list[Message], tokens: int, target: int) -> tuple[list[Message], int] | None:
    """The history with its oldest turns dropped until about `target` tokens, and how many of its messages
    it keeps verbatim; None when nothing can be dropped (the last exchange always stays)."""
    note = summary_text(DROPPED_HEAD, None, select_prompts(user_prompts(messages)))
    excess = tokens - target + len(note) // 4
    cuts = cut_points(messages)
    if not cuts:
        return None
    start, dropped, position = cuts[-1], 0, 0
    for cut in cuts:
        dropped += estimate_messages(messages[position:cut])
        position = cut
        if dropped >= excess:
            start = cut
            break
    new: list[Message] = [{"role": "user", "content": [text_block(note)]}, *messages[start:]]
    if estimate_messages(new) >= estimate_messages(messages):
        return None  # nothing left to drop
    return new, len(messages) - start


def kept_count(old: list[Message], new: list[Message]) -> int:
    """How many of `new`'s last messages are `old`'s last messages (the verbatim tail)."""
    kept = 0
    while kept < min(len(old), len(new) - 1) and new[len(new) - 1 - kept] is old[len(old) - 1 - kept]:
        kept += 1
    return kept
