"""`open_session(options)`: the one function that assembles a session, in stages that each return a
finished record (`session/stages.py`): environment → model setup → capabilities → agent → session.

Settings, environment, provider, tools, permission gate, transcript, system prompt and collaborators are
each built by the package that owns them; the stages are where they meet. The CLI, the SDK, the terminal
UI and sub-agents all come through here: a sub-agent (`Session.child`) runs the same stages with its
parent's session and records as inherited inputs (`open_child`).
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import Any

from yoke import events as ev
from yoke.loop.lifecycle import LifecycleOutcome
from yoke.loop.turn import Agent
from yoke.messages import text_block
from yoke.session.capabilities import capabilities_stage
from yoke.session.engine import ChildOptions, Session, SessionError
from yoke.session.environment import environment_stage
from yoke.session.model_setup import model_stage, switch_model_in_place
from yoke.session.options import SessionOptions
from yoke.session.stages import Capabilities, Environment, Inherited, ModelSetup, Stages
from yoke.startup import resume_collection


async def open_session(options: SessionOptions) -> Session:
    """Build a session from `options`. Raises `SessionError` (one line) for bad options, files or
    environment. The caller owns the session and must `close()` it."""
    from yoke.context.git import GitQuery

    cwd = Path(options.cwd).resolve()
    if options.worktree is not None:
        from yoke.agents.worktree import session_worktree
        from yoke.tools.base import ToolError

        try:
            cwd = session_worktree(cwd, options.worktree)
        except ToolError as exc:
            raise SessionError(str(exc)) from None
    git = GitQuery(cwd)  # git's processes run (in threads) while the rest is set up
    git_pending = asyncio.ensure_future(git.context())
    try:
        session = await _assemble(options, cwd, git, git_pending)
        await _started(session)
        return session
    except BaseException:
        # A setup error must not leave git's subprocesses orphaned mid-read: wait for them to finish.
        await asyncio.gather(git_pending, return_exceptions=True)
        raise
    finally:
        resume_collection()  # the command's start-up is over (yoke.startup)


async def open_child(
    stages: Stages, parent: Session, options: ChildOptions, parent_tool_use_id: str, agent_id: str
) -> Session:
    """A sub-agent of `parent`: the same stages, with the parent's session and records inherited (what
    `Session.child` calls; `parent_tool_use_id` is the Agent call that starts it, "" for a hook's check)."""
    inherited = Inherited(
        parent=parent,
        stages=stages,
        options=options,
        agent_id=agent_id,
        parent_tool_use_id=parent_tool_use_id,
    )
    return await _assemble(stages.environment.options, options.cwd or parent.cwd, inherited=inherited)


async def _assemble(
    options: SessionOptions,
    cwd: Path,
    git: Any = None,
    git_pending: Any = None,
    inherited: Inherited | None = None,
) -> Session:
    """The stages, in order. The session's own tools (the Agent tool, agent hooks) start children of the
    session they end up in: `owner` hands it to them once it exists, the one forward reference."""
    session: Session | None = None

    def owner() -> Session:
        if session is None:
            raise RuntimeError("the session is not ready yet")
        return session

    environment = environment_stage(options, cwd, inherited)
    model = model_stage(environment, inherited)
    capabilities = await capabilities_stage(environment, model, owner, git, inherited)
    agent = await agent_stage(environment, model, capabilities, git_pending, inherited)
    session = session_stage(Stages(environment, model, capabilities), agent, inherited)
    return session


async def agent_stage(
    environment: Environment,
    model: ModelSetup,
    capabilities: Capabilities,
    git_pending: Any = None,
    inherited: Inherited | None = None,
) -> Agent:
    """The loop's `Agent`: the system prompt (a sub-agent's own, or its parent's; with the definition's
    preloaded skills and memory), the history, the ledger; the main session's compactor (`make_keeper`);
    then auto memory's recall on each prompt (after the hooks' context)."""
    if inherited is not None:
        own = inherited.options.system_prompt
        system = [text_block(own)] if own else list(inherited.parent.agent.system)
        system += [text_block(text) for text in inherited.options.system_extra]
    else:
        system = await _system_prompt(environment, model, capabilities, git_pending)
    from yoke.session.collaborators import make_compactor

    keeper = partial(
        make_compactor, model=model.model, session_dir=capabilities.session_dir, memory=capabilities.memory
    )
    agent = Agent(
        provider=model.provider,
        executor=capabilities.executor,
        settings=model.settings,
        recorder=capabilities.recorder,
        system=system,
        messages=model.messages,
        ledger=model.ledger,
        inbox=capabilities.executor.ctx.session.services.inbox,  # tools that notify later append to it
        agent_id=inherited.agent_id if inherited is not None else "main",
        parent_tool_use_id=inherited.parent_tool_use_id if inherited is not None else None,
        # a sub-agent shares its parent's observers: telemetry sees its own events too
        observers=inherited.parent.agent.observers if inherited is not None else _observers(model),
        make_keeper=partial(keeper, env=environment.env) if inherited is None else None,
    )
    auto_memory = capabilities.auto_memory
    if auto_memory is not None:  # recall adds memories to each prompt, with the agent's model and ledger
        capabilities.lifecycle.add(auto_memory.listener(agent, LifecycleOutcome))
    return agent


def session_stage(stages: Stages, agent: Agent, inherited: Inherited | None = None) -> Session:
    """The `Session`, with what closes with it (the agent runner; auto memory's extraction) and how it
    starts its sub-agents (`open_child` with its records)."""
    environment, model, capabilities = stages.environment, stages.model, stages.capabilities
    mcp, resources = capabilities.mcp, capabilities.resources
    started = ev.SessionStarted(
        model.loaded.session_id,
        model.model,
        str(environment.cwd if inherited is None else inherited.parent.cwd),
        capabilities.registry.names(),
        capabilities.gate.mode,
        model.provider_name if inherited is None else "",
        mcp.entries() if mcp is not None else [],
    )
    if inherited is not None:
        ev.from_agent(started, inherited.agent_id, inherited.parent_tool_use_id)
    structured = capabilities.structured
    session = Session(
        agent,
        started,
        resources=resources,
        gate=capabilities.gate,
        provider_name=model.provider_name,
        session_dir=capabilities.session_dir,
        warnings=environment.warnings,
        parent=inherited.parent if inherited is not None else None,
        rebuild_model=switch_model_in_place if inherited is None else None,
        mcp=mcp,
        side_events=capabilities.side_events,
        result_shapers=[structured.shape] if structured is not None else [],
        spawn=partial(open_child, stages),
        background=inherited is not None and inherited.options.background,
        stages=stages,
    )
    if inherited is None:  # one ledger: the root session's transcript gets every request's cost record
        from yoke.session.spend_records import record_requests

        record_requests(model.ledger, capabilities.recorder, agent.spend)
    if inherited is None:  # a transcript that stops (and starts again) being saved tells every client
        side_events = session.side_events
        session.agent.recorder.transcript.on_warning = lambda text: side_events.append(
            ev.Notice("warning", text)
        )
    auto_memory = capabilities.auto_memory
    if auto_memory is not None:
        resources.callback(lambda: _end_auto_memory(auto_memory, session), "auto memory")
    runner = capabilities.executor.ctx.session.services.agents
    if runner is not None:
        resources.add(runner, "sub-agents")
    if model.telemetry is not None:
        resources.callback(model.telemetry.close, "telemetry")  # the first to close: it flushes the rest
    return session


def _observers(model: ModelSetup) -> list[Any]:
    """The main agent's event observers: telemetry's, when on."""
    return [model.telemetry.observer] if model.telemetry is not None else []


async def _started(session: Session) -> None:
    """The main session is built: SessionStart is announced."""
    stages = session.stages
    assert stages is not None  # built by _assemble
    resumed = stages.model.loaded.conversation is not None
    await _announce_start(session, "resume" if resumed else "startup")


async def _announce_start(session: Session, source: str) -> None:
    out = await session.agent.lifecycle.announce("SessionStart", source=source, model=session.model)
    if out.system_message:
        session.warnings.append(out.system_message)
    if out.additional_context:
        from yoke.messages import user_message

        message = user_message(f"<system-reminder>\n{out.additional_context}\n</system-reminder>")
        session.agent.messages.append(message)
        session.agent.recorder.user(message, meta=True)


def _end_auto_memory(auto_memory: Any, session: Session) -> None:
    """The session is closing: start the background extraction pass (when on) and close the index."""
    auto_memory.session_ended(session.agent, session.provider_name)
    auto_memory.close()


async def _system_prompt(
    environment: Environment, model: ModelSetup, capabilities: Capabilities, git_pending: Any
) -> list:
    from yoke.context.prompt import build_system_prompt

    auto_memory, extensions = capabilities.auto_memory, capabilities.extensions
    cwd, options = environment.cwd, environment.options
    return await build_system_prompt(
        cwd=cwd,
        model=model.model,
        tool_names=capabilities.registry.names(),
        override=options.system_prompt,
        append=_appended_prompt(options),
        memory_index=capabilities.memory,
        env=environment.env,
        additional_dirs=[d for d in capabilities.working_dirs if d != cwd],
        git_pending=git_pending,
        output_style=extensions.style_prompt if extensions is not None else None,
        keep_coding_instructions=extensions.keep_coding_instructions if extensions is not None else True,
        auto_memory=auto_memory.prompt_section() if auto_memory is not None else None,
    )


def _appended_prompt(options: SessionOptions) -> str | None:
    if options.json_schema is None:
        return options.append_system_prompt
    from yoke.session.structured import PROMPT

    return f"{options.append_system_prompt}\n\n{PROMPT}" if options.append_system_prompt else PROMPT
