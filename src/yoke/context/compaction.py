"""Four-level compaction that never wedges.

The loop calls `Compactor.prepare(messages, last_usage)` before every model request. Levels run cheapest
first, each only past its threshold (for a 200K window: effective window E = 180K, autocompact A = E - 13K
= 167K):

  1. budget/snip   always: a tool result over its budget is saved to disk, replaced by preview + path
  2. microcompact  at max(A - 30K, 0.6 A): old bulky tool results become one-line stubs
  3. collapse      at max(A - 10K, 0.85 A): the oldest half of the history is folded into a short summary
                   (by the small/fast model when the loop provides one), the rest kept verbatim
  4. autocompact   at A: a structured summary of everything, then the recently read files, the lazily
                   loaded memory files and the todo list re-attached

Levels 3 and 4 call the model. After 3 consecutive failures the breaker opens: no more automatic
summaries, and past A the oldest turns are dropped instead (keeping tool pairs valid). A failure that
leaves the history over E also drops turns at once, so a request is never sent knowing it cannot fit.

Each change is reported as a `compact_boundary` record for the loop to append. Records of levels 0/3/4
(0 = turns dropped) carry `summaryMessages` and `keptMessages`, from which `yoke.session.store` rebuilds the
history on resume (the summary message has no user record of its own). Levels 1 and 2 are redone by
`prepare` after a resume, since they are deterministic.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from yoke.context.history import cut_points
from yoke.context.reduce import microcompact, snip_large_results, within_budget_memo
from yoke.context.shrink import collapse_cut, drop_oldest, fit_history, kept_count
from yoke.context.summary import (
    COLLAPSE_HEAD,
    COLLAPSE_INSTRUCTION,
    FULL_SUMMARY_INSTRUCTION,
    SUMMARY_HEAD,
    clean_summary,
    reinjection_blocks,
    select_prompts,
    summary_instruction,
    summary_text,
    user_prompts,
)
from yoke.messages import Message, text_block
from yoke.prefix import PrefixMemo
from yoke.providers.base import Usage
from yoke.providers.tokens import (
    effective_window,
    estimate_memo,
    estimate_messages,
    tokens_from_usage,
)
from yoke.records import Record

Summarize = Callable[[list[Message], str], Awaitable[str]]
AUTOCOMPACT_BUFFER = 13_000
MAX_CONSECUTIVE_FAILURES = 3
MIN_MICROCOMPACT_SAVING = 2_000
KEEP_TAIL_MAX_TOKENS = 20_000


class CompactionError(RuntimeError):
    """Compaction could not be done (the message is one line for the user)."""


class PrepareResult(Record):
    """The history to send, and the `compact_boundary` records (type/subtype/compactMetadata...) the loop
    appends to the transcript, in order, before sending. `messages` is the input list when nothing changed."""

    __slots__ = ("messages", "boundaries")

    def __init__(self, messages: list[Message], boundaries: list[dict[str, Any]] | None = None) -> None:
        self.messages = messages
        self.boundaries = [] if boundaries is None else boundaries

    @property
    def changed(self) -> bool:
        return bool(self.boundaries)


class Thresholds(Record):
    __slots__ = ("microcompact", "collapse", "autocompact", "hard")

    def __init__(self, microcompact: int, collapse: int, autocompact: int, hard: int) -> None:
        self.microcompact = microcompact
        self.collapse = collapse
        self.autocompact = autocompact
        self.hard = hard  # the effective window itself

    @classmethod
    def for_window(cls, effective: int, env: Mapping[str, str]) -> Thresholds:
        auto = effective - AUTOCOMPACT_BUFFER
        pct = (
            env.get("YOKE_AUTOCOMPACT_PCT_OVERRIDE") or env.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE") or ""
        ).strip()
        if pct.replace(".", "", 1).isdigit() and 0 < float(pct) <= 100:
            auto = min(auto, int(effective * float(pct) / 100))
        auto = max(auto, effective // 2)
        return cls(
            microcompact=max(auto - 30_000, int(auto * 0.6)),
            collapse=max(auto - 10_000, int(auto * 0.85)),
            autocompact=auto,
            hard=effective,
        )


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


class Compactor:
    def __init__(
        self,
        model: str,
        summarize: Summarize,
        session_dir: Path,
        *,
        summarize_small: Summarize | None = None,
        env: Mapping[str, str] | None = None,
        max_output: int | None = None,
        overhead_tokens: int = 0,
        recent_files: Callable[[], list[Path]] | None = None,
        todos: Callable[[], list[Any]] | None = None,
        memory_files: Callable[[], list[Any]] | None = None,
        pre_compact: Callable[[str, str | None], Awaitable[str | None]] | None = None,
        post_compact: Callable[[str], Awaitable[str | None]] | None = None,
        auto: bool = True,
        thresholds: Thresholds | None = None,
        locate: Callable[[Sequence[Message]], list[str | None]] | None = None,
        compacted: Callable[[], None] | None = None,
    ):
        """summarize: the loop's call of the main model with the given messages followed by the instruction
        (a final user message); it returns the reply text and must not itself trigger compaction.
        summarize_small: the same with the small/fast model, used for collapse. overhead_tokens: an estimate
        of the system prompt and tool definitions (refined from the API's usage once requests are made).
        recent_files / todos / memory_files: re-attached after a full compaction (most recent file first;
        memory_files = those loaded lazily during the session). pre_compact(trigger, instructions) may return
        extra summary instructions (PreCompact hook); post_compact(trigger) may return text to attach
        (SessionStart "compact" hook). auto=False (or DISABLE_AUTO_COMPACT) stops automatic levels 3-4.
        locate(messages) gives the transcript uuids of history messages (the ledger's ranges, `ledger.py`);
        compacted() is called once turns were dropped (the session offers the Recall tool from then on)."""
        env = os.environ if env is None else env
        self.model = model
        self.summarize = summarize
        self.summarize_small = summarize_small
        self.spill_dir = Path(session_dir) / "tool-results"
        self.effective_window = effective_window(model, env, max_output)
        self.thresholds = thresholds or Thresholds.for_window(self.effective_window, env)
        self.disabled = _truthy(env.get("DISABLE_COMPACT")) or _truthy(env.get("YOKE_DISABLE_COMPACT"))
        self.auto = auto and not (
            _truthy(env.get("DISABLE_AUTO_COMPACT")) or _truthy(env.get("YOKE_DISABLE_AUTO_COMPACT"))
        )
        self.recent_files = recent_files
        self.todos = todos
        self.memory_files = memory_files
        self.pre_compact = pre_compact
        self.post_compact = post_compact
        self.locate = locate
        self.compacted = compacted
        self.ledger: list[dict[str, Any]] = []  # every compaction's ledger entries so far (ledger.py)
        self.failures = 0
        self._overhead = overhead_tokens
        self._overhead_cap = max(overhead_tokens, self.effective_window // 4)
        self._usage_seen: Usage | None = None
        self._usage_stale = False
        self._reactive_used = False
        self._estimates: PrefixMemo[int] = estimate_memo()  # per message, for token_count
        self._within = within_budget_memo()  # per message: no result over its budget

    @property
    def breaker_open(self) -> bool:
        return self.failures >= MAX_CONSECUTIVE_FAILURES

    # ---- token counting -------------------------------------------------------------------------

    def _observe_usage(self, last_usage: Usage | None) -> None:
        if last_usage is not None and last_usage != self._usage_seen:
            self._usage_seen = last_usage
            self._usage_stale = False
            self._reactive_used = False  # a request got through since the last reactive attempt

    def token_count(self, messages: Sequence[Message], last_usage: Usage | None = None) -> int:
        """Context size: exact usage of the last response plus an estimate of what came after it; a pure
        estimate (plus the measured system/tools overhead) when no usable usage exists."""
        self._observe_usage(last_usage)
        last_assistant = next(
            (i for i in range(len(messages) - 1, -1, -1) if messages[i]["role"] == "assistant"), None
        )
        estimates = self._estimates
        estimates.values(messages)
        if self._usage_seen is not None and not self._usage_stale and last_assistant is not None:
            sent = tokens_from_usage(self._usage_seen)
            # what the estimate misses (system prompt, tools, estimation error), capped so that after a
            # compaction an old history's estimation error does not inflate the new count
            answered = estimates.total(upto=last_assistant + 1)
            self._overhead = min(max(0, sent - answered), self._overhead_cap)
            return sent + estimates.total() - answered
        return estimates.total() + self._overhead

    def coming(self, messages: list[Message], last_usage: Usage | None) -> dict[str, Any] | None:
        """What the window holds when the next `prepare` will call the model to compact (levels 3-4), so the
        front-end can say so first; None when it will not."""
        if self.disabled or not self.auto or self.breaker_open:
            return None
        self._observe_usage(last_usage)
        tokens = self.token_count(messages)
        if tokens >= self.thresholds.autocompact or (
            tokens >= self.thresholds.collapse and collapse_cut(messages) > 1
        ):  # what `prepare` will do: a full summary, or a collapse that has something to fold
            return self.window_used(tokens, "auto")
        return None

    def window_used(self, tokens: int, trigger: str) -> dict[str, Any]:
        window = self.effective_window
        return {
            "trigger": trigger,
            "context_tokens": tokens,
            "context_window": window,
            "percent_used": round(100 * tokens / window) if window else 0,
        }

    # ---- the loop's entry points ----------------------------------------------------------------

    async def prepare(self, messages: list[Message], last_usage: Usage | None) -> PrepareResult:
        self._observe_usage(last_usage)
        result = PrepareResult(messages)
        if self.disabled:
            return result
        tokens = self.token_count(messages)
        snipped = snip_large_results(result.messages, self.spill_dir, memo=self._within)
        if snipped.changed_ids:
            tokens = self._apply(
                result, snipped.messages, 1, tokens, "auto", toolUseIds=snipped.changed_ids, stale=False
            )
        if tokens >= self.thresholds.microcompact:
            micro = microcompact(result.messages)
            # every stub changes an old message and so the cached prefix: only worth it for a real saving
            if micro.saved_tokens >= max(MIN_MICROCOMPACT_SAVING, self.effective_window // 20):
                tokens = self._apply(result, micro.messages, 2, tokens, "auto", toolUseIds=micro.changed_ids)
        outcomes: list[str] = []
        if self.auto and not self.breaker_open and tokens >= self.thresholds.collapse:
            tokens = await self._attempt(result, tokens, self._collapse, outcomes)
        if self.auto and not self.breaker_open and tokens >= self.thresholds.autocompact:
            tokens = await self._attempt(result, tokens, self._autocompact, outcomes)
        self._count_outcome(outcomes)
        over_auto = self.breaker_open and tokens >= self.thresholds.autocompact
        if self.auto and (over_auto or tokens >= self.thresholds.hard):
            self._drop_oldest(result, tokens, int(self.thresholds.autocompact * 0.6), "auto")
        return result

    async def compact(
        self, messages: list[Message], instructions: str | None = None, trigger: str = "manual"
    ) -> PrepareResult:
        """A full (level 4) compaction on request (`/compact [instructions]`). Raises CompactionError."""
        if self.disabled:
            raise CompactionError("Compaction is disabled (DISABLE_COMPACT is set).")
        if not any(m["role"] == "assistant" for m in messages):
            raise CompactionError("Nothing to compact yet: the conversation has no replies.")
        result = PrepareResult(messages)
        tokens = self.token_count(messages)
        try:
            new = await self._full_summary(messages, instructions, trigger, self._summary_budget())
        except CompactionError:
            raise
        except Exception as exc:  # the model call failed: say so in one line
            raise CompactionError(f"Compaction failed: {exc}") from exc
        self.failures = 0
        self._apply(result, new, 4, tokens, trigger, kept=kept_count(messages, new))
        return result

    async def on_prompt_too_long(self, messages: list[Message]) -> PrepareResult | None:
        """One reactive compaction after the API said the prompt is too long; None when it was already tried
        since the last successful request, or when nothing can be made smaller."""
        if self._reactive_used or self.disabled:
            return None
        self._reactive_used = True
        result = PrepareResult(messages)
        pre = max(self.token_count(messages), self.thresholds.hard)
        if not self.breaker_open:
            budget = min(self._summary_budget(), int(estimate_messages(messages) * 0.6))

            async def reactive(msgs: list[Message], _tokens: int) -> tuple[list[Message], int, int]:
                return await self._autocompact(msgs, _tokens, budget=budget)

            outcomes: list[str] = []
            await self._attempt(result, pre, reactive, outcomes)
            self._count_outcome(outcomes)
        if not result.changed:
            self._drop_oldest(result, pre, int(self.thresholds.autocompact * 0.5), "auto")
        if not result.changed or estimate_messages(result.messages) >= estimate_messages(messages):
            return None
        return result

    # ---- levels 3 and 4 -------------------------------------------------------------------------

    async def _attempt(
        self,
        result: PrepareResult,
        tokens: int,
        level: Callable[[list[Message], int], Awaitable[tuple[list[Message], int, int]]],
        outcomes: list[str],
    ) -> int:
        """Run a model-calling level; note "failed" / "done" / "skipped" in `outcomes` instead of raising."""
        try:
            new, level_no, kept = await level(result.messages, tokens)
        except Exception:
            outcomes.append("failed")
            return tokens
        if new is result.messages:
            outcomes.append("skipped")
            return tokens
        outcomes.append("done")
        return self._apply(result, new, level_no, tokens, "auto", kept=kept)

    def _count_outcome(self, outcomes: list[str]) -> None:
        """One automatic compaction = one request's attempts: any success resets the breaker, otherwise any
        failure counts once."""
        if "done" in outcomes:
            self.failures = 0
        elif "failed" in outcomes:
            self.failures += 1

    async def _collapse(self, messages: list[Message], tokens: int) -> tuple[list[Message], int, int]:
        cut = collapse_cut(messages)
        if cut <= 1:
            return messages, 3, 0
        span = self._fit(messages[:cut], self._summary_budget())
        reply = await (self.summarize_small or self.summarize)(span, COLLAPSE_INSTRUCTION)
        summary = clean_summary(reply)
        if not summary:
            raise CompactionError("the model returned an empty summary")
        head = summary_text(
            COLLAPSE_HEAD, summary, select_prompts(user_prompts(messages[:cut])), continue_line=False
        )
        return [{"role": "user", "content": [text_block(head)]}, *messages[cut:]], 3, len(messages) - cut

    async def _autocompact(
        self, messages: list[Message], tokens: int, budget: int | None = None
    ) -> tuple[list[Message], int, int]:
        new = await self._full_summary(messages, None, "auto", budget or self._summary_budget())
        return new, 4, kept_count(messages, new)

    async def _full_summary(
        self, messages: list[Message], instructions: str | None, trigger: str, budget: int
    ) -> list[Message]:
        if self.pre_compact is not None:
            extra = await self.pre_compact(trigger, instructions)
            if extra:
                instructions = f"{instructions}\n{extra}" if instructions else extra
        reply = await self.summarize(
            self._fit(messages, budget), summary_instruction(FULL_SUMMARY_INSTRUCTION, instructions)
        )
        summary = clean_summary(reply)
        if not summary:
            raise CompactionError("the model returned an empty summary")
        cuts = cut_points(messages)
        tail: list[Message] = []
        if cuts and estimate_messages(messages[cuts[-1] :]) <= KEEP_TAIL_MAX_TOKENS:
            tail = list(messages[cuts[-1] :])
        text = summary_text(SUMMARY_HEAD, summary, select_prompts(user_prompts(messages)))
        extra_context = await self.post_compact(trigger) if self.post_compact is not None else None
        blocks = [text_block(text), *self._reinjection(extra_context)]
        return [{"role": "user", "content": blocks}, *tail]

    def _reinjection(self, extra_context: str | None) -> list[dict[str, Any]]:
        return reinjection_blocks(
            self.recent_files() if self.recent_files else [],
            self.memory_files() if self.memory_files else [],
            self.todos() if self.todos else None,
            extra_context,
        )

    # ---- helpers ----------------------------------------------------------------------------------

    def _summary_budget(self) -> int:
        """How much history a summary request may carry (room left for instruction and reply)."""
        return max(self.effective_window // 2, self.effective_window - self._overhead - 10_000)

    def _fit(self, messages: list[Message], budget: int) -> list[Message]:
        return fit_history(messages, budget, self.spill_dir)

    def _drop_oldest(self, result: PrepareResult, tokens: int, target: int, trigger: str) -> None:
        """Drop the oldest turns (keeping the user's messages in a note) until the count is about `target`;
        the last exchange always stays."""
        dropped = drop_oldest(result.messages, tokens, target)
        if dropped is not None:
            new, kept = dropped
            self._apply(result, new, 0, tokens, trigger, kept=kept)

    def _apply(
        self,
        result: PrepareResult,
        new: list[Message],
        level: int,
        pre_tokens: int,
        trigger: str,
        kept: int | None = None,
        stale: bool = True,
        **extra: Any,
    ) -> int:
        """Swap in a new history, record its boundary, and return the new token count. Dropping turns (levels
        0, 3, 4) keeps a ledger of them (`ledger.py`) in the summary message and the boundary."""
        entries: list[dict[str, Any]] = []
        if kept is not None:
            dropped = result.messages[: len(result.messages) - kept]
            new, entries = self._keep_ledger(dropped, new, kept)
        result.messages = new
        if stale:
            self._usage_stale = True
        post = self.token_count(new)
        boundary: dict[str, Any] = {
            "type": "system",
            "subtype": "compact_boundary",
            "content": f"Conversation compacted (level {level})",
            "compactMetadata": {
                "trigger": trigger,
                "level": level,
                "preTokens": pre_tokens,
                "postTokens": post,
            },
        }
        if kept is not None:
            boundary["summaryMessages"] = new[: len(new) - kept]
            boundary["keptMessages"] = kept
            boundary["ledger"] = entries
            if self.compacted is not None:
                self.compacted()
        boundary.update(extra)
        result.boundaries.append(boundary)
        return post

    def _keep_ledger(
        self, dropped: list[Message], new: list[Message], kept: int
    ) -> tuple[list[Message], list[dict[str, Any]]]:
        from yoke.context.ledger import extract_ledger, ledger_text, merge

        uuids = self.locate(dropped) if self.locate is not None else []
        entries = extract_ledger(dropped, uuids)
        self.ledger = merge(self.ledger, entries)
        head = len(new) - kept
        if not self.ledger or head < 1 or new[0]["role"] != "user":
            return new, entries
        content = new[0]["content"]
        blocks = [text_block(content)] if isinstance(content, str) else list(content)
        first: Message = {**new[0], "content": [*blocks, text_block(ledger_text(self.ledger))]}
        return [first, *new[1:]], entries
