"""The hot path: the session's events and lifecycle moments turned into plain telemetry items.

`TelemetryObserver` is called for every event as the work produces it (an Agent observer) and answers the
UserPromptSubmit announcement (a lifecycle listener). It only builds small tuples and puts them on the
worker's queue; span and trace ids are chosen here, so the provider's transport can name the current model
request in a `traceparent` header before the worker has made any span. Names, units and attributes follow
Claude Code 2.1.330's export (docs/observability.md).
"""

from __future__ import annotations

import time
from typing import Any

from yoke import events as ev
from yoke.loop.lifecycle import LifecycleOutcome
from yoke.redact import redact_text
from yoke.telemetry.attributes import (
    HTTP_STATUS,
    iso_time,
    new_trace_id,
    text_of,
)
from yoke.telemetry.tool_telemetry import OpenSpan, ToolTelemetry

_STREAMING = (ev.TextDelta, ev.ThinkingDelta, ev.ToolCallStarted, ev.StreamEvent, ev.ToolCallInputPreview)


class TelemetryObserver(ToolTelemetry):
    """Events in, items (`("metric"|"log"|"span", ...)`) out to `put`. One per session; not thread-safe:
    events reach it from the session's own event loop only."""

    def __init__(self, put: Any, session_id: str, log_prompts: bool, traces: bool) -> None:
        self.put = put
        self.session_id = session_id
        self.log_prompts = log_prompts
        self.traces = traces
        self.sequence = 0
        self.prompt_id = ""
        self.trace_id = new_trace_id()
        self.interaction: OpenSpan | None = None
        self.interactions = 0
        self.requests: dict[str, OpenSpan] = {}  # agent id -> the model request in flight
        self.tools: dict[str, OpenSpan] = {}  # tool use id -> its span
        self.tool_inputs: dict[str, tuple[str, dict[str, Any], int]] = {}
        self.decided: dict[str, int] = {}  # tool use id -> when its permission was decided
        self.latest: OpenSpan | None = None  # the newest model request, named in traceparent
        self._model = ""  # the model that answered last: lines of code are credited to it

    # ---- the lifecycle seam (UserPromptSubmit: the prompt's text and a new interaction) --------------------

    def wants(self, event: str) -> bool:
        return event == "UserPromptSubmit"

    async def announce(self, event: str, payload: dict[str, Any]) -> LifecycleOutcome:
        if payload.get("agent_id"):
            return LifecycleOutcome()  # a sub-agent's prompt belongs to its parent's interaction
        self._end_interaction(time.time_ns())
        prompt = payload.get("prompt")
        text = prompt if isinstance(prompt, str) else ""
        from yoke.ids import new_uuid

        self.prompt_id = new_uuid()
        self.trace_id = new_trace_id()
        self.interactions += 1
        attrs: dict[str, Any] = {
            "span.type": "interaction",
            "user_prompt_length": len(text),
            "interaction.sequence": self.interactions,
        }
        if self.log_prompts:
            attrs["user_prompt"] = text
        self.interaction = OpenSpan(0, attrs)
        fields: dict[str, Any] = {"prompt_length": str(len(text))}
        fields["prompt"] = text if self.log_prompts else "<REDACTED>"
        self.log("user_prompt", fields)
        return LifecycleOutcome()

    # ---- what the transport asks ------------------------------------------------------------------------

    def traceparent(self) -> str | None:
        """W3C trace context naming the model request in flight (or the interaction) for a gateway."""
        if not self.traces:
            return None
        span = self.latest or self.interaction
        if span is None:
            return None
        return f"00-{self.trace_id:032x}-{span.span_id:016x}-01"

    # ---- items ----------------------------------------------------------------------------------------

    def metric(self, name: str, value: float, attrs: dict[str, Any]) -> None:
        self.put(("metric", name, value, attrs))

    def log(self, name: str, attrs: dict[str, Any]) -> None:
        now = time.time_ns()
        fields = {
            "event.name": name,
            "event.timestamp": iso_time(now),
            "event.sequence": self.sequence,
        }
        if self.prompt_id:
            fields["prompt.id"] = self.prompt_id
        fields.update(attrs)
        self.sequence += 1
        self.put(("log", name, fields, now))

    def span(self, name: str, span: OpenSpan, end_ns: int, error: str = "") -> None:
        if self.traces:
            self.put(
                (
                    "span",
                    name,
                    self.trace_id,
                    span.span_id,
                    span.parent_id,
                    span.start_ns,
                    end_ns,
                    span.attrs,
                    error,
                )
            )

    # ---- events ---------------------------------------------------------------------------------------

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, _STREAMING):
            request = self.requests.get(event.agent_id)
            if request is not None and not request.first_token_ns:
                request.first_token_ns = time.time_ns()
            return
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def _parent_for(self, event: ev.AgentEvent) -> int:
        """A sub-agent's spans hang under the Agent tool call that started it."""
        if event.parent_tool_use_id is not None:
            tool = self.tools.get(event.parent_tool_use_id)
            if tool is not None:
                return tool.span_id
        return self.interaction.span_id if self.interaction is not None else 0

    def _turn_started(self, event: ev.TurnStarted) -> None:
        attrs: dict[str, Any] = {
            "span.type": "llm_request",
            "gen_ai.operation.name": "chat",
            "turn": event.turn,
        }
        if event.agent_id != "main":
            attrs["agent_id"] = event.agent_id
        request = self.requests[event.agent_id] = OpenSpan(self._parent_for(event), attrs)
        request.attrs["retries"] = 0
        self.latest = request

    def _notice(self, event: ev.Notice) -> None:
        if event.kind == "api_retry":
            request = self.requests.get(event.agent_id)
            if request is not None:
                request.attrs["retries"] += 1
                request.first_token_ns = 0  # what streamed so far is superseded

    def _assistant(self, event: ev.AssistantMessage) -> None:
        request = self.requests.get(event.agent_id)
        now = time.time_ns()
        duration_ms = (now - request.start_ns) // 1_000_000 if request is not None else 0
        if event.error is not None:
            text = text_of(event.message)
            status = HTTP_STATUS.search(text)
            self.log(
                "api_error",
                {
                    "model": self._model or event.model,
                    "error": redact_text(text),  # a provider's error may echo what it was sent
                    "status_code": status.group(1) if status else event.error,
                    "error_kind": event.error,
                    "duration_ms": duration_ms,
                    "attempt": 1 + (request.attrs["retries"] if request is not None else 0),
                },
            )
            if request is not None:
                del self.requests[event.agent_id]
                self._drop_latest(request)
                self.span("claude_code.llm_request", request, now, error=event.error)
            return
        text = text_of(event.message)
        fields: dict[str, Any] = {
            "model": event.model,
            "response_length": len(text),
            "message.uuid": event.uuid,
        }
        if self.log_prompts:
            fields["response"] = text
        self.log("assistant_response", fields)
        self._model = event.model
        if request is not None:
            request.attrs["model"] = event.model
            request.attrs["gen_ai.request.model"] = event.model
            request.attrs["stop_reason"] = event.stop_reason or ""

    def _usage(self, event: ev.UsageEvent) -> None:
        now = time.time_ns()
        usage = event.usage
        request = self.requests.pop(event.agent_id, None)
        duration_ms = (now - request.start_ns) // 1_000_000 if request is not None else 0
        ttft_ms = (
            (request.first_token_ns - request.start_ns) // 1_000_000
            if request and request.first_token_ns
            else 0
        )
        source = "main" if event.agent_id == "main" else "subagent"
        counts = (
            ("input", usage.input_tokens),
            ("output", usage.output_tokens),
            ("cacheRead", usage.cache_read_input_tokens),
            ("cacheCreation", usage.cache_creation_input_tokens),
        )
        for kind, count in counts:
            if count:
                self.metric(
                    "claude_code.token.usage",
                    count,
                    {"model": event.model, "query_source": source, "type": kind},
                )
        self.metric("claude_code.cost.usage", event.cost_usd, {"model": event.model, "query_source": source})
        figures = {
            "model": event.model,
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_tokens": usage.cache_read_input_tokens,
            "cache_creation_tokens": usage.cache_creation_input_tokens,
            "cost_usd": event.cost_usd,
            "duration_ms": duration_ms,
            "ttft_ms": ttft_ms,
        }
        self.log("api_request", {**figures, "query_source": source})
        if request is not None:
            self._drop_latest(request)
            request.attrs.update(figures)
            request.attrs.update(spend_attributes(event.attribution))
            self.span("claude_code.llm_request", request, now)

    def _drop_latest(self, request: OpenSpan) -> None:
        if self.latest is request:
            self.latest = next(iter(self.requests.values()), None)

    def _result(self, event: ev.Result) -> None:
        if event.agent_id != "main" or event.parent_tool_use_id is not None:
            return
        self.metric("claude_code.active_time.total", event.duration_ms / 1000.0, {"type": "cli"})
        now = time.time_ns()
        for agent_id, request in list(self.requests.items()):  # interrupted mid-request
            self.span("claude_code.llm_request", request, now, error="interrupted")
            del self.requests[agent_id]
        self.latest = None
        if self.interaction is not None:
            self.interaction.attrs.update(
                {
                    "num_turns": event.num_turns,
                    "cost_usd": event.total_cost_usd,
                    "termination_reason": event.reason,
                }
            )
        self._end_interaction(now, error=event.reason if event.is_error else "")

    def _end_interaction(self, now: int, error: str = "") -> None:
        if self.interaction is not None:
            for tool in self.tools.values():  # calls a stop left unanswered by a result event
                self.span("claude_code.tool", tool, now, error="not run")
            self.tools.clear()
            self.span("claude_code.interaction", self.interaction, now, error=error)
            self.interaction = None

    def hook_ran(self, event: str, payload: dict[str, Any], start_ns: int, outcome: Any, error: str) -> None:
        """A span for one announcement answered by hooks, under the tool call it is about (if any)."""
        tool = self.tools.get(str(payload.get("tool_use_id") or ""))
        parent = tool.span_id if tool is not None else (self.interaction.span_id if self.interaction else 0)
        attrs: dict[str, Any] = {"span.type": "hook", "hook_event": event}
        if payload.get("tool_name"):
            attrs["tool_name"] = str(payload["tool_name"])
        if outcome is not None:
            attrs["decision"] = outcome.decision or ""
            attrs["blocked"] = bool(outcome.block or outcome.stop)
        now = time.time_ns()
        attrs["duration_ms"] = (now - start_ns) // 1_000_000
        span = OpenSpan(parent, attrs)
        span.start_ns = start_ns
        self.span("claude_code.hook", span, now, error=error)

    def model_changed(self, model: str) -> None:
        self._model = model


def spend_attributes(attribution: dict[str, Any]) -> dict[str, Any]:
    """Where a request's money went, as span attributes (Yoke's own `yoke.*` names): its cause, why its
    cache missed, and the tool results it added to the prompt."""
    attrs: dict[str, Any] = {}
    if attribution.get("cause"):
        attrs["yoke.cause"] = attribution["cause"]
    misses = attribution.get("cacheMiss") or []
    if misses:
        attrs["yoke.cache_miss"] = True
        attrs["yoke.cache_miss.causes"] = ",".join(m["kind"] for m in misses)
        attrs["yoke.cache_miss.detail"] = "; ".join(m["detail"] for m in misses)
    results = attribution.get("newResults") or []
    if results:
        attrs["yoke.new_tool_results"] = ",".join(f"{name}:{size}" for _, name, size in results)
    return attrs


_HANDLERS: dict[type, Any] = {
    ev.TurnStarted: TelemetryObserver._turn_started,
    ev.Notice: TelemetryObserver._notice,
    ev.AssistantMessage: TelemetryObserver._assistant,
    ev.UsageEvent: TelemetryObserver._usage,
    ev.ToolCallCompleted: TelemetryObserver._tool_called,
    ev.PermissionDecided: TelemetryObserver._decided,
    ev.ToolResultEvent: TelemetryObserver._tool_result,
    ev.Result: TelemetryObserver._result,
}
