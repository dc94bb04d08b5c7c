"""The turn engine: one user query in, a stream of events out, until a termination reason.

`Agent.query(prompt)` is an async generator. Each round trip streams one model answer, appends it to the
history (and the transcript, before the event is yielded), runs its tool calls through the executor and
loops while the model keeps calling tools. Work that can be interrupted (the model stream, the tool batch)
runs as a producer task feeding a queue, so `interrupt()` cancels it at once while the generator stays in
control and answers every dangling tool call, keeping the history valid.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from yoke.hooks.base import HookRunner, NoHooks
from yoke.loop import events as ev
from yoke.loop.accounting import CostLedger
from yoke.loop.guard import RepeatGuard
from yoke.loop.recorder import Recorder
from yoke.loop.translate import EventTranslator
from yoke.messages import Block, Message, text_of, tool_result_block, tool_uses, user_message
from yoke.providers import base as pb
from yoke.tools.executor import ToolCall, ToolExecutor, interrupted_block

MAX_TOKENS_RECOVERIES = 3
CONTINUE_PROMPT = (
    "Your last answer was cut off by the output token limit. Continue exactly where you stopped, "
    "without repeating anything or apologising; break remaining work into smaller pieces."
)


@dataclass
class LoopSettings:
    model: str
    max_turns: int | None = None
    max_budget_usd: float | None = None
    max_tokens: int = 32000
    thinking_budget: int | None = None
    repeat_limit: int = 5
    include_partial: bool = False


@dataclass
class Agent:
    """One conversation: provider, tools, history, transcript and running totals."""

    provider: pb.Provider
    executor: ToolExecutor
    settings: LoopSettings
    recorder: Recorder
    system: list[Block] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    ledger: CostLedger = field(default_factory=CostLedger)
    hooks: HookRunner = field(default_factory=NoHooks)
    prepare: Callable[[list[Message]], Awaitable[list[Message]]] | None = None  # compaction hook
    on_prompt_too_long: Callable[[list[Message]], Awaitable[list[Message] | None]] | None = None
    compact_now: Callable[[list[Message], str | None], Awaitable[list[Message]]] | None = None  # /compact
    last_usage: pb.Usage | None = None  # the latest response's usage: exact context size for compaction
    pending: list[ev.Event] = field(default_factory=list)  # events raised by hooks (e.g. Compacted)
    _producer: asyncio.Task | None = field(default=None, init=False, repr=False)
    _interrupted: bool = field(default=False, init=False)

    # ---- public ---------------------------------------------------------------------------------------

    def interrupt(self) -> None:
        """Stop the stream and any running tools now; the running query ends with reason `interrupted`."""
        self._interrupted = True
        self.executor.ctx.cancel.set()
        if self._producer is not None and not self._producer.done():
            self._producer.cancel()

    async def query(self, prompt: str | list[Block]) -> AsyncIterator[ev.Event]:
        run = _Run(self)
        async for event in run.execute(prompt):
            yield event

    async def compact(self, instructions: str | None = None) -> AsyncIterator[ev.Event]:
        """`/compact [instructions]`: summarize the history now. Ends with a Result like a query does
        (`completed`, or `model_error` with the reason when compaction cannot be done)."""
        run = _Run(self)
        if self.compact_now is None:
            yield run.result("model_error", "Compaction is not available in this session.")
            return
        try:
            self.messages[:] = await self.compact_now(self.messages, instructions)
        except (RuntimeError, pb.ProviderError) as exc:
            yield run.result("model_error", str(exc))
            return
        while self.pending:
            yield self.pending.pop(0)
        yield run.result("completed", "Compacted the conversation.")


_END = object()


class _Interrupted(Exception):
    pass


class _Run:
    """The state of one query (kept off the Agent so a query's bookkeeping cannot leak into the next)."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.started = time.monotonic()
        self.api_ms = 0.0
        self.turns = 0
        self.denials: list[dict[str, Any]] = []
        self.recoveries = 0
        self.guard = RepeatGuard(agent.settings.repeat_limit)
        self.usage = pb.Usage()
        self.reactive_compaction_done = False
        self.last_stop_reason: str | None = None
        self.finished: dict[str, Block] = {}  # tool results already produced in the running batch
        self.stop_hook_active = False
        self.done = False  # set once the Result has been produced

    # ---- the loop -------------------------------------------------------------------------------------

    async def execute(self, prompt: str | list[Block]) -> AsyncIterator[ev.Event]:
        """Run the query to its end. Every path finishes by yielding exactly one `Result` (see `result`)."""
        async for event in self._begin(prompt):
            yield event
        while not self.done:
            async for event in self._round_trip():
                yield event

    async def _begin(self, prompt: str | list[Block]) -> AsyncIterator[ev.Event]:
        agent = self.agent
        agent._interrupted = False
        agent.executor.ctx.cancel.clear()
        verdict = await agent.hooks.fire("UserPromptSubmit", {"prompt": prompt})
        if verdict.stop or verdict.block:
            yield self.result(
                "hook_stopped", verdict.reason or "A UserPromptSubmit hook stopped this prompt."
            )
            return
        if verdict.additional_context and isinstance(prompt, str):
            prompt = f"{prompt}\n\n<system-reminder>\n{verdict.additional_context}\n</system-reminder>"
        message = user_message(prompt)
        agent.messages.append(message)
        agent.recorder.user(message, prompt=True)

    async def _round_trip(self) -> AsyncIterator[ev.Event]:
        """One model answer and, when it calls tools, their results."""
        agent = self.agent
        if agent.settings.max_turns is not None and self.turns >= agent.settings.max_turns:
            yield self.result("max_turns", f"Reached maximum number of turns ({agent.settings.max_turns})")
            return
        self.turns += 1
        yield ev.TurnStarted(self.turns)
        stop: pb.MessageStop | None = None
        outcome: tuple[str, str, int | None] | None = None
        async for item in self._stream_phase():
            while agent.pending:
                yield agent.pending.pop(0)
            if isinstance(item, pb.MessageStop):
                stop = item
            elif isinstance(item, tuple):
                outcome = item
            else:
                yield item
        if outcome is not None:
            reason, text, status = outcome
            if reason == "retry":  # reactive compaction made room: ask again, same turn number
                self.turns -= 1
                return
            if reason == "interrupted":  # tell the model, as Claude Code does, why its answer stops short
                self._add_meta("[Request interrupted by user]")
            yield self.result(reason, text, status)  # type: ignore[arg-type]
            return
        assert stop is not None
        for event in self._accept(stop):
            yield event
        calls = self._calls(stop)
        budget = agent.settings.max_budget_usd
        if budget is not None and agent.ledger.total_cost_usd >= budget:
            yield self._answer_dangling(calls, "Not run: the session's budget was exhausted.")
            yield self.result("budget_exceeded", f"Reached maximum budget (${budget:g})")
            return
        if not calls:
            async for event in self._final_answer(stop):
                yield event
            return
        async for event in self._tools(calls):
            yield event

    async def _final_answer(self, stop: pb.MessageStop) -> AsyncIterator[ev.Event]:
        """An answer without tool calls: recover from the output limit, consult Stop hooks, or finish."""
        agent = self.agent
        if stop.stop_reason == "max_tokens":
            if self.recoveries >= MAX_TOKENS_RECOVERIES:
                yield self.result("max_tokens", "The model kept hitting its output token limit.")
                return
            self.recoveries += 1
            yield ev.Notice("max_tokens_recovery", f"Output limit hit; continuing ({self.recoveries}/3).")
            self._add_meta(CONTINUE_PROMPT)
            return
        verdict = await agent.hooks.fire("Stop", {"stop_hook_active": self.stop_hook_active})
        if verdict.stop:
            yield self.result("hook_stopped", verdict.reason or "A Stop hook ended the session.")
        elif verdict.block and verdict.reason:
            self.stop_hook_active = True  # a Stop hook asked to keep going, with its reason as feedback
            self._add_meta(f"Stop hook feedback:\n{verdict.reason}")
        else:
            yield self.result("completed", text_of(stop.message))

    async def _tools(self, calls: list[ToolCall]) -> AsyncIterator[ev.Event]:
        repeated = self.guard.check(calls)
        if repeated:
            yield self._answer_dangling(calls, f"Not run: {repeated}")
            yield self.result("loop_detected", repeated)
            return
        report = None
        self.finished = {}
        async for item in self._tool_phase(calls):
            if isinstance(item, tuple):
                report = item[0]
            else:
                yield item
            while self.agent.pending:  # e.g. TodosChanged from a tool
                yield self.agent.pending.pop(0)
        if report is None:  # interrupted while tools ran
            yield self._answer_dangling(calls, None)
            yield self.result("interrupted", "Interrupted by user.")
            return
        yield self._tool_results(report)
        if report.stop_turn:
            yield self.result("tool_denied_stop", "Stopped: the user denied a tool call and asked to stop.")

    def _add_meta(self, text: str) -> None:
        message = user_message(text)
        self.agent.messages.append(message)
        self.agent.recorder.user(message, meta=True)

    # ---- phases ---------------------------------------------------------------------------------------

    async def _stream_phase(self) -> AsyncIterator[Any]:
        """Stream one model answer. Yields events, then the MessageStop, or an (reason, text, status) outcome."""
        agent = self.agent
        messages = agent.messages
        if agent.prepare is not None:
            messages = await agent.prepare(messages)
            agent.messages[:] = messages
        request = pb.ModelRequest(
            model=agent.settings.model,
            messages=list(messages),
            system=agent.system,
            tools=agent.executor.registry.specs(),
            max_tokens=agent.settings.max_tokens,
            thinking_budget=agent.settings.thinking_budget,
        )
        queue: asyncio.Queue = asyncio.Queue()
        started = time.monotonic()

        async def produce() -> None:
            try:
                async for event in agent.provider.stream(request):
                    queue.put_nowait(event)
                queue.put_nowait(_END)
            except asyncio.CancelledError:
                queue.put_nowait(_Interrupted())
            except pb.ProviderError as exc:
                queue.put_nowait(exc)
            except Exception as exc:  # a bug or an unexpected transport failure: report, don't crash
                queue.put_nowait(pb.ProviderError("connection", f"{type(exc).__name__}: {exc}"))

        agent._producer = asyncio.get_running_loop().create_task(produce())
        if agent._interrupted:
            agent._producer.cancel()
        previews = EventTranslator()
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    break
                if isinstance(item, _Interrupted):
                    yield ("interrupted", "Interrupted by user.", None)
                    return
                if isinstance(item, pb.ProviderError):
                    self.api_ms += (time.monotonic() - started) * 1000
                    yield await self._provider_failure(item)
                    return
                if agent.settings.include_partial and not isinstance(item, pb.RetryNotice):
                    yield ev.StreamEvent(item)
                for out in previews.translate(item):
                    yield out
                if isinstance(item, pb.MessageStop):
                    self.api_ms += (time.monotonic() - started) * 1000
                    yield item
        finally:
            agent._producer = None

    async def _provider_failure(self, error: pb.ProviderError) -> tuple[str, str, int | None]:
        agent = self.agent
        if error.kind == "prompt_too_long":
            if not self.reactive_compaction_done and agent.on_prompt_too_long is not None:
                self.reactive_compaction_done = True
                compacted = await agent.on_prompt_too_long(agent.messages)
                if compacted is not None:
                    agent.messages[:] = compacted
                    return ("retry", "", None)
            return ("prompt_too_long", f"Prompt is too long: {error}", error.status)
        return ("model_error", f"API Error: {error}", error.status)

    async def _tool_phase(self, calls: list[ToolCall]) -> AsyncIterator[Any]:
        agent = self.agent
        queue: asyncio.Queue = asyncio.Queue()

        async def emit(event: Any) -> None:
            if isinstance(event, ev.PermissionDecided):
                agent.recorder.permission(event)
                if event.behavior == "deny":
                    self.denials.append(
                        {
                            "tool_name": event.tool_name,
                            "tool_use_id": event.tool_use_id,
                            "tool_input": event.input,
                        }
                    )
            queue.put_nowait(event)

        async def produce() -> None:
            try:
                report = await agent.executor.run(calls, emit)
                queue.put_nowait((report,))
            except asyncio.CancelledError:
                queue.put_nowait(_Interrupted())
            except Exception as exc:  # executor bug: every call still gets an answer
                queue.put_nowait(exc)

        agent._producer = asyncio.get_running_loop().create_task(produce())
        if agent._interrupted:
            agent._producer.cancel()
        try:
            while True:
                item = await queue.get()
                if isinstance(item, _Interrupted):
                    return
                if isinstance(item, Exception):
                    raise item
                if isinstance(item, ev.ToolResultEvent):
                    self.finished[item.tool_use_id] = item.block
                yield item
                if isinstance(item, tuple):
                    return
        finally:
            agent._producer = None

    # ---- bookkeeping ----------------------------------------------------------------------------------

    def _accept(self, stop: pb.MessageStop) -> list[ev.Event]:
        agent = self.agent
        self.last_stop_reason = stop.stop_reason
        message = stop.message
        if not message["content"]:
            message = {
                "role": "assistant",
                "content": [{"type": "text", "text": "(no content)"}],
            }  # the API refuses empty text
        agent.messages.append(message)
        uuid = agent.recorder.assistant(stop, message)
        self.usage.add(stop.usage)
        agent.last_usage = stop.usage
        model = stop.model or agent.settings.model
        cost = agent.ledger.add(model, stop.usage)
        out: list[ev.Event] = [
            ev.AssistantMessage(message, stop.id, model, stop.stop_reason, stop.usage, uuid),
            ev.UsageEvent(model, stop.usage, cost, agent.ledger.total_cost_usd),
            *(ev.Notice("warning", text) for text in agent.ledger.take_notices()),
            ev.TurnEnded(self.turns, stop.stop_reason),
        ]
        return out

    def _calls(self, stop: pb.MessageStop) -> list[ToolCall]:
        return [
            ToolCall(b["id"], b["name"], b.get("input") or {}, stop.input_errors.get(b["id"]))
            for b in tool_uses(stop.message)
        ]

    def _tool_results(self, report: Any) -> ev.ToolResultsMessage:
        agent = self.agent
        blocks = [o.block for o in report.outcomes]
        answered = {o.call.id for o in report.outcomes}
        last = agent.messages[-1]
        for use in tool_uses(last):  # calls skipped after a stop-the-turn denial still need an answer
            if use["id"] not in answered:
                blocks.append(tool_result_block(use["id"], "Not run: the user stopped this turn.", True))
        message = user_message(blocks)
        agent.messages.append(message)
        data = report.outcomes[0].data if len(report.outcomes) == 1 else None
        uuid = agent.recorder.user(message, tool_use_result=data)
        results = [
            ev.ToolResultEvent(o.call.id, o.call.name, o.block, o.data, o.is_error) for o in report.outcomes
        ]
        return ev.ToolResultsMessage(message, uuid, results)

    def _answer_dangling(self, calls: list[ToolCall], reason: str | None) -> ev.ToolResultsMessage:
        """Answer every unanswered tool call so the history stays valid for the next request or a resume."""
        agent = self.agent
        blocks = [
            self.finished.get(c.id)
            or (interrupted_block(c.id) if reason is None else tool_result_block(c.id, reason, True))
            for c in calls
        ]
        message = user_message(blocks)
        agent.messages.append(message)
        uuid = agent.recorder.user(message)
        return ev.ToolResultsMessage(message, uuid, [])

    def result(self, reason: ev.TerminationReason, text: str, status: int | None = None) -> ev.Result:
        self.done = True
        agent = self.agent
        is_error = reason != "completed"
        result = ev.Result(
            reason=reason,
            is_error=is_error,
            text=text,
            # Claude Code counts the turn it refused to start when the limit stops a run (5 -> 6).
            num_turns=self.turns + 1 if reason == "max_turns" else self.turns,
            duration_ms=int((time.monotonic() - self.started) * 1000),
            duration_api_ms=int(self.api_ms),
            total_cost_usd=agent.ledger.total_cost_usd,
            usage=self.usage,
            model_usage=agent.ledger.model_usage(),
            permission_denials=self.denials,
            stop_reason=self.last_stop_reason,
            errors=[text] if is_error else [],
            api_error_status=status,
        )
        agent.recorder.result(result)
        return result
