"""`Session` as a `SessionPort` (`yoke.events.port`): ops in, one continuous event stream out.

One task per root session runs what the session does, in order: the queued prompts (and compactions), each
a query; between them the background work's events, the follow-up query a completion notice (a background
agent's end, a Monitor's wake-up) starts, and MCP state changes. Every subscriber of `events()` hears all of
it, whoever submitted the prompt, so no front-end runs a loop of its own between turns. Questions for a
person become `Asked` events any client answers with a `Reply`; the asker the front-end handed in (if any)
is asked too, and the first answer wins (`Answered` tells the others).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.events import port
from yoke.ids import new_uuid
from yoke.seams import Answer, PermissionQuestion

if TYPE_CHECKING:
    from yoke.session.engine import Session

IDLE_TICK_S = 0.5  # while idle, how often MCP state changes (side events) are looked for
BACKGROUND_WAIT_S = 60.0  # one bounded wait on background work (then another)


class PortAsker:
    """The session's asker while the port runs: each question an `Asked` event, answered by a `Reply` or by
    the front-end's own asker (`delegate`), whichever comes first."""

    def __init__(self, driver: SessionDriver, delegate: Any):
        self.driver = driver
        self.delegate = delegate  # None: only a Reply answers
        self.waiting: dict[str, asyncio.Future[Any]] = {}

    async def ask(self, question: PermissionQuestion) -> Answer:
        answer = await self._race("permission", question, lambda d: d.ask(question))
        return answer if isinstance(answer, Answer) else Answer("deny", "No answer.")

    async def ask_user(self, questions: list[dict[str, Any]], tool_use_id: str = "") -> Any:
        return await self._race("questions", questions, lambda d: d.ask_user(questions, tool_use_id))

    async def approve_plan(self, plan: str, tool_use_id: str = "") -> Any:
        return await self._race("plan", plan, lambda d: d.approve_plan(plan, tool_use_id))

    def reply(self, request_id: str, answer: Any, by: str) -> None:
        future = self.waiting.get(request_id)
        if future is None or future.done():
            raise KeyError(f"question {request_id} is not waiting (answered already, or unknown)")
        future.set_result((answer, by))

    async def _race(self, kind: Any, question: Any, ask: Callable[[Any], Any]) -> Any:
        request_id = new_uuid()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        self.driver.publish(port.Asked(request_id, kind, question))
        delegate = self.delegate
        local = None
        if delegate is not None:  # NoAsker (headless, nobody to ask) answers at once, as before the port
            local = asyncio.ensure_future(ask(delegate))
            local.add_done_callback(lambda t: _settle(future, t))
        try:
            answer, by = await future
        finally:
            self.waiting.pop(request_id, None)
            if local is not None and not local.done():
                local.cancel()
        behavior = getattr(answer, "behavior", "answered" if answer is not None else "deny")
        self.driver.publish(port.Answered(request_id, str(behavior), by))
        return answer


def _settle(future: asyncio.Future[Any], task: asyncio.Future[Any]) -> None:
    if future.done() or task.cancelled():
        return
    if task.exception() is not None:
        future.set_exception(task.exception())  # type: ignore[arg-type]
    else:
        future.set_result((task.result(), "local"))


class SessionDriver:
    """The port of one root session (`Session.submit/events/snapshot` delegate here)."""

    def __init__(self, session: Session):
        self.session = session
        self.subscribers = port.Subscribers()
        self.queue: deque[tuple[str, Any, str]] = deque()  # (prompt id, content, "prompt" | "compact")
        self.joined: list[tuple[str, Any, str]] = []  # prompts that joined the running turn (`_join`)
        self.unattended: set[str] = set()  # ids of queued prompts no person started (`Prompt.unattended`)
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.busy = False
        self.said_idle = False
        self.asker = PortAsker(self, session.agent.executor.ctx.asker)
        session.agent.executor.ctx.asker = self.asker
        from yoke.session.scheduling import attach_scheduler

        self.scheduler = attach_scheduler(self)  # scheduled prompts: ops this session submits to itself

    # ---- the port ---------------------------------------------------------------------------------------

    def events(self) -> AsyncIterator[port.PortEvent]:
        """Subscribed now (not at the first `__anext__`): nothing submitted after this call is missed."""
        stream = self.subscribers.subscribe()
        self.start()
        return stream

    def snapshot(self) -> port.Snapshot:
        from yoke.session.scheduling import pending_wake_up  # imported already: __init__ attached it

        s = self.session
        init = s.init_fields()
        return port.Snapshot(
            id=s.id,
            model=s.model,
            permission_mode=s.permission_mode,
            cwd=str(s.cwd),
            total_cost_usd=s.total_cost_usd,
            tools=tuple(s.tool_names),
            slash_commands=tuple(str(c) for c in init.get("slash_commands") or ()),
            busy=self.busy,
            queued=len(self.queue),
            init=init,
            permission_modes=tuple(s.permission_modes()),
            started=started_now(s),
            background_agents=s.background_busy(commands=False),
            pending_wake_up=pending_wake_up(s),
        )

    async def submit(self, op: port.Op) -> dict[str, Any]:
        s = self.session
        self.start()
        match op:
            case port.Prompt(content=content, id=ident, join=True) if self.busy:
                return self._join(ident or new_uuid(), content)
            case port.Prompt(content=content, id=ident, unattended=unattended):
                ident = ident or new_uuid()
                if unattended:
                    self.unattended.add(ident)
                return self._enqueue(ident, content, "prompt")
            case port.Compact(instructions=instructions):
                return self._enqueue(new_uuid(), instructions, "compact")
            case port.Interrupt(drop_queue=drop):
                if drop:
                    self.queue.clear()
                    self.unattended.clear()
                s.interrupt()
            case port.Reply(request_id=request_id, answer=answer, by=by):
                self.asker.reply(request_id, answer, by)
            case port.SetMode(mode=mode):
                s.set_permission_mode(mode)
            case port.SetModel(model=model):
                refusal = await s.switch_model(model, "sdk")
                if refusal:
                    raise ValueError(refusal)
            case port.Rewind(user_message_id=message_id):
                return {"restored": [str(p) for p in s.rewind_files(message_id)]}
            case port.StopTask(task_id=task_id):
                return {"stopped": s.stop_task(task_id)}
            case port.McpReconnect(server=server):
                await s.mcp_reconnect(server)
            case port.McpEnable(server=server, enabled=enabled):
                await s.mcp_set_enabled(server, enabled)
            case port.Describe(what=what):
                return {"items": await describe(s, what)}
            case _:
                raise ValueError(f"not an op: {type(op).__name__}")
        return {}

    def _enqueue(self, ident: str, content: Any, origin: str) -> dict[str, Any]:
        if origin == "prompt":
            self._queue_record("enqueue", content)  # on disk before it is acknowledged
        self.queue.append((ident, content, origin))
        position = len(self.queue) - 1 + (1 if self.busy else 0)
        self.publish(port.Queued(ident, content, position))
        self.wake.set()
        return {"id": ident, "position": position}

    def _join(self, ident: str, content: Any) -> dict[str, Any]:
        """A prompt for the running turn: on disk first, then in the loop's inbox, which the turn reads
        before its next model request (after the current tool results), as a notification is read."""
        text = (
            content
            if isinstance(content, str)
            else "\n".join(str(block.get("text") or "") for block in content if isinstance(block, dict))
        )  # the inbox holds text (images go with a prompt of their own)
        self._queue_record("enqueue", content)
        self.session.agent.inbox.append(text)
        self.joined.append((ident, content, text))
        return {"id": ident, "joined": True}

    def _unjoined(self) -> None:
        """After a turn: a joined prompt it never read (the model answered without another request) is
        the next prompt's turn instead; one it read is dequeued. Nothing is lost, nothing is read twice."""
        inbox = self.session.agent.inbox
        for ident, content, text in reversed(self.joined):
            if any(item is text for item in inbox):
                inbox[:] = [item for item in inbox if item is not text]
                self.queue.appendleft((ident, content, "prompt"))
            else:
                self._queue_record("dequeue")
        self.joined.clear()

    def publish(self, event: port.PortEvent) -> None:
        self.subscribers.publish(event)

    # ---- the session's own loop ----------------------------------------------------------------------------

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        await self.scheduler.close()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        self.subscribers.publish(None)

    async def _run(self) -> None:
        s = self.session
        while not s.resources.closed:
            self.wake.clear()
            self._side_events()
            if self.queue:
                ident, content, origin = self.queue.popleft()
                if origin == "prompt":
                    self._queue_record("dequeue")
                if origin == "compact":
                    await self._turn(ident, content, "compact", s.compact(content or None))
                else:
                    await self._turn(ident, content, "prompt", s.query(content))
            elif s.follow_up_due():
                await self._turn("", "", "follow_up", s.follow_up())
            elif s.background_busy() or self._posted():
                waiter = asyncio.ensure_future(self.wake.wait())
                try:
                    async for event in s.background_events(BACKGROUND_WAIT_S, until=waiter):
                        self.publish(event)
                finally:
                    waiter.cancel()
            else:
                if not self.said_idle:
                    self.said_idle = True
                    self.publish(port.Idle())
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(IDLE_TICK_S):
                        await self.wake.wait()

    async def _turn(self, ident: str, content: Any, origin: str, events: AsyncIterator[ev.Event]) -> None:
        self.busy, self.said_idle = True, False
        unattended = ident in self.unattended
        self.unattended.discard(ident)
        self.publish(port.TurnBegan(ident, content, origin, unattended))
        try:
            async for event in events:
                self.publish(event)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug in one turn: said, and the session goes on
            self.publish(ev.Notice("error", f"turn failed: {type(exc).__name__}: {exc}"))
        finally:
            self.busy = False
            if self.joined:
                self._unjoined()

    def _queue_record(self, operation: str, content: Any = None) -> None:
        """Claude Code's `queue-operation` record (observed in 2.1.332's transcripts): an `enqueue` with the
        prompt when it is accepted, a `dequeue` when its turn begins; the ones never dequeued are the prompts
        a stopped session still owed (`yoke.session.queued.pending_prompts`)."""
        now = time.time()  # not datetime: a plain -p run never imports it (test_mcp_session.py)
        record: dict[str, Any] = {
            "type": "queue-operation",
            "operation": operation,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))
            + f".{int(now * 1000) % 1000:03d}Z",
            "sessionId": self.session.id,
        }
        if content is not None:
            record["content"] = content
        self.session.agent.recorder.transcript.append(record)

    def _posted(self) -> bool:
        work = self.session._background_work
        return work is not None and bool(work.posts)

    def _side_events(self) -> None:
        side = self.session.side_events
        while side:
            self.publish(side.pop(0))


async def describe(session: Session, what: str) -> Any:
    """A `Describe` op's answer, in plain JSON values."""
    if what == "commands":
        return await session.slash_commands()
    return describe_now(session, what)


def describe_now(session: Session, what: str) -> Any:
    """What `Describe` answers, but for the slash commands (which wait for MCP servers)."""
    if what == "rules":
        return session.permission_rules()
    if what == "hooks":
        return session.hooks()
    if what == "agents":
        return [{"name": n, "source": src, "description": d} for n, src, d in session.agent_definitions()]
    if what == "mcp":
        return session.mcp_servers()
    if what == "context":
        return session.context_usage()
    if what == "modes":
        return session.permission_modes()
    if what == "tasks":
        return session.background_tasks()
    raise ValueError(
        f"describe what? one of rules, hooks, agents, mcp, context, modes, tasks, commands ({what})"
    )


def started_now(session: Session) -> ev.SessionStarted:
    """A copy of the session's started event with the permission mode it is in now."""
    started = session.started
    return ev.SessionStarted(
        started.session_id, started.model, started.cwd, list(started.tools), session.permission_mode,
        started.provider, list(started.mcp_servers), agent_id=started.agent_id,
        parent_tool_use_id=started.parent_tool_use_id,
    )  # fmt: skip
