"""The session port: what every client of a session speaks, in process or through the host.

`submit(op)` takes one `Op`; `events()` is one continuous stream that does not end between turns (turns any
client started, background work and its follow-up query, questions for a person and their answers, "idle");
`snapshot()` is a frozen record of what a client shows. `Session` (`session/port.py`) implements it, and so
does the host's `RemoteSession` (`host/remote.py`), which sends the same ops over the wire. It lives here,
the lowest layer that knows the events, so every front-end can type its session as `SessionPort`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import field
from typing import Any, Literal, Protocol, runtime_checkable

from yoke.events.base import AgentEvent
from yoke.events.result import Event
from yoke.events.stream import SessionStarted
from yoke.messages import Block
from yoke.records import dataclass

# ---- ops: what a client asks of a session ---------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class Prompt:
    """A prompt: queued behind the running turn, run in order. `id` names it in `Queued`/`TurnBegan`.
    `join`: while a turn runs, the prompt joins it instead, read at its next model request (the stream-json
    user message's `priority: "next"`); answered `{"joined": True}` then, else queued as usual.
    `unattended`: no person started it (a schedule, a goal's next turn); its `TurnBegan` says so, and a host
    with nobody attached denies the turn's asks (docs/scheduling.md)."""

    content: str | list[Block]
    id: str = ""
    join: bool = False
    unattended: bool = False


@dataclass(slots=True, frozen=True)
class Interrupt:
    """End the running turn (and a wait on background work) within a second. `drop_queue`: the prompts
    still queued do not run either (a process stopping; they stay enqueued on disk for a resume)."""

    drop_queue: bool = False


@dataclass(slots=True, frozen=True)
class Reply:
    """The answer to a question the session asked (`Asked.request_id`): `answer` is a `seams.Answer`, or for
    AskUserQuestion a {question: label} mapping. The first answer wins; every client hears `Answered`."""

    request_id: str
    answer: Any
    by: str = ""


@dataclass(slots=True, frozen=True)
class SetMode:
    mode: str


@dataclass(slots=True, frozen=True)
class SetModel:
    model: str


@dataclass(slots=True, frozen=True)
class Compact:
    instructions: str = ""


@dataclass(slots=True, frozen=True)
class Rewind:
    """Put back the files changed since the prompt `user_message_id`."""

    user_message_id: str


@dataclass(slots=True, frozen=True)
class StopTask:
    task_id: str


@dataclass(slots=True, frozen=True)
class McpReconnect:
    server: str


@dataclass(slots=True, frozen=True)
class McpEnable:
    server: str
    enabled: bool = True


DescribeWhat = Literal["rules", "hooks", "agents", "mcp", "context", "modes", "tasks", "commands"]


@dataclass(slots=True, frozen=True)
class Describe:
    """What the session holds, for a client's panels (`/permissions`, `/hooks`, `/agents`, `/mcp`,
    `/context`, ...): `submit` returns it as {"items": ...} (plain JSON values)."""

    what: DescribeWhat


Op = (
    Prompt
    | Interrupt
    | Reply
    | SetMode
    | SetModel
    | Compact
    | Rewind
    | StopTask
    | McpReconnect
    | McpEnable
    | Describe
)
OPS: tuple[type, ...] = (
    Prompt, Interrupt, Reply, SetMode, SetModel, Compact, Rewind, StopTask, McpReconnect, McpEnable, Describe,
)  # fmt: skip

# ---- the port's own events, beside the turn's ------------------------------------------------------------


class Queued(AgentEvent):
    """A prompt was accepted (and is on disk where the session persists): it runs after those before it."""

    __slots__ = ("prompt_id", "content", "position")

    prompt_id: str
    content: Any
    position: int  # 0: it runs now

    def __init__(self, prompt_id: str, content: Any, position: int, **where: Any) -> None:
        super().__init__(**where)
        self.prompt_id, self.content, self.position = prompt_id, content, position


class TurnBegan(AgentEvent):
    """A query starts: a client's prompt (`prompt_id`), a background notice's follow-up, or a compaction.
    `unattended`: its prompt was one no person started (`Prompt.unattended`)."""

    __slots__ = ("prompt_id", "content", "origin", "unattended")

    prompt_id: str
    content: Any
    origin: Literal["prompt", "follow_up", "compact"]
    unattended: bool

    def __init__(
        self, prompt_id: str, content: Any, origin: Any = "prompt", unattended: bool = False, **where: Any
    ) -> None:
        super().__init__(**where)
        self.prompt_id, self.content, self.origin, self.unattended = prompt_id, content, origin, unattended


class Asked(AgentEvent):
    """A question for a person waits: a permission prompt (`kind` "permission", `question` a
    `seams.PermissionQuestion`), AskUserQuestion ("questions": the list) or a plan ("plan": its text).
    Any client answers it with `Reply(request_id, ...)`."""

    __slots__ = ("request_id", "kind", "question")

    request_id: str
    kind: Literal["permission", "questions", "plan"]
    question: Any

    def __init__(self, request_id: str, kind: Any, question: Any, **where: Any) -> None:
        super().__init__(**where)
        self.request_id, self.kind, self.question = request_id, kind, question


class Answered(AgentEvent):
    """A question was answered (here or by another client): whoever still shows it withdraws it."""

    __slots__ = ("request_id", "behavior", "by")

    request_id: str
    behavior: str  # allow, deny, answered
    by: str

    def __init__(self, request_id: str, behavior: str, by: str = "", **where: Any) -> None:
        super().__init__(**where)
        self.request_id, self.behavior, self.by = request_id, behavior, by


class Idle(AgentEvent):
    """Nothing runs or waits: no turn, no queued prompt, no background work, no notice for the model."""

    __slots__ = ()


PortEvent = Event | Queued | TurnBegan | Asked | Answered | Idle
PORT_EVENTS = (Queued, TurnBegan, Asked, Answered, Idle)  # the port's own, beside the turn's `Event`s


@dataclass(slots=True, frozen=True)
class Snapshot:
    """What a client shows of a session now; a copy, never changed."""

    id: str
    model: str
    permission_mode: str
    cwd: str
    total_cost_usd: float = 0.0
    tools: tuple[str, ...] = ()
    slash_commands: tuple[str, ...] = ()
    busy: bool = False
    queued: int = 0
    init: dict[str, Any] = field(default_factory=dict)  # system/init's further fields
    permission_modes: tuple[str, ...] = ()
    # the session's started event (a copy, its mode the mode now): each query's system/init says it
    started: SessionStarted | None = None
    background_agents: bool = False  # a background sub-agent still runs (what `-p` holds results for)
    pending_wake_up: bool = False  # a ScheduleWakeup (self-paced `/loop`) is still to fire: `-p` waits


@runtime_checkable
class SessionPort(Protocol):
    """One session, as every client sees it."""

    async def submit(self, op: Op) -> dict[str, Any]:
        """Hand the session an op; what it answers (a `Prompt`: {"id", "position"}; a `Describe`:
        {"items"}; others {}). ValueError / KeyError with one line when the op cannot be done."""
        ...

    def events(self) -> AsyncIterator[PortEvent]:
        """From now on, every event of the session, across turns, until the session closes."""
        ...

    def snapshot(self) -> Snapshot: ...

    async def close(self, reason: str = "other") -> None: ...


class Subscribers:
    """The fan-out behind `events()`: each subscriber its own queue, subscribed when `subscribe` is called
    (not at its first `__anext__`), so nothing published after the call is missed; `close` ends them all."""

    def __init__(self) -> None:
        self.queues: list[asyncio.Queue[PortEvent | None]] = []

    def subscribe(self) -> AsyncIterator[PortEvent]:
        queue: asyncio.Queue[PortEvent | None] = asyncio.Queue()
        self.queues.append(queue)
        return self._drain(queue)

    async def _drain(self, queue: asyncio.Queue[PortEvent | None]) -> AsyncIterator[PortEvent]:
        try:
            while (event := await queue.get()) is not None:
                yield event
        finally:
            if queue in self.queues:
                self.queues.remove(queue)

    def publish(self, event: PortEvent | None) -> None:
        """An event to every subscriber (None: the stream ends)."""
        for queue in list(self.queues):
            queue.put_nowait(event)

    def __bool__(self) -> bool:
        return bool(self.queues)
