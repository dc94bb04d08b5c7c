"""Run one assistant message's tool calls: validate, ask the gate, execute, cap, order.

Consecutive concurrency-safe calls run together; every other call runs alone, in order. Results come back in
the order the model asked, whatever order they finished in. Every failure becomes a structured error result
the model can read; only cancellation (an interrupt) escapes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from yoke.fsutil import replace_file
from yoke.loop.events import PermissionDecided, ToolResultEvent
from yoke.messages import Block, tool_result_block
from yoke.permissions.gate import Answer, Decision, Gate, NoAsker, PermissionQuestion
from yoke.tools.base import Tool, ToolContext, ToolError
from yoke.tools.registry import ToolRegistry

DEFAULT_TIMEOUT_S = 15 * 60.0  # ceiling for a tool without its own; Bash enforces its own shorter limits
PREVIEW_CHARS = 2_000

Emit = Callable[[Any], Awaitable[None]]


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    input: dict[str, Any]
    input_error: str | None = None


@dataclass(slots=True)
class CallOutcome:
    call: ToolCall
    block: Block
    data: Any = None
    is_error: bool = False
    denied: bool = False
    stop_turn: bool = False  # the user denied and asked to stop


@dataclass
class ExecutionReport:
    outcomes: list[CallOutcome] = field(default_factory=list)

    @property
    def stop_turn(self) -> bool:
        return any(o.stop_turn for o in self.outcomes)


def error_text(message: str) -> str:
    return f"<tool_use_error>{message}</tool_use_error>"


class ToolExecutor:
    def __init__(
        self,
        registry: ToolRegistry,
        gate: Gate,
        ctx: ToolContext,
        *,
        before_change: Callable[[Tool, dict[str, Any]], None] | None = None,
        annotate: Callable[[Tool, dict[str, Any]], str | None] | None = None,
    ):
        self.registry = registry
        self.gate = gate
        self.ctx = ctx
        self.before_change = before_change  # e.g. a checkpoint snapshot before a file-changing call
        self.annotate = annotate  # extra context for the model after a successful call (nested memory files)

    async def run(self, calls: list[ToolCall], emit: Emit) -> ExecutionReport:
        report = ExecutionReport()
        for batch in self._batches(calls):
            if len(batch) == 1:
                outcomes = [await self._run_one(batch[0], emit)]
            else:
                outcomes = list(await asyncio.gather(*(self._run_one(c, emit) for c in batch)))
            report.outcomes.extend(outcomes)
            if report.stop_turn:
                break
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
            return bool(tool.is_concurrency_safe(tool.input_model.model_validate(call.input)))
        except Exception:
            return False

    async def _run_one(self, call: ToolCall, emit: Emit) -> CallOutcome:
        tool = self.registry.get(call.name)
        if tool is None:
            return await self._error(call, f"Error: No such tool available: {call.name}", emit)
        if call.input_error:
            return await self._error(
                call, f"InputValidationError: the tool input was not valid JSON ({call.input_error}).", emit
            )
        try:
            parsed = tool.input_model.model_validate(call.input)
        except Exception as exc:  # pydantic ValidationError
            return await self._error(call, f"InputValidationError: {_validation_summary(exc)}", emit)

        decision = await self.gate.decide(tool, call.input, self.ctx)
        answer: Answer | None = None
        if decision.behavior == "ask":
            answer = await self._ask(tool, call, decision)
            decision = Decision(
                answer.behavior,
                answer.message or decision.reason,
                "user" if answer.behavior == "allow" else "user-denied",
                answer.updated_input,
            )
        await emit(
            PermissionDecided(
                call.id, tool.name, call.input, decision.behavior, decision.source, decision.reason
            )
        )
        if decision.behavior == "deny":
            message = decision.reason or f"Permission to use {tool.name} was denied."
            outcome = await self._error(call, message, emit)
            outcome.denied = True
            outcome.stop_turn = bool(answer and answer.interrupt)
            return outcome
        if decision.updated_input is not None:
            try:
                parsed = tool.input_model.model_validate(decision.updated_input)
            except Exception as exc:
                return await self._error(call, f"InputValidationError: {_validation_summary(exc)}", emit)

        if self.before_change is not None and not tool.is_read_only(parsed):
            self.before_change(tool, call.input)
        return await self._execute(tool, call, parsed, emit)

    async def _ask(self, tool: Tool, call: ToolCall, decision: Decision) -> Answer:
        asker = self.ctx.asker or NoAsker()
        suggest = getattr(self.gate, "suggestions", None)
        suggestions = suggest(tool, call.input) if callable(suggest) else []
        answer = await asker.ask(
            PermissionQuestion(tool.name, call.input, call.id, decision.reason, suggestions)
        )
        if answer.behavior == "allow" and answer.remember:
            remember = getattr(self.gate, "remember", None)
            if callable(remember):
                remember(tool, call.input, "session")
        return answer

    async def _execute(self, tool: Tool, call: ToolCall, parsed: Any, emit: Emit) -> CallOutcome:
        ctx = self.ctx
        ctx.tool_use_id = call.id
        timeout = tool.timeout_s or DEFAULT_TIMEOUT_S
        try:
            result = await asyncio.wait_for(tool.run(parsed, ctx), timeout)
        except ToolError as exc:
            return await self._error(call, str(exc), emit)
        except TimeoutError:
            return await self._error(call, f"{tool.name} did not finish within {timeout:.0f} s.", emit)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return await self._error(call, f"Error: {type(exc).__name__}: {exc}", emit)
        content = result.content  # a tool's own error result (e.g. a failing command) keeps its output as is
        content = self._cap(tool, call, content)
        if self.annotate is not None and not result.is_error:
            note = self.annotate(tool, call.input)
            if note:
                content = (
                    f"{content}\n\n{note}"
                    if isinstance(content, str)
                    else [*content, {"type": "text", "text": note}]
                )
        block = tool_result_block(call.id, content, result.is_error)
        await emit(ToolResultEvent(call.id, tool.name, block, result.data, result.is_error))
        return CallOutcome(call, block, result.data, result.is_error)

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
        await emit(ToolResultEvent(call.id, call.name, block, f"Error: {message}", True))
        return CallOutcome(call, block, f"Error: {message}", True)


def _validation_summary(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc)
    parts = []
    for err in errors():
        loc = ".".join(str(p) for p in err.get("loc", ())) or "input"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


def interrupted_block(call_id: str) -> Block:
    return tool_result_block(call_id, "[Request interrupted by user for tool use]", True)
