"""One query's run: round trips of model answer and tool calls until a termination reason.

Every path ends by producing exactly one `Result`, and every path that ends answers all tool calls of the
last assistant message, so the history stays valid for the next request, a resume, or another provider.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.loop.api_errors import SYNTHETIC_STOP_REASON, result_text, synthetic_message
from yoke.loop.calls import ExecutionReport, ToolCall
from yoke.loop.guard import RepeatGuard
from yoke.loop.history_writes import accept_answer, answer_calls, answer_dangling, calls_of, dangling_calls
from yoke.loop.pump import Pump
from yoke.loop.translate import EventTranslator
from yoke.messages import Block, Message, text_of, user_message
from yoke.providers import base as pb

if TYPE_CHECKING:
    from yoke.loop.turn import Agent, Reshaped

MAX_TOKENS_RECOVERIES = 3
MAX_STOP_BLOCKS = (
    8  # as in Claude Code: after this many consecutive Stop-hook blocks the session stops anyway
)
CONTINUE_PROMPT = (
    "Your last answer was cut off by the output token limit. Continue exactly where you stopped, "
    "without repeating anything or apologising; break remaining work into smaller pieces."
)
INTERRUPTED_NOTE = "[Request interrupted by user]"


class Run:
    """The state of one query (kept off the Agent so a query's bookkeeping cannot leak into the next)."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.started = time.monotonic()
        self.api_ms = 0.0
        self.turns = 0
        # results beyond the first of a batch: Claude Code sends each tool result as a message of its own
        # and its num_turns counts them (two parallel calls and an answer: 3, not 2 round trips)
        self.extra_results = 0
        self.denials: list[dict[str, Any]] = []
        self.recoveries = 0
        self.guard = RepeatGuard(agent.settings.repeat_limit)
        self.usage = pb.Usage()
        self.reactive_compaction_done = False
        self.last_stop_reason: str | None = None
        self.finished: dict[str, Block] = {}  # tool results already produced in the running batch
        self.stop_blocks = 0
        self.streaming = False  # a model answer is being streamed (an interrupt leaves a note for the model)
        self.done = False  # set once the Result has been produced

    # ---- the loop -------------------------------------------------------------------------------------

    async def execute(self, prompt: str | list[Block], attachments: Any = None) -> AsyncIterator[ev.Event]:
        async for event in self._begin(prompt, attachments):
            yield event
        while not self.done:
            async for event in self._round_trip():
                yield event

    async def compact(self, instructions: str | None) -> AsyncIterator[ev.Event]:
        agent = self.agent
        if agent.keeper is None:
            yield self.result("model_error", "Compaction is not available in this session.")
            return
        used = getattr(agent.keeper, "window_used", None)
        if used is not None and getattr(agent.keeper, "token_count", None) is not None:
            yield compaction_notice(used(agent.keeper.token_count(agent.messages), "manual"))  # type: ignore[attr-defined]
        try:
            reshaped = await agent.keeper.compact(agent.messages, instructions)
        except (RuntimeError, pb.ProviderError) as exc:
            yield self.result("model_error", str(exc))
            return
        for event in self._reshape(reshaped, "manual"):
            yield event
        yield self.result("completed", "Compacted the conversation.")

    async def _begin(self, prompt: str | list[Block], attachments: Any = None) -> AsyncIterator[ev.Event]:
        agent = self.agent
        while agent.notices:  # e.g. a model switch made between queries
            yield ev.Notice("model_switch", agent.notices.pop(0))
        text = prompt if isinstance(prompt, str) else text_of(user_message(prompt))
        verdict = await agent.lifecycle.announce("UserPromptSubmit", prompt=text)
        if verdict.system_message:
            yield ev.Notice("hook", verdict.system_message)
        if verdict.stop or verdict.block:
            reason = verdict.stop_reason or verdict.reason or "A UserPromptSubmit hook stopped this prompt."
            yield self.result("hook_stopped", reason)
            return
        if verdict.additional_context:  # in the prompt's own message, after it, as Claude Code sends it
            reminder = {
                "type": "text",
                "text": f"<system-reminder>\n{verdict.additional_context}\n</system-reminder>",
            }
            blocks = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else list(prompt)
            prompt = [*blocks, reminder]
        if attachments is not None:  # `@` mentions: the first call's note, then the rest before the prompt
            agent.messages.append(attachments.first)
            agent.recorder.user(attachments.first, meta=True)
            blocks = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else list(prompt)
            prompt = [*attachments.blocks, *blocks]
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
        while agent.inbox:  # messages that arrived while the model worked (SendMessage, notifications)
            self._add_meta(agent.inbox.pop(0))
        yield ev.TurnStarted(self.turns)
        stop: pb.MessageStop | None = None
        outcome: tuple[str, str, int | None] | None = None
        async for item in self._stream_phase():
            if isinstance(item, pb.MessageStop):
                stop = item
            elif isinstance(item, tuple):
                outcome = item
            else:
                yield item
        if outcome is not None:
            async for event in self._stream_failed(*outcome):
                yield event
            return
        assert stop is not None
        for event in self._accept(stop):
            yield event
        calls = calls_of(stop)
        budget = agent.settings.max_budget_usd
        if budget is not None and agent.ledger.total_cost_usd >= budget:
            yield answer_dangling(
                self.agent, calls, self.finished, "Not run: the session's budget was exhausted."
            )
            yield self.result("budget_exceeded", f"Reached maximum budget (${budget:g})")
            return
        if not calls:
            async for event in self._final_answer(stop):
                yield event
            return
        async for event in self._tools(calls):
            yield event

    async def _stream_failed(self, reason: str, text: str, status: int | None) -> AsyncIterator[ev.Event]:
        if reason == "retry":  # reactive compaction made room: ask again, same turn number
            self.turns -= 1
            return
        out = await self.agent.lifecycle.announce(
            "StopFailure", error=_stop_failure_kind(status), error_details=text, last_assistant_message=""
        )
        if out.system_message:
            yield ev.Notice("hook", out.system_message)
        yield synthetic_message(text, status)  # as Claude Code: the error stands as the model's answer
        self.last_stop_reason = SYNTHETIC_STOP_REASON
        yield self.result(reason, text, status)  # type: ignore[arg-type]

    async def _final_answer(self, stop: pb.MessageStop) -> AsyncIterator[ev.Event]:
        """An answer without tool calls: recover from the output limit, consult Stop listeners, or finish."""
        agent = self.agent
        if stop.stop_reason == "max_tokens":
            if self.recoveries >= MAX_TOKENS_RECOVERIES:
                yield self.result("max_tokens", "The model kept hitting its output token limit.")
                return
            self.recoveries += 1
            yield ev.Notice("max_tokens_recovery", f"Output limit hit; continuing ({self.recoveries}/3).")
            self._add_meta(CONTINUE_PROMPT)
            return
        answer = text_of(stop.message)
        scheduler = agent.executor.ctx.session.services.scheduler  # 2.1.332 names its jobs here
        crons = {"session_crons": scheduler.session_crons()} if scheduler is not None else {}
        verdict = await agent.lifecycle.announce(
            "Stop", stop_hook_active=self.stop_blocks > 0, last_assistant_message=answer, **crons
        )
        if verdict.system_message:
            yield ev.Notice("hook", verdict.system_message)
        if verdict.stop:
            yield self.result("hook_stopped", verdict.stop_reason or "A Stop hook ended the session.")
            return
        feedback = verdict.reason if verdict.block else verdict.additional_context
        if feedback and self.stop_blocks < MAX_STOP_BLOCKS:
            self.stop_blocks += 1  # a Stop listener asked to keep going, with its reason as feedback
            message, uuid = self._add_meta(f"Stop hook feedback:\n{feedback}")
            yield ev.ContinuationMessage(message, uuid)
            if verdict.block and not verdict.extras.get("internal"):  # a user's hook, not Yoke's own listener
                yield ev.Notice("stop_hook_blocked", "A Stop hook kept the turn going.")
            return
        yield self.result("completed", answer)

    async def _tools(self, calls: list[ToolCall]) -> AsyncIterator[ev.Event]:
        repeated = self.guard.check(calls)
        if repeated:
            yield answer_dangling(self.agent, calls, self.finished, f"Not run: {repeated}")
            yield self.result("loop_detected", repeated)
            return
        self.finished = {}
        reports: list[ExecutionReport] = []

        async def work(put: Any) -> None:
            reports.append(await self.agent.executor.run(calls, put))

        pump = Pump(work)
        async for item in pump.items():
            if isinstance(item, ev.ToolResultEvent):
                self.finished[item.tool_use_id] = item.block
            elif isinstance(item, ev.PermissionDecided) and item.behavior == "deny":
                self.denials.append(
                    {"tool_name": item.tool_name, "tool_use_id": item.tool_use_id, "tool_input": item.input}
                )
            yield item
        if pump.error is not None:
            raise pump.error
        report = reports[0]
        yield self._tool_results(report)
        if report.stop_turn:
            yield self.result("tool_denied_stop", "Stopped: the user denied a tool call and asked to stop.")
        elif report.stop_query:
            yield self.result("hook_stopped", report.stop_query)
        elif report.ends_query:  # e.g. a valid StructuredOutput call: no further request (2.1.330)
            self.extra_results += 1  # its results count as a turn all the same, as 2.1.330 counts
            yield self.result("completed", "")

    def _add_meta(self, text: str) -> tuple[Message, str]:
        message = user_message(text)
        self.agent.messages.append(message)
        return message, self.agent.recorder.user(message, meta=True)

    # ---- the model's answer ---------------------------------------------------------------------------

    async def _stream_phase(self) -> AsyncIterator[Any]:
        """Stream one model answer. Yields events, then the MessageStop, or a (reason, text, status) tuple."""
        agent = self.agent
        if agent.keeper is not None:
            coming = getattr(agent.keeper, "coming", None)
            window = coming(agent.messages, agent.last_usage) if coming is not None else None
            if window is not None:  # said before the summary's model call (a PreCompact hook may still veto)
                yield compaction_notice(window)
            for event in self._reshape(await agent.keeper.prepare(agent.messages, agent.last_usage), "auto"):
                yield event
        request = pb.ModelRequest(
            model=agent.settings.model,
            messages=list(agent.messages),
            system=agent.system,
            tools=agent.executor.registry.specs(),
            max_tokens=agent.settings.max_tokens,
            thinking_budget=agent.settings.thinking_budget,
            effort=agent.settings.effort,
            thinking_display=_thinking_display(agent),
        )
        agent.spend.sending(request.model, request.system, request.tools, request.messages)
        started = time.monotonic()
        previews = EventTranslator()
        self.streaming = True
        try:
            async with aclosing(agent.provider.stream(request)) as stream:
                async for item in stream:
                    if isinstance(item, pb.BlockStart) and item.block.get("type") == "tool_use":
                        self._prepare_tool(str(item.block.get("name", "")))
                    if agent.settings.include_partial and not isinstance(item, pb.RetryNotice):
                        yield ev.StreamEvent(item)
                    for out in previews.translate(item):
                        yield out
                    if isinstance(item, pb.MessageStop):
                        self.api_ms += (time.monotonic() - started) * 1000
                        self.streaming = False
                        yield item
                        return
        except pb.ProviderError as exc:
            self.streaming = False
            self.api_ms += (time.monotonic() - started) * 1000
            error = exc
        else:
            self.streaming = False
            error = pb.ProviderError("connection", "the stream ended without an answer")
        if error.kind != "prompt_too_long":
            yield ("model_error", result_text(error), error.status)
            return
        if not self.reactive_compaction_done and agent.keeper is not None:
            self.reactive_compaction_done = True  # one reactive compaction, then the error stands
            reshaped = await agent.keeper.on_prompt_too_long(agent.messages)
            if reshaped is not None:
                for event in self._reshape(reshaped, "auto"):
                    yield event
                yield ("retry", "", None)
                return
        yield ("prompt_too_long", result_text(error), error.status)

    def _prepare_tool(self, name: str) -> None:
        prepare = getattr(self.agent.executor.registry.get(name), "prepare", None)
        if prepare is not None:
            prepare()

    def _reshape(self, reshaped: Reshaped, trigger: str) -> list[ev.Event]:
        """Adopt a compactor's history; its boundaries go to the transcript and out as Compacted events."""
        agent = self.agent
        if reshaped.messages is not agent.messages:
            agent.messages[:] = reshaped.messages
        events: list[ev.Event] = []
        if reshaped.boundaries:
            agent.spend.compacted = True  # the next request's cache miss has its cause
        for boundary in reshaped.boundaries:
            agent.recorder.system(boundary)
            meta = boundary.get("compactMetadata") or {}
            events.append(ev.Compacted(meta.get("trigger", trigger), int(meta.get("preTokens", 0))))
        return events

    # ---- bookkeeping ----------------------------------------------------------------------------------

    def _accept(self, stop: pb.MessageStop) -> list[ev.Event]:
        self.last_stop_reason = stop.stop_reason
        self.usage.add(stop.usage)
        return accept_answer(self.agent, stop, self.turns)

    def _tool_results(self, report: ExecutionReport) -> ev.ToolResultsMessage:
        message = answer_calls(self.agent, report)
        self.extra_results += max(0, len(message.message["content"]) - 1)
        return message

    # ---- endings the work itself could not produce ----------------------------------------------------

    def interrupted(self) -> list[ev.Event]:
        """The query was interrupted at some await: answer what dangles, tell the model, end."""
        out: list[ev.Event] = []
        calls = dangling_calls(self.agent.messages)
        if calls:
            out.append(answer_dangling(self.agent, calls, self.finished, None))
        elif self.streaming or _last_is_prompt(self.agent.messages):
            self._add_meta(INTERRUPTED_NOTE)  # as Claude Code does: the model learns why its answer stops
        out.append(self.result("interrupted", "Interrupted by user."))
        return out

    def failed(self, error: BaseException) -> list[ev.Event]:
        """A bug inside the run: the query still ends properly, with the error as its reason."""
        out: list[ev.Event] = []
        calls = dangling_calls(self.agent.messages)
        if calls:
            out.append(
                answer_dangling(
                    self.agent, calls, self.finished, f"Not run: internal error ({type(error).__name__})."
                )
            )
        out.append(self.result("model_error", f"Internal error: {type(error).__name__}: {error}"))
        return out

    def result(self, reason: ev.TerminationReason, text: str, status: int | None = None) -> ev.Result:
        self.done = True
        agent = self.agent
        is_error = reason != "completed"
        result = ev.Result(
            reason=reason,
            is_error=is_error,
            text=text,
            # Claude Code counts the turn it refused to start when the limit stops a run (5 -> 6).
            num_turns=self.turns + 1 if reason == "max_turns" else self.turns + self.extra_results,
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


def compaction_notice(window: dict[str, Any]) -> ev.Notice:
    """The notice that compaction is coming, with how much of the window is used."""
    text = (
        f"Compacting the conversation ({window['trigger']}): {window['context_tokens']:,} of "
        f"{window['context_window']:,} tokens of the context window used ({window['percent_used']}%)."
    )
    return ev.Notice("compaction_coming", text, window)


def _last_is_prompt(messages: list[Message]) -> bool:
    return bool(messages) and messages[-1]["role"] == "user"


def _stop_failure_kind(status: int | None) -> str:
    return {429: "rate_limit", 529: "overloaded", 401: "authentication_failed", 400: "invalid_request"}.get(
        status or 0, "server_error" if status and status >= 500 else "unknown"
    )


def _thinking_display(agent: Any) -> str:
    """A sub-agent's thinking is shown to nobody unless asked (--forward-subagent-text): 2.1.330 asks the
    API to leave its text out then."""
    if agent.parent_tool_use_id is None or agent.settings.asked.get("show_subagent_thinking"):
        return "updates"
    return "omitted"
