"""Run one assistant message's tool calls: validate, announce, ask the gate, execute, cap, order.

Consecutive concurrency-safe calls run together; every other call runs alone, in order. Results come back in
the order the model asked, whatever order they finished in. Every failure, including a bug in the gate, a
listener or an observer, becomes a structured error result the model can read; only cancellation (an
interrupt) escapes. Each call gets its own context (its id, its own event channel).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Literal

from yoke.events import Notice, PermissionDecided, ToolResultEvent
from yoke.fsutil import replace_file
from yoke.loop.calls import (
    CallOutcome,
    Emit,
    ExecutionReport,
    ToolCall,
    ToolObserver,
    error_text,
    first_text,
    json_text,
    with_notes,
)
from yoke.loop.lifecycle import Lifecycle, LifecycleOutcome
from yoke.messages import Block, tool_result_block
from yoke.permissions.gate import Decision, Gate
from yoke.seams import Answer, NoAsker, PermissionQuestion
from yoke.tools.base import Tool, ToolContext, ToolError, ToolInputError, ToolResult
from yoke.tools.registry import ToolRegistry

DEFAULT_TIMEOUT_S = 15 * 60.0  # ceiling for a tool without its own; Bash enforces its own shorter limits
PREVIEW_CHARS = 2_000


class ToolExecutor:
    def __init__(
        self,
        registry: ToolRegistry,
        gate: Gate,
        ctx: ToolContext,
        lifecycle: Lifecycle | None = None,
        observers: list[ToolObserver] | None = None,
    ):
        self.registry = registry
        self.gate = gate
        self.ctx = ctx  # the session's context; each call runs with its own copy
        self.lifecycle = lifecycle or Lifecycle()
        self.observers = list(observers or [])

    async def run(self, calls: list[ToolCall], emit: Emit) -> ExecutionReport:
        report = ExecutionReport()
        for batch in self._batches(calls):
            if len(batch) == 1:
                outcomes = [await self._run_guarded(batch[0], emit)]
            else:
                outcomes = list(await asyncio.gather(*(self._run_guarded(c, emit) for c in batch)))
            report.outcomes.extend(outcomes)
            stops = [o.stop_query for o in outcomes if o.stop_query]
            if stops:
                report.stop_query = stops[0]
            if report.stop_turn or report.stop_query:
                break
        if not report.stop_query and not report.stop_turn and report.outcomes:
            report.stop_query = await self._after_batch(report, emit)
        return report

    def _batches(self, calls: list[ToolCall]) -> list[list[ToolCall]]:
        """Group consecutive concurrency-safe calls; every other call is a batch of one."""
        batches: list[list[ToolCall]] = []
        last_safe = False
        for call in calls:
            safe = self._is_safe(call)
            if safe and last_safe:
                batches[-1].append(call)
            else:
                batches.append([call])
            last_safe = safe
        return batches

    def _is_safe(self, call: ToolCall) -> bool:
        tool = self.registry.get(call.name)
        if tool is None or call.input_error:
            return True  # answered with an error at once; harmless to batch
        try:
            if tool.is_concurrency_safe(tool.validate(call.input)):
                return True
            return self.gate.runs_alongside(tool, call.input)  # read-only shell commands, proven so
        except Exception:
            return False

    async def _run_guarded(self, call: ToolCall, emit: Emit) -> CallOutcome:
        """One call, whatever happens inside: a bug anywhere still answers the call."""
        try:
            return await self._run_one(call, emit)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return await self._error(call, f"Error: {type(exc).__name__}: {exc}", emit)

    async def _run_one(self, call: ToolCall, emit: Emit) -> CallOutcome:
        tool = self.registry.get(call.name)
        if tool is None:
            return await self._error(call, f"Error: No such tool available: {call.name}", emit)
        if call.input_error:
            return await self._error(
                call, f"InputValidationError: the tool input was not valid JSON ({call.input_error}).", emit
            )
        try:
            parsed = tool.validate(call.input)
        except ToolInputError as exc:
            return await self._error(call, f"InputValidationError: {exc}", emit)
        ctx = self.ctx.for_call(call.id, emit)
        input = call.input
        pre = await self._announce(
            emit, "PreToolUse", tool_name=tool.name, tool_input=input, tool_use_id=call.id
        )
        if pre.stop:
            return await self._stopped(call, pre, emit)
        if pre.updated_input is not None:
            input = pre.updated_input
            try:
                parsed = tool.validate(input)
            except ToolInputError as exc:
                return await self._error(call, f"InputValidationError: {exc}", emit)
        decision, answer = await self._permission(tool, call, input, ctx, pre, emit)
        message = decision.reason
        if decision.behavior == "deny":
            message = message or f"Permission to use {tool.name} was denied."
        verdict: Literal["allow", "deny"] = (
            "deny" if decision.behavior == "deny" else "allow"
        )  # asks are answered
        emit(PermissionDecided(call.id, tool.name, input, verdict, decision.source, message))
        if decision.behavior == "deny":
            outcome = await self._error(call, message, emit)
            outcome.denied = True
            outcome.stop_turn = bool(answer and answer.interrupt)
            return outcome
        if decision.updated_input is not None and decision.updated_input is not input:
            input = decision.updated_input
            try:
                parsed = tool.validate(input)
            except ToolInputError as exc:
                return await self._error(call, f"InputValidationError: {exc}", emit)
        if decision.confinement is not None:
            ctx = ctx.replace(confinement=decision.confinement)
        if not tool.is_read_only(parsed):
            for observer in self.observers:
                observer.before_change(tool, input, ctx)
            for observer in self.observers:
                prepare = getattr(observer, "prepare_change", None)  # a ChangeReviewer
                if prepare is not None:
                    await prepare(tool, input, ctx)
        return await self._execute(tool, call, input, parsed, ctx, emit, pre.additional_context)

    async def _permission(
        self,
        tool: Tool,
        call: ToolCall,
        input: dict[str, Any],
        ctx: ToolContext,
        pre: LifecycleOutcome,
        emit: Emit,
    ) -> tuple[Decision, Answer | None]:
        """The gate's verdict, with what PreToolUse listeners said; an ask goes to PermissionRequest
        listeners first, then to the person (the front-end's asker)."""
        hook = None
        if pre.decision in ("allow", "deny", "ask", "defer"):  # defer: headless has no one to defer to
            hook = Decision("ask" if pre.decision == "defer" else pre.decision, pre.reason, "hook")
        decision = await self.gate.decide(tool, input, ctx, hook=hook)
        if decision.behavior != "ask":
            return decision, None
        suggestions = self.gate.suggestions(tool, input)
        request = await self._announce(
            emit,
            "PermissionRequest",
            tool_name=tool.name,
            tool_input=input,
            permission_suggestions=suggestions,
        )
        if request.decision in ("allow", "deny"):
            updated = request.updated_input
            reason = request.reason or (
                "Denied by a PermissionRequest hook." if request.decision == "deny" else ""
            )
            return Decision(request.decision, reason, "hook:PermissionRequest", updated), Answer(
                request.decision, reason, updated, interrupt=bool(request.extras.get("interrupt"))
            )
        asker = ctx.asker or NoAsker()
        if self.gate.deny_prompts:  # denyInsteadOfPrompting: nobody is waited for
            asker = NoAsker()
        answer = await asker.ask(PermissionQuestion(tool.name, input, call.id, decision.reason, suggestions))
        if answer.behavior == "allow" and answer.remember:
            self.gate.remember(tool, input, "session")
        behavior_source = "user" if answer.behavior == "allow" else "user-denied"
        return Decision(
            answer.behavior, answer.message or decision.reason, behavior_source, answer.updated_input
        ), answer

    async def _execute(
        self,
        tool: Tool,
        call: ToolCall,
        input: dict[str, Any],
        parsed: Any,
        ctx: ToolContext,
        emit: Emit,
        pre_context: str,
    ) -> CallOutcome:
        timeout = tool.timeout_s or DEFAULT_TIMEOUT_S
        started = time.monotonic()
        try:
            async with asyncio.timeout(timeout):  # not wait_for: it can swallow an interrupt on 3.11
                result = await tool.run(parsed, ctx)
        except asyncio.CancelledError:
            raise
        except ToolError as exc:
            return await self._failed(tool, call, input, str(exc), started, emit)
        except TimeoutError:
            return await self._failed(
                tool, call, input, f"{tool.name} did not finish within {timeout:.0f} s.", started, emit
            )
        except Exception as exc:
            return await self._failed(tool, call, input, f"Error: {type(exc).__name__}: {exc}", started, emit)
        return await self._finished(tool, call, input, ctx, result, started, emit, pre_context)

    async def _finished(
        self,
        tool: Tool,
        call: ToolCall,
        input: dict[str, Any],
        ctx: ToolContext,
        result: ToolResult,
        started: float,
        emit: Emit,
        pre_context: str,
    ) -> CallOutcome:
        """A call that ran: its result capped, PostToolUse(Failure) announced, observers' and listeners'
        notes appended, the result event emitted."""
        content = self._cap(tool, call, result.content)
        data = result.data
        notes = [pre_context] if pre_context else []
        stop_query = ""
        if result.is_error:
            post = await self._announce(
                emit,
                "PostToolUseFailure",
                tool_name=tool.name,
                tool_input=input,
                tool_use_id=call.id,
                error=first_text(content),
                duration_ms=int((time.monotonic() - started) * 1000),
            )
        else:
            post = await self._announce(
                emit,
                "PostToolUse",
                tool_name=tool.name,
                tool_input=input,
                tool_response=data if data is not None else first_text(content),
                tool_use_id=call.id,
                duration_ms=int((time.monotonic() - started) * 1000),
            )
            if post.updated_output is not None:
                data = post.updated_output
                content = post.updated_output if isinstance(post.updated_output, str) else json_text(data)
            for observer in self.observers:
                note = observer.after_success(tool, input, ctx)
                if note:
                    notes.append(note)
            for observer in self.observers:
                review = getattr(observer, "review_change", None)  # a ChangeReviewer: it picks its calls
                if review is not None:
                    note = await review(tool, input, ctx)
                    if note:
                        notes.append(note)
        if post.block and post.reason:
            notes.append(post.reason)
        if post.additional_context:
            notes.append(post.additional_context)
        if post.stop:
            stop_query = post.stop_reason or "A PostToolUse hook stopped the session."
        content = with_notes(content, notes)
        block = tool_result_block(call.id, content, result.is_error)
        emit(ToolResultEvent(call.id, tool.name, block, data, result.is_error))
        ends = not result.is_error and getattr(type(tool), "ends_query", False)  # the class: no lazy load
        return CallOutcome(call, block, data, result.is_error, stop_query=stop_query, ends_query=ends)

    async def _failed(
        self, tool: Tool, call: ToolCall, input: dict[str, Any], message: str, started: float, emit: Emit
    ) -> CallOutcome:
        post = await self._announce(
            emit,
            "PostToolUseFailure",
            tool_name=tool.name,
            tool_input=input,
            tool_use_id=call.id,
            error=message,
            duration_ms=int((time.monotonic() - started) * 1000),
        )
        extra = "\n\n".join(x for x in (post.reason if post.block else "", post.additional_context) if x)
        outcome = await self._error(call, f"{message}\n\n{extra}" if extra else message, emit)
        if post.stop:
            outcome.stop_query = post.stop_reason or "A PostToolUseFailure hook stopped the session."
        return outcome

    async def _after_batch(self, report: ExecutionReport, emit: Emit) -> str:
        """PostToolBatch: listeners see the whole batch; a block stops the agent loop."""
        if not self.lifecycle.wants("PostToolBatch"):
            return ""
        calls = [
            {
                "tool_name": o.call.name,
                "tool_input": o.call.input,
                "tool_use_id": o.call.id,
                "tool_response": o.data,
            }
            for o in report.outcomes
        ]
        out = await self._announce(emit, "PostToolBatch", tool_calls=calls)
        if out.stop or out.block:
            return out.stop_reason or out.reason or "A PostToolBatch hook stopped the session."
        return ""

    async def _stopped(self, call: ToolCall, out: LifecycleOutcome, emit: Emit) -> CallOutcome:
        reason = out.stop_reason or out.reason or "A PreToolUse hook stopped the session."
        outcome = await self._error(call, reason, emit)
        outcome.denied = True
        outcome.stop_query = reason
        return outcome

    async def _announce(self, emit: Emit, event: str, **fields: Any) -> LifecycleOutcome:
        if not self.lifecycle.wants(event):
            return _NOTHING
        out = await self.lifecycle.announce(event, **fields)
        if out.system_message:
            emit(Notice("hook", out.system_message))
        return out

    def _cap(self, tool: Tool, call: ToolCall, content: str | list[Block]) -> str | list[Block]:
        """A result over the tool's cap is saved whole under the session folder; the model gets a preview."""
        if not isinstance(content, str) or len(content) <= tool.max_result_chars:
            return content
        path = self.ctx.session.session_dir / "tool-results" / f"{call.id}.txt"
        replace_file(path, content.encode("utf-8"))
        return (
            f"{content[:PREVIEW_CHARS]}\n\n… [output truncated: {len(content):,} characters in all; "
            f"the full output is saved at {path} — read it with Read using offset/limit, or Grep it]"
        )

    async def _error(self, call: ToolCall, message: str, emit: Emit) -> CallOutcome:
        block = tool_result_block(call.id, error_text(message), True)
        emit(ToolResultEvent(call.id, call.name, block, f"Error: {message}", True))
        return CallOutcome(call, block, f"Error: {message}", True)


_NOTHING = LifecycleOutcome()
