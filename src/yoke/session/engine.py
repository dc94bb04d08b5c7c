"""The session: what every front-end and every sub-agent drives.

`open_session(SessionOptions)` (in `yoke.session.build`) assembles one; a front-end then asks it for turns
(`query`), interrupts it, changes its mode or model, compacts it and closes it, and renders the events it
yields. Questions for a person reach the front-end through the `Asker` it handed in. A session can start
child sessions (sub-agents) that share its budget, its interrupt and, through their stamped events, its
event stream.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.agents.child_options import ChildOptions
from yoke.ids import random_hex
from yoke.loop.turn import Agent
from yoke.messages import TASK_NOTICE, Block, Message
from yoke.session.readouts import Readouts
from yoke.session.resources import ResourceStack
from yoke.session.routing import PromptRouter, default_router

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from yoke.events.port import Op, PortEvent, Snapshot
    from yoke.permissions.gate import Gate
    from yoke.session.background import BackgroundWork
    from yoke.session.port import SessionDriver
    from yoke.session.stages import Stages

    Spawn = Callable[["Session", ChildOptions, str, str], Awaitable["Session"]]


class SessionError(Exception):
    """A problem with the user's options, files or environment: one line, no traceback.
    `usage` marks a mistake in how Yoke was called (the CLI exits 2 for those)."""

    def __init__(self, message: str, usage: bool = False):
        super().__init__(message)
        self.usage = usage


def set_gate_mode(gate: Gate, mode: str) -> None:
    """The gate's permission mode from now on (ValueError for one that does not exist or is not available);
    what `Session.set_permission_mode` does, and what tools get as `ToolContext.set_permission_mode`."""
    gate.set_mode(mode)


class Session(Readouts):
    def __init__(
        self,
        agent: Agent,
        started: ev.SessionStarted,
        *,
        resources: ResourceStack,
        gate: Gate,
        provider_name: str,
        session_dir: Path,
        warnings: list[str] | None = None,
        parent: Session | None = None,
        rebuild_model: Any = None,
        mcp: Any = None,
        side_events: list[ev.Event] | None = None,
        result_shapers: list[Any] | None = None,
        router: PromptRouter | None = None,
        spawn: Spawn | None = None,
        background: bool = False,
        stages: Stages | None = None,
    ):
        self.agent = agent
        self.started = started
        self.resources = resources
        self.gate = gate
        self.provider_name = provider_name
        self.session_dir = session_dir
        self.warnings = list(warnings or [])  # set-up warnings, for the front-end to show once
        self.parent = parent
        self.children: list[Session] = []
        self.background = background  # a background sub-agent: the parent's interrupt does not reach it
        self._rebuild_model = rebuild_model  # recomputes budgets when the model changes
        # callables(Result) -> Result, e.g. --json-schema's answer
        self.result_shapers: list[Any] = [] if result_shapers is None else result_shapers
        self.mcp = mcp  # the MCP runtime (yoke.mcp.runtime) when servers are configured
        # raised outside a query's steps (MCP state changes)
        self.side_events: list[ev.Event] = [] if side_events is None else side_events
        self.router = default_router() if router is None else router  # where a prompt goes (routing.py)
        self.debug_log: Path | None = None  # /debug: every event's debug line is appended here
        self._spawn = spawn  # builds a child of this session (`session/build.py` `open_child`)
        self.stages = stages  # the records assembly built this session from (`session/stages.py`)
        self._background_work: BackgroundWork | None = None  # made when background work first needs it
        self._port: SessionDriver | None = None  # made when a client first submits or listens

    # ---- what front-ends read -------------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.agent.recorder.session_id

    @property
    def model(self) -> str:
        return self.agent.settings.model

    @property
    def permission_mode(self) -> str:
        return self.gate.mode

    @property
    def profile(self) -> str | None:
        """The profile in force (`yoke profile`), or None."""
        stages = self.stages
        return stages.environment.options.profile if stages is not None else None

    @property
    def messages(self) -> list[Message]:
        """The history as the model sees it (read it; never change it)."""
        return self.agent.messages

    @property
    def total_cost_usd(self) -> float:
        return self.agent.ledger.total_cost_usd

    @property
    def tool_names(self) -> list[str]:
        return self.agent.executor.registry.names()

    @property
    def transcript_path(self) -> Path:
        return self.agent.recorder.transcript.path

    @property
    def env(self) -> dict[str, str]:
        """The environment the session's commands run with (settings' `env` applied to a copy); a copy."""
        return dict(self.agent.executor.ctx.env or os.environ)

    def model_usage(self) -> dict[str, ev.ModelUsage]:
        """Tokens and cost so far per model (this session and its sub-agents: one ledger)."""
        return self.agent.ledger.model_usage()

    def init_fields(self) -> dict[str, Any]:
        """What `system/init` reports beyond the started event: slash commands, skills, output style,
        plugins and the agents this session can start (`yoke.wire.shapes.init_message` lays them over)."""
        from yoke.skills.session import init_fields

        fields = init_fields(self)
        if self.profile:
            fields["profile"] = self.profile  # a Yoke extension, as yoke_version
        return fields

    # ---- what front-ends do ---------------------------------------------------------------------------

    async def query(self, prompt: str | list[Block]) -> AsyncIterator[ev.Event]:
        """One turn: the prompt in, events out, ending with exactly one `Result`. `/compact [instructions]`
        as the prompt compacts instead (as in Claude Code's headless mode); `/mcp__<server>__<prompt> args` sends
        the prompt an MCP server renders; other `/name args` prompts run skills, custom commands and built-ins
        (the session's `router`: `yoke.session.routing`)."""
        async for event in self.router.events(self, prompt):
            while self.side_events:
                yield self.side_events.pop(0)
            posts = self._background_work.posts if self._background_work is not None else []
            while posts and not isinstance(event, ev.Result):  # background work's, live
                yield posts.pop(0)
            if self.debug_log is not None:  # /debug turned it on
                from yoke.session.debug_log import write_debug

                write_debug(event, self.debug_log)
            if isinstance(event, ev.Result):
                for shape in self.result_shapers:
                    event = shape(event)
            yield event  # (side events raised after the Result wait for the next query)

    async def compact(self, instructions: str | None = None) -> AsyncIterator[ev.Event]:
        async for event in self.agent.compact(instructions):
            yield event

    def interrupt(self) -> None:
        """End the running query (and the children's) within a second, from any point; a wait on
        background work (`background_events`) ends too."""
        if self._background_work is not None:
            self._background_work.stop()
        for child in self.children:
            if not child.background:
                child.interrupt()
        self.agent.interrupt()

    def set_permission_mode(self, mode: str) -> None:
        """Raises ValueError with a one-line reason for a mode that does not exist or is not available."""
        set_gate_mode(self.gate, mode)

    def set_model(self, model: str) -> None:
        """Takes effect on the next request."""
        if self._rebuild_model is not None:
            self._rebuild_model(self, model)
        else:
            self.agent.settings.model = model

    async def switch_model(self, spec: str, source: str = "sdk") -> str:
        """set_model with the PreModelSwitch/PostModelSwitch hooks around it (session/model_switch.py):
        "" when switched, else why a hook kept the model; ValueError for a model that cannot be used."""
        from yoke.session.model_switch import switch_model

        return await switch_model(self, spec, source)

    def set_asker(self, asker: Any) -> None:
        """Who answers permission prompts, questions and plan approvals from now on (with the port running,
        beside its clients' `Reply`s; None: only they answer)."""
        if self._port is not None:
            self._port.asker.delegate = asker
        else:
            self.agent.executor.ctx.asker = asker

    # ---- the port (yoke.events.port.SessionPort; session/port.py) -----------------------------------------

    @property
    def port(self) -> SessionDriver:
        if self._port is None:
            from yoke.session.port import SessionDriver

            self._port = SessionDriver(self)
        return self._port

    async def submit(self, op: Op) -> dict[str, Any]:
        return await self.port.submit(op)

    def events(self) -> AsyncIterator[PortEvent]:
        return self.port.events()

    def snapshot(self) -> Snapshot:
        return self.port.snapshot()

    def describe(self, what: str) -> Any:
        """What a `Describe` op answers (but `commands`), at once: for the stream-json control request."""
        from yoke.session.port import describe_now

        return describe_now(self, what)

    def apply_permission_update(self, update: dict[str, Any]) -> None:
        """An SDK/UI permission update (session rules, mode changes); ValueError when it is malformed."""
        self.gate.apply_update(update)

    # ---- background work: its lines after the query that started it, and the follow-up query -------------

    @property
    def background_work(self) -> BackgroundWork:
        """The logic is in session/background.py, imported when first used: a plain `-p` without background
        work never imports it."""
        if self._background_work is None:
            from yoke.session.background import BackgroundWork

            self._background_work = BackgroundWork(self)
        return self._background_work

    def post_background(self, event: ev.Event) -> None:
        """An event of background work (a background sub-agent's steps, its end), raised whether or not a
        query runs: the root session yields it within its running query, or from `background_events`."""
        self.background_work.post(event)

    def background_busy(self, commands: bool = True) -> bool:
        """A background sub-agent (or, with `commands`, a background command) still runs: what `-p` waits
        for before it ends."""
        agents = getattr(self.services.agents, "agents", None) or {}
        if any(getattr(a, "background", False) and a.running for a in agents.values()):
            return True
        return commands and bool(self.background_tasks())

    def follow_up_due(self) -> bool:
        """A background task's notice (it ended, or a watch saw output) waits for the model: `follow_up`
        runs it. Other inbox texts (a hook's context) wait for the next query."""
        return any(text.startswith(TASK_NOTICE) for text in self.agent.inbox)

    def background_events(self, timeout: float, until: Any = None) -> AsyncIterator[ev.Event]:
        """Background work's events as they come, until a completion notice waits (`follow_up_due`), no
        background work runs, `timeout` seconds pass, the session is interrupted, or the awaitable `until`
        (e.g. the next stdin message) is done. Every wait is bounded: each step sleeps at most half a second."""
        if self._background_work is None and not self.background_busy():
            return _no_events()  # nothing was posted and nothing runs: no need to import the waiting
        return self.background_work.events(timeout, until)

    def follow_up(self) -> AsyncIterator[ev.Event]:
        """The query a completion notice starts once the turn that launched the work has ended (as 2.1.330
        runs it in `-p` and stream-json input): the notices are its prompt."""
        return self.background_work.follow_up()

    async def notify(self, message: str, notification_type: str, title: str = "") -> None:
        """The front-end is calling the user back (a permission prompt waits, a long turn ended): the
        Notification hooks run (matched on `notification_type`, Claude Code's names: permission_prompt,
        idle_prompt, ...). Never raises."""
        fields: dict[str, Any] = {"message": message, "notification_type": notification_type}
        if title:
            fields["title"] = title
        try:
            await self.agent.lifecycle.announce("Notification", **fields)
        except Exception:
            pass

    async def child(self, options: ChildOptions, parent_tool_use_id: str) -> Session:
        """A sub-agent: a fresh history and transcript, its own tools, model and mode; the parent's budget
        (one ledger), interrupt (the parent's interrupt reaches it) and event stream (stamped events). It is
        built by the stages that built this session, with this session's records inherited."""
        if self._spawn is None:
            raise RuntimeError("this session was not built by open_session: it cannot start sub-agents")
        child = await self._spawn(self, options, parent_tool_use_id, f"a{random_hex(16)}")
        self.children.append(child)
        return child

    async def close(self, reason: str = "other") -> None:
        """Announce SessionEnd, then stop everything the session started. Idempotent."""
        if self.resources.closed:
            return
        for child in list(self.children):
            await child.close(reason)
        if self._port is not None:
            await self._port.close()
        if self.parent is None:
            try:
                await self.agent.lifecycle.announce("SessionEnd", reason=reason)
            except Exception:
                pass
        await self.resources.aclose()


async def _no_events() -> AsyncIterator[ev.Event]:
    return
    yield
