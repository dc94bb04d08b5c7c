"""`open_session(options)`: the one function that assembles a session.

Settings, environment, provider, tools, permission gate, transcript, system prompt and collaborators are
each built by the package that owns them; this is the one place they meet. The CLI, the SDK, the terminal
UI and sub-agents all come through here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from yoke import events as ev
from yoke.loop.lifecycle import Lifecycle, LifecycleOutcome
from yoke.loop.turn import Agent
from yoke.session.capabilities import (
    add_plugin_agents,
    agent_catalog,
    builtin_registry,
    close_shell,
    common_fields,
    mcp_settings,
    offer_model_tools,
    sandbox_warning,
    session_gate,
    start_mcp,
    structured_output,
    tool_executor,
)
from yoke.session.engine import Session, SessionError
from yoke.session.environment import apply_behaves_as, session_env, session_settings, session_yoke_home
from yoke.session.model_setup import (
    effort_was_asked,
    loop_settings_for,
    make_session_provider,
    session_effort_level,
    session_ledger,
    session_prices,
    switch_model_in_place,
    with_fallback_model,
)
from yoke.session.options import SessionOptions
from yoke.session.resources import ResourceStack
from yoke.session.resume import load_session, resumed_messages
from yoke.startup import resume_collection
from yoke.telemetry import enabled as telemetry_enabled


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
        return await _open(options, cwd, git, git_pending)
    except BaseException:
        # A setup error must not leave git's subprocesses orphaned mid-read: wait for them to finish.
        await asyncio.gather(git_pending, return_exceptions=True)
        raise
    finally:
        resume_collection()  # the command's start-up is over (yoke.startup)


async def _open(options: SessionOptions, cwd: Path, git: Any, git_pending: Any) -> Session:
    warnings: list[str] = []
    settings = session_settings(options, cwd, warnings)
    merged: dict[str, Any] = getattr(settings, "merged", {}) or {}
    env = session_env(settings, cwd, options.env, warnings)
    apply_behaves_as(merged, warnings)
    resources = ResourceStack()
    registry = builtin_registry(options)
    options, catalog = agent_catalog(options, cwd, env, registry, warnings)
    provider, provider_name, model = make_session_provider(options, merged, env)
    offer_model_tools(options, registry, model, env)
    effort = session_effort_level(options, merged, env, model)
    prices = session_prices(options, merged, model, warnings)
    structured = structured_output(options, registry)
    home = session_yoke_home(env)
    loaded = load_session(options, cwd, home)
    resources.add(loaded.transcript, "transcript")
    if loaded.conversation is not None:
        warnings.extend(loaded.conversation.repairs)  # a history that needed repair says so
    provider = with_fallback_model(provider, provider_name, model, options, merged, env, loaded)
    resources.add(provider, "provider")
    add_dirs = [Path(d).expanduser().resolve() for d in options.add_dirs]
    gate = session_gate(options, settings, cwd, add_dirs)
    warnings.extend(gate.warnings)
    warnings.extend(sandbox_warning(gate))
    for name in gate.hidden_tools(registry.names()):  # a bare deny rule hides the tool from the model
        registry.remove(name)
    working_dirs = list(gate.working_dirs or [cwd, *add_dirs])
    mcp_events: list[ev.Event] = []  # MCP server state changes, handed out by the session between events
    mcp_merged = mcp_settings(settings, cwd, merged, warnings)
    mcp = await start_mcp(options, cwd, mcp_merged, registry, gate, env, warnings, mcp_events)
    if mcp is not None:
        resources.add(mcp, "MCP servers")
    from yoke.memory.session import start_auto_memory

    location = await git.location()  # where the repository is: the memory directory follows it
    auto_memory = start_auto_memory(  # None when turned off
        cwd, settings, env, git_common_dir=location[1] if location is not None else None
    )
    if auto_memory is not None:
        auto_memory.allow_writes(gate)  # writes into the memory directory need no question
        warnings.extend(auto_memory.config.warnings)
    transcript = loaded.transcript
    session_dir = transcript.path.with_suffix("") if transcript.enabled else home / "tmp" / loaded.session_id

    from yoke.memory import MemoryIndex
    from yoke.session.recorder import Recorder

    memory = MemoryIndex(cwd, home=Path(env.get("HOME") or Path.home()), env=env)
    recorder = Recorder(transcript, loaded.chain)
    lifecycle = Lifecycle(common_fields(recorder, cwd, gate))
    for listener in options.listeners:
        lifecycle.add(listener)
    if structured is not None:
        lifecycle.add(structured)
    executor = tool_executor(
        registry, gate, cwd, env, working_dirs, session_dir, loaded, recorder, memory, options, lifecycle
    )
    if mcp is not None:
        mcp.attach_session(lifecycle, executor.ctx)  # elicitation: Elicitation hooks, then the asker
    resources.callback(lambda: close_shell(executor.ctx), "background shells")
    from yoke.skills.session import prepare_extensions  # skills, commands, output styles, plugins

    loop_settings = loop_settings_for(options, model, env, effort, effort_was_asked(options, merged, env))

    extensions = prepare_extensions(
        cwd=cwd,
        env=env,
        settings=settings,
        add_dirs=add_dirs,
        plugin_dirs=options.plugin_dirs,
        registry=registry,
        gate=gate,
        executor=executor,
        session_id=loaded.session_id,
        model=model,
        provider_name=provider_name,
        warnings=warnings,
        setting_sources=options.setting_sources,
        loop_settings=loop_settings,
    )
    add_plugin_agents(catalog, extensions, warnings)
    from yoke.hooks.build import attach_hooks  # settings', plugins' and skills' hooks: docs/hooks.md
    from yoke.session.hook_agent import agent_hook_model

    ready: list[Any] = []  # the session, once built: agent hooks' checks run as its sub-agents
    attach_hooks(
        lifecycle,
        settings,
        tool_lookup=registry.get,
        work_dir=session_dir,
        env=executor.ctx.env,
        resources=resources,
        warnings=warnings,
        on_report=options.hook_report,
        prompt_model=(provider, provider_name, model),
        agent_model=agent_hook_model(ready),
        extensions=extensions,
    )
    section = auto_memory.prompt_section() if auto_memory is not None else None
    system = await _system_prompt(
        options, cwd, model, registry.names(), memory, working_dirs, git_pending, env, section, extensions
    )
    from yoke.session.collaborators import make_compactor

    agent = Agent(
        provider=provider,
        executor=executor,
        settings=loop_settings,
        recorder=recorder,
        system=system,
        messages=resumed_messages(loaded.conversation, model, env, warnings),
        ledger=session_ledger(prices, loaded),
        make_keeper=partial(make_compactor, model=model, session_dir=session_dir, memory=memory, env=env),
    )
    if hasattr(gate, "classifier"):  # auto mode's classifier, active while the mode is auto
        from yoke.permissions.auto_mode import install

        install(gate, provider, model, agent.messages, settings, agent.ledger, env)

    if auto_memory is not None:
        lifecycle.add(auto_memory.listener(agent, LifecycleOutcome))  # recall adds memories to each prompt
        auto_memory.start_messages = len(agent.messages)
    started = ev.SessionStarted(
        loaded.session_id,
        model,
        str(cwd),
        registry.names(),
        gate.mode,
        provider_name,
        mcp.entries() if mcp is not None else [],
    )
    session = Session(
        agent,
        started,
        resources=resources,
        gate=gate,
        provider_name=provider_name,
        session_dir=session_dir,
        warnings=warnings,
        rebuild_model=switch_model_in_place,
        mcp=mcp,
        side_events=mcp_events,
        result_shapers=[structured.shape] if structured is not None else [],
    )
    ready.append(session)
    if auto_memory is not None:
        resources.callback(lambda: _end_auto_memory(auto_memory, session), "auto memory")
    from yoke.agents import attach_runner

    attach_runner(session, catalog)
    if telemetry_enabled(env):  # OpenTelemetry export: docs/observability.md; off costs this one check
        from yoke.telemetry.attach import attach_telemetry

        attach_telemetry(session, env, merged, resumed=loaded.conversation is not None)
    await _announce_start(session, "resume" if loaded.conversation is not None else "startup")
    return session


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
    options: SessionOptions,
    cwd: Path,
    model: str,
    tool_names: list[str],
    memory: Any,
    working_dirs: list[Path],
    git_pending: Any,
    env: Mapping[str, str],
    auto_memory: str | None = None,
    extensions: Any = None,
) -> list:
    from yoke.context.prompt import build_system_prompt

    return await build_system_prompt(
        cwd=cwd,
        model=model,
        tool_names=tool_names,
        override=options.system_prompt,
        append=_appended_prompt(options),
        memory_index=memory,
        env=env,
        additional_dirs=[d for d in working_dirs if d != cwd],
        git_pending=git_pending,
        output_style=extensions.style_prompt if extensions is not None else None,
        keep_coding_instructions=extensions.keep_coding_instructions if extensions is not None else True,
        auto_memory=auto_memory,
    )


def _appended_prompt(options: SessionOptions) -> str | None:
    if options.json_schema is None:
        return options.append_system_prompt
    from yoke.session.structured import PROMPT

    return f"{options.append_system_prompt}\n\n{PROMPT}" if options.append_system_prompt else PROMPT
