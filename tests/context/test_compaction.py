"""Each compaction level at its threshold, the breaker, reactive compaction, and history validity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yoke.context.compaction import MAX_CONSECUTIVE_FAILURES, CompactionError, Compactor, Thresholds
from yoke.context.reduce import RESULT_BUDGET_CHARS, SNIP_MARK, STUB_MARK
from yoke.context.summary import user_prompts
from yoke.memory import MemoryFile
from yoke.messages import blocks_of, result_text
from yoke.providers.base import Usage
from yoke.providers.tokens import estimate_messages

from .helpers import FakeSummarizer, assert_valid, conversation, tool_exchange

ENV: dict[str, str] = {}  # 200K window: effective 180K, autocompact 167K
T = Thresholds.for_window(180_000, ENV)


def make(tmp_path: Path, summarize=None, small=None, **kw) -> Compactor:
    return Compactor(
        "claude-test",
        summarize or FakeSummarizer(),
        tmp_path / "session",
        summarize_small=small,
        env=ENV,
        **kw,
    )


def usage_for(messages, total: int) -> Usage:
    """A last-response usage that makes the counted context exactly `total` tokens."""
    last = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    return Usage(input_tokens=total - estimate_messages(messages[last + 1 :]))


def results(messages) -> list[str]:
    return [
        result_text(b["content"]) for m in messages for b in blocks_of(m) if b.get("type") == "tool_result"
    ]


def test_thresholds_for_a_200k_window():
    assert (T.autocompact, T.collapse, T.microcompact, T.hard) == (167_000, 157_000, 137_000, 180_000)
    assert Thresholds.for_window(180_000, {"YOKE_AUTOCOMPACT_PCT_OVERRIDE": "50"}).autocompact == 90_000


async def test_level1_snips_a_result_over_budget_and_keeps_it_on_disk(tmp_path):
    messages = conversation(2, 100)
    big = "line\n" * (RESULT_BUDGET_CHARS // 5 + 10)
    messages[-1]["content"][0]["content"] = big
    messages[-3]["content"][0]["content"] = "y" * (RESULT_BUDGET_CHARS - 10)  # under budget: untouched
    compactor = make(tmp_path)
    result = await compactor.prepare(messages, None)
    assert_valid(result.messages)
    assert [b["compactMetadata"]["level"] for b in result.boundaries] == [1]
    meta = result.boundaries[0]["compactMetadata"]
    assert meta["postTokens"] < meta["preTokens"] and result.boundaries[0]["toolUseIds"] == ["toolu_0001"]
    snipped = results(result.messages)[-1]
    assert SNIP_MARK in snipped and len(snipped) < 3_000
    saved = tmp_path / "session" / "tool-results" / "toolu_0001.txt"
    assert saved.read_text() == big and str(saved) in snipped
    assert results(result.messages)[-2] == "y" * (RESULT_BUDGET_CHARS - 10)
    assert messages[-1]["content"][0]["content"] == big  # input untouched
    again = await compactor.prepare(result.messages, None)
    assert again.boundaries == [] and again.messages is result.messages  # idempotent


async def test_level2_microcompact_at_its_threshold(tmp_path):
    messages = conversation(20, 4_000)  # ~1K tokens per result
    below = await make(tmp_path).prepare(messages, usage_for(messages, T.microcompact - 1))
    assert below.boundaries == [] and below.messages is messages
    result = await make(tmp_path).prepare(messages, usage_for(messages, T.microcompact))
    assert [b["compactMetadata"]["level"] for b in result.boundaries] == [2]
    texts = results(result.messages)
    assert all(t.startswith(STUB_MARK) for t in texts[:15]) and "file_path='/src/f0.py'" in texts[0]
    assert all(t.startswith("r") for t in texts[15:])  # the most recent five are kept
    assert len(result.messages) == len(messages)
    assert_valid(result.messages)


async def test_level2_keeps_thinking_and_pairs_valid(tmp_path):
    messages = conversation(12, 8_000, thinking=True)
    result = await make(tmp_path).prepare(messages, usage_for(messages, T.microcompact + 10))
    assert result.boundaries and result.boundaries[0]["compactMetadata"]["level"] == 2
    for old, new in zip(messages, result.messages, strict=True):
        if old["role"] == "assistant":
            assert new is old  # assistant turns (with thinking and signatures) are never edited
    assert_valid(result.messages)


async def test_level3_collapse_at_its_threshold_uses_the_small_model(tmp_path):
    messages = conversation(30, 200)
    small, big = FakeSummarizer("<summary>FOLDED</summary>"), FakeSummarizer()
    below = await make(tmp_path, big, small).prepare(messages, usage_for(messages, T.collapse - 1))
    assert below.boundaries == [] and small.calls == []
    result = await make(tmp_path, big, small).prepare(messages, usage_for(messages, T.collapse))
    assert len(small.calls) == 1 and big.calls == []
    boundary = result.boundaries[-1]
    assert boundary["compactMetadata"]["level"] == 3
    kept = boundary["keptMessages"]
    assert result.messages[1:] == messages[-kept:] and 0 < kept < len(messages)
    assert result.messages[0]["role"] == "user" and "FOLDED" in result.messages[0]["content"][0]["text"]
    assert boundary["summaryMessages"] == result.messages[:1]
    assert user_prompts(result.messages) == ["GOAL: port the parser to Rust"]
    assert_valid(result.messages)
    span, instruction = small.calls[0]
    assert span == messages[: len(messages) - kept] and "condense" in instruction


async def test_level4_autocompact_at_its_threshold_reinjects_context(tmp_path):
    messages = conversation(1, 200)  # one exchange: nothing for collapse to fold
    notes = tmp_path / "notes.py"
    notes.write_text("def important():\n    return 42\n")
    memory = MemoryFile(Path("/repo/sub/CLAUDE.md"), "SUBDIR RULE", 3)
    summarizer = FakeSummarizer("<analysis>thinking</analysis><summary>THE SUMMARY</summary>")
    kwargs = dict(
        recent_files=lambda: [notes, tmp_path / "gone.py"],
        todos=lambda: [{"content": "write tests", "status": "in_progress"}],
        memory_files=lambda: [memory],
    )
    below = await make(tmp_path, summarizer, **kwargs).prepare(
        messages, usage_for(messages, T.autocompact - 1)
    )
    assert below.boundaries == [] and summarizer.calls == []
    compactor = make(tmp_path, summarizer, **kwargs)
    result = await compactor.prepare(messages, usage_for(messages, T.autocompact))
    assert [b["compactMetadata"]["level"] for b in result.boundaries] == [4]
    assert result.boundaries[0]["compactMetadata"]["preTokens"] == T.autocompact
    assert (
        len(summarizer.calls) == 1 and "Goal and the user's explicit instructions" in summarizer.calls[0][1]
    )
    head = result.messages[0]
    texts = [b["text"] for b in head["content"]]
    assert "THE SUMMARY" in texts[0] and "thinking" not in texts[0]
    assert "GOAL: port the parser to Rust" in texts[0]
    assert any("return 42" in t for t in texts) and not any("gone.py" in t for t in texts)
    assert any("SUBDIR RULE" in t for t in texts) and any("[in_progress] write tests" in t for t in texts)
    assert result.messages[1:] == messages[1:]  # the last exchange stays verbatim
    assert_valid(result.messages)
    assert compactor.token_count(result.messages) < T.microcompact


async def test_levels_cascade_cheapest_first_on_a_long_session(tmp_path):
    messages = conversation(80, 9_000)  # ~180K tokens of mostly old reads
    summarizer = FakeSummarizer()
    compactor = make(tmp_path, summarizer)
    result = await compactor.prepare(messages, None)
    levels = [b["compactMetadata"]["level"] for b in result.boundaries]
    assert levels == [2]  # stubbing old reads was enough: no model call
    assert summarizer.calls == []
    assert compactor.token_count(result.messages) < T.collapse
    assert_valid(result.messages)


async def test_breaker_stops_after_three_failures_and_drops_oldest_turns(tmp_path):
    failing = FakeSummarizer(fail=True)
    compactor = make(tmp_path, failing, failing)
    messages = conversation(40, 200)
    for attempt in range(1, MAX_CONSECUTIVE_FAILURES + 1):
        result = await compactor.prepare(messages, usage_for(messages, T.autocompact + attempt))
        assert compactor.failures == attempt
    calls = len(failing.calls)
    assert compactor.breaker_open
    dropped = result.boundaries[-1]
    assert dropped["compactMetadata"]["level"] == 0  # the fallback kicked in once the breaker opened
    assert_valid(result.messages)
    assert "GOAL: port the parser to Rust" in result.messages[0]["content"][0]["text"]
    assert len(result.messages) < len(messages)
    for n in range(3):  # later requests never call the model for compaction again
        more = messages + tool_exchange(100 + n, 200)
        again = await compactor.prepare(more, usage_for(more, T.autocompact + 100 + n))
        assert_valid(again.messages)
    assert len(failing.calls) == calls


async def test_a_failure_that_leaves_the_history_over_the_window_drops_turns_at_once(tmp_path):
    failing = FakeSummarizer(fail=True)
    compactor = make(tmp_path, failing, failing)
    messages = conversation(40, 200)
    result = await compactor.prepare(messages, usage_for(messages, T.hard + 5))
    assert compactor.failures == 1 and result.boundaries[-1]["compactMetadata"]["level"] == 0
    assert_valid(result.messages)


async def test_success_resets_the_failure_count(tmp_path):
    summarizer = FakeSummarizer(fail=True)
    compactor = make(tmp_path, summarizer, summarizer)
    messages = conversation(40, 200)
    await compactor.prepare(messages, usage_for(messages, T.autocompact + 1))
    await compactor.prepare(messages, usage_for(messages, T.autocompact + 2))
    summarizer.fail = False
    result = await compactor.prepare(messages, usage_for(messages, T.autocompact + 3))
    assert compactor.failures == 0 and result.boundaries


async def test_prompt_too_long_gets_one_reactive_compaction(tmp_path):
    summarizer = FakeSummarizer()
    compactor = make(tmp_path, summarizer)
    messages = conversation(30, 2_000)
    first = await compactor.on_prompt_too_long(messages)
    assert first is not None and first.boundaries[-1]["compactMetadata"]["level"] == 4
    assert_valid(first.messages)
    assert await compactor.on_prompt_too_long(first.messages) is None  # no second try for the same request
    grown = first.messages + tool_exchange(500, 100)
    await compactor.prepare(grown, Usage(input_tokens=5_000))  # a request got through
    assert await compactor.on_prompt_too_long(grown) is not None


async def test_prompt_too_long_with_a_failing_model_drops_turns(tmp_path):
    compactor = make(tmp_path, FakeSummarizer(fail=True))
    messages = conversation(30, 2_000)
    result = await compactor.on_prompt_too_long(messages)
    assert result is not None and result.boundaries[-1]["compactMetadata"]["level"] == 0
    assert_valid(result.messages)
    assert estimate_messages(result.messages) < estimate_messages(messages)


async def test_manual_compact_with_instructions(tmp_path):
    summarizer = FakeSummarizer()
    compactor = make(tmp_path, summarizer)
    messages = conversation(3, 100)
    result = await compactor.compact(messages, "focus on the parser API")
    assert "focus on the parser API" in summarizer.calls[0][1]
    assert result.boundaries[0]["compactMetadata"]["trigger"] == "manual"
    assert_valid(result.messages)
    with pytest.raises(CompactionError):
        await compactor.compact([{"role": "user", "content": "hi"}])
    summarizer.fail = True
    with pytest.raises(CompactionError, match="model unavailable"):
        await compactor.compact(messages)


async def test_disabled_auto_compact_still_snips(tmp_path):
    summarizer = FakeSummarizer()
    compactor = Compactor("m", summarizer, tmp_path, env={"DISABLE_AUTO_COMPACT": "1"})
    messages = conversation(1, 200)
    result = await compactor.prepare(messages, usage_for(messages, T.hard + 1))
    assert summarizer.calls == [] and result.boundaries == []


async def test_300_turn_session_stays_under_the_window_and_keeps_the_goal(tmp_path):
    """A long scripted session at the compaction layer: every request's history is valid and fits, and
    every summary request still carries the user's stated goal although the summaries themselves drop it."""
    summarizer = FakeSummarizer("<summary>did some work</summary>")
    compactor = Compactor("m", summarizer, tmp_path, env={"YOKE_MAX_CONTEXT_TOKENS": "60000"})
    goal = "GOAL: migrate every handler to async and keep the public API"
    messages = [{"role": "user", "content": goal}]
    usage = None
    levels: set[int] = set()
    for turn in range(300):
        result = await compactor.prepare(messages, usage)
        messages = result.messages
        levels.update(b["compactMetadata"]["level"] for b in result.boundaries)
        assert_valid(messages)
        size = compactor.token_count(messages, usage)
        assert size < compactor.effective_window
        usage = Usage(input_tokens=estimate_messages(messages), output_tokens=60)
        messages = messages + tool_exchange(
            turn, 1_000 + (turn * 7919) % 20_000, tool="Bash" if turn % 3 else "Read"
        )
        if turn % 50 == 25:
            messages.append({"role": "assistant", "content": "noted"})
            messages.append({"role": "user", "content": f"also: instruction {turn}"})
    assert 2 in levels and levels & {3, 4}
    assert summarizer.calls
    for history, _ in summarizer.calls:
        assert goal in json.dumps(history)
    assert goal in json.dumps(messages)
