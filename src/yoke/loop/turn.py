"""The turn engine: one user query in, a stream of events out, until a termination reason.

`Agent.query(prompt)` is an async generator. The query's work (model streams, tools, hooks, compaction) runs
in one task of its own (`Pump`), so `interrupt()` cancels it at whatever await it has reached and the
generator, still in control, answers every dangling tool call and ends with `Result("interrupted")`. The
history and the transcript are written here, before the matching event is yielded; front-ends only read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Protocol

from yoke import events as ev
from yoke.loop.accounting import CostLedger
from yoke.loop.executor import ToolExecutor
from yoke.loop.lifecycle import Lifecycle
from yoke.loop.pump import Pump
from yoke.messages import Block, Message
from yoke.providers import base as pb
from yoke.records import Record

if TYPE_CHECKING:
    from yoke.loop.recording import Recording


class LoopSettings(Record):
    __slots__ = (
        "model",
        "max_turns",
        "max_budget_usd",
        "max_tokens",
        "thinking_budget",
        "effort",
        "repeat_limit",
        "include_partial",
        "asked",
    )

    def __init__(
        self,
        model: str,
        max_turns: int | None = None,
        max_budget_usd: float | None = None,
        max_tokens: int = 32000,
        thinking_budget: int | None = None,
        effort: str | None = None,  # reasoning effort level (providers/effort.py)
        repeat_limit: int = 5,
        include_partial: bool = False,
        asked: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.max_turns = max_turns
        self.max_budget_usd = max_budget_usd
        self.max_tokens = max_tokens
        self.thinking_budget = thinking_budget
        self.effort = effort
        self.repeat_limit = repeat_limit
        self.include_partial = include_partial
        # what the user asked for effort, thinking and max_tokens; unasked ones follow a model switch
        self.asked: dict[str, Any] = {} if asked is None else asked


class Reshaped(Protocol):
    """A compactor's answer: the history to use from now on, and a `compact_boundary` record per change."""

    messages: list[Message]
    boundaries: list[dict[str, Any]]


class HistoryKeeper(Protocol):
    """The session's compaction collaborator (`context.compaction.Compactor` fits)."""

    async def prepare(self, messages: list[Message], last_usage: pb.Usage | None) -> Reshaped: ...

    async def on_prompt_too_long(self, messages: list[Message]) -> Reshaped | None: ...

    async def compact(self, messages: list[Message], instructions: str | None = None) -> Reshaped: ...


class Agent(Record):
    """One conversation: provider, tools, history, transcript, running totals and its collaborators."""

    __slots__ = (
        "provider",
        "executor",
        "settings",
        "recorder",
        "system",
        "messages",
        "ledger",
        "keeper",
        "agent_id",
        "parent_tool_use_id",
        "last_usage",
        "inbox",
        "notices",
        "observers",
        "spend",
        "_pump",
        "_interrupt_requested",
    )

    def __init__(
        self,
        provider: pb.Provider,
        executor: ToolExecutor,
        settings: LoopSettings,
        recorder: Recording,
        system: list[Block] | None = None,
        messages: list[Message] | None = None,
        ledger: CostLedger | None = None,
        keeper: HistoryKeeper | None = None,
        agent_id: str = "main",
        parent_tool_use_id: str | None = None,
        last_usage: pb.Usage | None = None,
        inbox: list[str] | None = None,
        notices: list[str] | None = None,
        make_keeper: Callable[[Agent], HistoryKeeper] | None = None,
        observers: list[Callable[[ev.Event], None]] | None = None,
    ) -> None:
        self.provider = provider
        self.executor = executor
        self.settings = settings
        self.recorder = recorder
        self.system = [] if system is None else system
        self.messages = [] if messages is None else messages
        self.ledger = CostLedger() if ledger is None else ledger
        self.keeper = keeper  # compaction; None: the history is sent as it is
        self.agent_id = agent_id
        self.parent_tool_use_id = parent_tool_use_id  # a sub-agent: the Agent tool call that started it
        self.last_usage = last_usage  # the latest response's usage: exact context size for compaction
        # messages for the model, read before its next request; assembly hands in the session's services'
        # inbox, so tools that notify the model later (Monitor) append to it
        self.inbox = [] if inbox is None else inbox
        self.notices = [] if notices is None else notices  # for the user, shown when the next query starts
        # see every event as the work produces it (a sub-agent shares its parent's list)
        self.observers: list[Callable[[ev.Event], None]] = [] if observers is None else observers
        if make_keeper is not None:  # a keeper that summarises with this agent's provider and history
            self.keeper = make_keeper(self)
        from yoke.loop.spend import SpendTracker

        self.spend = SpendTracker()  # each request's attribution: what it added, why its cache missed
        self._pump: Pump | None = None
        self._interrupt_requested = False

    @property
    def lifecycle(self) -> Lifecycle:
        return self.executor.lifecycle

    def interrupt(self) -> None:
        """End the running query now, from whatever point it has reached; it ends with `interrupted`."""
        self._interrupt_requested = True
        self.executor.ctx.cancel.set()
        if self._pump is not None:
            self._pump.cancel()

    async def query(self, prompt: str | list[Block], attachments: Any = None) -> AsyncIterator[ev.Event]:
        """One query. `attachments` (skills.mentions.Attachments): what the prompt's `@` mentions attach."""
        from yoke.loop.run import Run

        run = Run(self)
        async for event in self._drive(run, run.execute(prompt, attachments)):
            yield event

    async def compact(self, instructions: str | None = None) -> AsyncIterator[ev.Event]:
        """`/compact [instructions]`: summarize the history now. Ends with a Result like a query does
        (`completed`, or `model_error` with the reason when compaction cannot be done)."""
        from yoke.loop.run import Run

        run = Run(self)
        async for event in self._drive(run, run.compact(instructions)):
            yield event

    async def _drive(self, run: Any, work: AsyncIterator[ev.Event]) -> AsyncIterator[ev.Event]:
        self._interrupt_requested = False
        self.executor.ctx.cancel.clear()

        async def produce(put: Any) -> None:
            async for event in work:
                put(self._publish(event))  # recorded in the order the work produced it

        pump = self._pump = Pump(produce)
        try:
            async for event in pump.items():
                yield event
        finally:
            self._pump = None
        if run.done:
            return
        if pump.error is not None and not pump.cancelled:
            endings = run.failed(pump.error)
        else:
            endings = run.interrupted()
        for event in endings:
            yield self._publish(event)

    def _publish(self, event: ev.Event) -> ev.Event:
        """Record what the transcript keeps of an event, and say which agent it came from. A sub-agent's
        events pass through as they are: its own session stamped and recorded them. Observers (telemetry;
        a sub-agent shares its parent's) see each of an agent's own events here, stamped, as the work
        produced it."""
        if event.agent_id != "main" or event.parent_tool_use_id is not None:
            return event
        if isinstance(event, ev.Notice) and event.kind != "api_retry":
            self.recorder.notice(event.kind, event.message, event.data)
        elif isinstance(event, ev.TodosChanged):
            self.recorder.todos(list(event.todos))
        elif isinstance(event, ev.PermissionDecided):
            self.recorder.permission(event)
        if self.agent_id != "main":
            ev.from_agent(event, self.agent_id, self.parent_tool_use_id)
        for observe in self.observers:
            observe(event)
        return event
