"""Assembly, stage three: what the session can do. Built-in and agent tools (and what the model is
offered), the permission gate (with auto mode's classifier), the tool executor with the session's tool
context and services (the agent runner among them), MCP servers, auto memory, extensions and hooks,
--json-schema's tool. A sub-agent's come from its parent's: a subset of its tools, its gate (a copy when the
agent has its own mode), its context with services `for_child`, its lifecycle with the agent's own hooks."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.loop.lifecycle import Lifecycle
from yoke.seams import NoAsker
from yoke.session.engine import SessionError, set_gate_mode
from yoke.session.options import SessionOptions
from yoke.session.resources import ResourceStack
from yoke.session.stages import Capabilities, Environment, Inherited, ModelSetup
from yoke.session.tool_setup import (
    add_plugin_agents,
    agent_mcp,
    builtin_registry,
    child_registry,
    mcp_settings,
    notifies,
    offer_model_tools,
    register_agent_tools,
    start_mcp,
    structured_output,
)

if TYPE_CHECKING:
    from yoke.permissions.gate import Gate
    from yoke.permissions.pipeline import PermissionGate
    from yoke.session.engine import Session

Owner = Callable[[], "Session"]  # the session being built, once it is: its tools start its sub-agents


async def capabilities_stage(
    environment: Environment,
    model: ModelSetup,
    owner: Owner,
    git: Any = None,
    inherited: Inherited | None = None,
) -> Capabilities:
    """What the session can do. `owner` returns the session these capabilities end up in (sub-agents and
    agent hooks start children of it); `git` is the session's `GitQuery` (auto memory follows the
    repository)."""
    if inherited is not None:
        return await _child_capabilities(environment, model, owner, inherited)
    options, cwd, env = environment.options, environment.cwd, environment.env
    resources = ResourceStack()
    resources.add(model.loaded.transcript, "transcript")
    resources.add(model.provider, "provider")
    registry = session_tools(environment, model.model)
    structured = structured_output(options, registry)
    gate = gate_stage(environment, model, registry)
    from yoke.memory import MemoryIndex
    from yoke.session.recorder import Recorder

    memory = MemoryIndex(cwd, home=Path(env.get("HOME") or Path.home()), env=env)
    recorder = Recorder(model.loaded.transcript, model.loaded.chain)
    # MCP server state changes and checkpoint warnings, handed out by the session between events
    side_events: list[ev.Event] = []
    executor = tool_executor(
        environment, model, registry, gate, recorder, memory, structured, owner, side_events
    )
    mcp = await _session_mcp(environment, registry, gate, executor, side_events)
    if mcp is not None:
        resources.add(mcp, "MCP servers")
    auto_memory = await _auto_memory(environment, model, gate, git)
    resources.callback(lambda: close_shell(executor.ctx), "background shells")
    extensions = _extensions(environment, model, registry, gate, executor, resources, owner)
    from yoke.session.language_servers import attach_language_servers

    attach_language_servers(environment, executor, registry, resources, list(extensions.plugins))
    return Capabilities(
        resources=resources,
        registry=registry,
        gate=gate,
        mcp=mcp,
        side_events=side_events,
        recorder=recorder,
        lifecycle=executor.lifecycle,
        executor=executor,
        memory=memory,
        auto_memory=auto_memory,
        extensions=extensions,
        structured=structured,
        working_dirs=executor.ctx.working_dirs,
        session_dir=executor.ctx.session.session_dir,
    )


async def _session_mcp(
    environment: Environment, registry: Any, gate: PermissionGate, executor: Any, events: list[ev.Event]
) -> Any:
    """The session's MCP servers; their elicitation requests reach the Elicitation hooks, then whoever
    answers the session's questions at that moment (a front-end may hand in another asker)."""
    options, cwd, warnings = environment.options, environment.cwd, environment.warnings
    merged = mcp_settings(environment.settings, cwd, environment.merged, warnings)
    lifecycle, ctx = executor.lifecycle, executor.ctx
    return await start_mcp(
        options, cwd, merged, registry, gate, environment.env, warnings, events, lifecycle, lambda: ctx.asker
    )


def session_tools(environment: Environment, model: str) -> Any:
    """The built-in and agent tools, as `--tools` and `--agent` leave them, and what the model is offered."""
    options = environment.options
    registry = builtin_registry(options)
    register_agent_tools(registry, environment.catalog, options)
    heard = notifies(environment.env, environment.settings)
    offer_model_tools(options, registry, model, environment.env, heard)
    return registry


def gate_stage(environment: Environment, model: ModelSetup, registry: Any) -> PermissionGate:
    """The permission gate, with auto mode's classifier (it reads the live history and bills the session's
    ledger); a bare deny rule hides its tool from the model."""
    from yoke.permissions.auto_mode import AutoMode

    env, warnings = environment.env, environment.warnings
    auto = AutoMode(model.provider, model.model, model.messages, environment.settings, model.ledger, env)
    options = environment.options
    gate = session_gate(
        options, environment.settings, environment.cwd, environment.add_dirs, auto.gate_options()
    )
    warnings.extend(gate.warnings)
    warnings.extend(sandbox_warning(gate))
    for name in gate.hidden_tools(registry.names()):
        registry.remove(name)
    return gate


async def _auto_memory(environment: Environment, model: ModelSetup, gate: PermissionGate, git: Any) -> Any:
    """The session's auto memory (None when turned off): its folder follows the repository, its writes need
    no question."""
    from yoke.memory.session import start_auto_memory

    location = await git.location() if git is not None else None
    auto_memory = start_auto_memory(
        environment.cwd,
        environment.settings,
        environment.env,
        git_common_dir=location[1] if location is not None else None,
        start_messages=len(model.messages),  # extraction reads what follows
    )
    if auto_memory is not None:
        auto_memory.allow_writes(gate)  # writes into the memory directory need no question
        environment.warnings.extend(auto_memory.config.warnings)
    return auto_memory


def _extensions(
    environment: Environment,
    model: ModelSetup,
    registry: Any,
    gate: PermissionGate,
    executor: Any,
    resources: ResourceStack,
    owner: Owner,
) -> Any:
    """The Skill tool (the executor holds the plugins, skills, commands and output style), the plugins'
    agents, then the settings', plugins' and skills' hooks (docs/hooks.md)."""
    from yoke.hooks.build import attach_hooks
    from yoke.session.hook_agent import agent_hook_model
    from yoke.skills.session import offer_skill_tool

    options, warnings = environment.options, environment.warnings
    extensions = executor.ctx.session.services.extensions
    offer_skill_tool(extensions, model.model, environment.env)
    add_plugin_agents(environment.catalog, extensions, warnings)
    attach_hooks(
        executor.lifecycle,
        environment.settings,
        tool_lookup=registry.get,
        work_dir=executor.ctx.session.session_dir,
        env=executor.ctx.env,
        resources=resources,
        warnings=warnings,
        on_report=options.hook_report,
        prompt_model=(model.provider, model.provider_name, model.model),
        agent_model=agent_hook_model(owner),
        extensions=extensions,
        wrap=model.telemetry.timed if model.telemetry is not None else None,
    )
    return extensions


async def _child_capabilities(
    environment: Environment, model: ModelSetup, owner: Owner, inherited: Inherited
) -> Capabilities:
    """A sub-agent's: its parent's tools as its definition narrows them, the parent's gate (a copy when its
    mode differs: the rules and the session's answers stay shared), the parent's tool context with its own
    services, cancel event and folder, the parent's listeners with the agent's own, its own MCP servers."""
    from yoke.loop.executor import ToolExecutor
    from yoke.session.recorder import Recorder
    from yoke.tools.base import SessionState

    parent, options = inherited.parent, inherited.options
    up = parent.agent  # live: MCP tools and listeners may have come and gone since the parent was built
    resources = ResourceStack()
    resources.add(model.loaded.transcript, "transcript")
    registry = child_registry(up.executor.registry, options)
    gate = parent.gate
    if options.permission_mode and options.permission_mode != gate.mode:
        gate = copy.copy(gate)  # shares the rules and the session's answers; only the mode differs
        gate.set_mode(options.permission_mode)
    runner = _runner(environment, owner, options.agent_depth)
    services = parent.services.for_child(agents=runner, post_background=_poster(owner))
    state = SessionState(session_id=parent.id, session_dir=parent.session_dir, services=services)
    # A sub-agent's calls are not tool calls of the front-end's, so none can show a front-end terminal.
    ctx = up.executor.ctx.replace(session=state, cancel=asyncio.Event(), terminal=None)
    if options.cwd is not None:
        ctx = ctx.replace(cwd=options.cwd, working_dirs=[options.cwd, *ctx.working_dirs])
    lifecycle = up.lifecycle.derive(agent_id=inherited.agent_id, agent_type=options.agent_type)
    for listener in options.listeners:  # the definition's own hooks, for this agent's lifetime
        lifecycle.add(listener)
    label = options.agent_type
    await agent_mcp(options.mcp_servers, label, ctx.cwd, registry, ctx.env, environment.warnings, resources)
    return Capabilities(
        resources=resources,
        registry=registry,
        gate=gate,
        mcp=None,
        side_events=[],
        recorder=Recorder(model.loaded.transcript, model.loaded.chain),
        lifecycle=lifecycle,
        executor=ToolExecutor(registry, gate, ctx, lifecycle, up.executor.observers),
        memory=None,
        auto_memory=None,
        extensions=None,
        structured=None,
        working_dirs=list(ctx.working_dirs),
        session_dir=parent.session_dir,
    )


def _poster(owner: Owner) -> Callable[[Any], None]:
    """Where background work's events go once its call has returned: the session's `post_background`
    (the session is made last, so it is asked for when an event comes)."""
    return lambda event: owner().post_background(event)


def _runner(environment: Environment, owner: Owner, depth: int | None) -> Any:
    """The Agent tool's runner at this depth (None: this session starts no sub-agents)."""
    if depth is None:
        return None
    from yoke.agents.runner import AgentRunner

    return AgentRunner(environment.catalog, owner, depth)


def session_gate(
    options: SessionOptions,
    settings: Any,
    cwd: Path,
    add_dirs: list[Path],
    classifier: Mapping[str, Any] | None = None,
) -> PermissionGate:
    """The gate `permissions.build_gate` makes of the settings and flags; `classifier`: the gate's options
    for a classifier (`AutoMode.gate_options`)."""
    from yoke.permissions import build_gate

    mode = options.permission_mode
    try:
        gate = build_gate(
            settings,
            cwd=cwd,
            mode=mode,
            allowed_tools=list(options.allowed_tools),
            disallowed_tools=list(options.disallowed_tools),
            add_dirs=add_dirs,
            interactive=options.interactive,
            allow_bypass=bool(options.allow_bypass or mode == "bypassPermissions"),
            block_outside_reads=options.restricted,  # the file tools stay inside the working directories
            **(classifier or {}),
        )
    except ValueError as exc:
        raise SessionError(str(exc), usage=True) from None
    return gate


def sandbox_warning(gate: Gate) -> list[str]:
    """One line when no kernel sandbox exists here to enforce what the fast paths allow (docs/permissions.md)."""
    from yoke.sandbox.confine import kernel_sandbox_available

    if gate.mode == "bypassPermissions" or kernel_sandbox_available():
        return []
    return [
        "no kernel sandbox found (install bubblewrap on Linux): commands Yoke allows without asking are "
        "confined only by its analysis of them"
    ]


def common_fields(recorder: Any, cwd: Path, gate: Gate) -> Any:
    def common() -> dict[str, Any]:
        return {
            "session_id": recorder.session_id,
            "transcript_path": str(recorder.transcript.path),
            "cwd": str(cwd),
            "permission_mode": gate.mode,
        }

    return common


def tool_executor(
    environment: Environment,
    model: ModelSetup,
    registry: Any,
    gate: PermissionGate,
    recorder: Any,
    memory: Any,
    structured: Any,
    owner: Owner,
    side_events: list[Any] | None = None,
) -> Any:
    """The tool executor, its lifecycle (the front-end's listeners, --json-schema's), the session's tool
    context and services (the agent runner among them), and the collaborators that watch tool calls."""
    from yoke.agents.task_list import TaskList
    from yoke.loop.executor import ToolExecutor, ToolObserver
    from yoke.session.collaborators import Checkpointer, NestedMemory
    from yoke.tools.base import SessionState, ToolContext
    from yoke.tools.services import SessionServices

    options, cwd, env, loaded = environment.options, environment.cwd, environment.env, model.loaded
    lifecycle = Lifecycle(common_fields(recorder, cwd, gate))
    telemetry = model.telemetry
    listeners = [telemetry.timed(x) for x in options.listeners] if telemetry else list(options.listeners)
    for listener in [*listeners, *([structured] if structured is not None else [])]:
        lifecycle.add(listener)
    if telemetry is not None:
        lifecycle.add(telemetry.observer)  # UserPromptSubmit starts an interaction
    working_dirs = list(gate.working_dirs or [cwd, *environment.add_dirs])
    transcript, home = loaded.transcript, environment.home
    session_dir = transcript.path.with_suffix("") if transcript.enabled else home / "tmp" / loaded.session_id
    conversation = loaded.conversation
    # the sandbox Bash runs in; what Grep and Glob leave out; the task list (TaskCreate and friends)
    # the skills runtime asks for the tool context it is part of when it runs: the one forward reference
    extensions = _prepare_extensions(environment, model, registry, gate, lifecycle, lambda: ctx)
    services = SessionServices.for_gate(
        gate,
        task_list=TaskList(lifecycle),
        agents=_runner(environment, owner, 0),
        todos=list(conversation.todos or []) if conversation is not None else [],
        inbox=[],
        skills=extensions.runtime,
        extensions=extensions,
        post_background=_poster(owner),
    )
    state = SessionState(session_id=recorder.session_id, session_dir=session_dir, services=services)
    if conversation is not None:
        from yoke.session.read_state import restore_read_state

        restore_read_state(state, conversation.messages, cwd)
    asker = options.asker or NoAsker()
    ctx = ToolContext(
        cwd=cwd,
        session=state,
        working_dirs=working_dirs,
        asker=asker,
        env=env,
        set_permission_mode=partial(set_gate_mode, gate),  # an approved plan leaves plan mode
        files=options.workspace_files,  # the front-end's, if any
        terminal=options.command_terminal,
    )
    checkpointer = Checkpointer(
        session_dir, recorder, cwd, side_events.append if side_events is not None else None
    )
    observers: list[ToolObserver] = [checkpointer, NestedMemory(memory)]
    return ToolExecutor(registry, gate, ctx, lifecycle, [*observers, extensions.observer])


def _prepare_extensions(
    environment: Environment,
    model: ModelSetup,
    registry: Any,
    gate: PermissionGate,
    lifecycle: Lifecycle,
    context: Callable[[], Any],
) -> Any:
    """Plugins, skills, commands, the output style and the skills' tool observer (`skills/session.py`), for
    the services and the executor to be built with; `context` returns the session's tool context."""
    from yoke.skills.session import prepare_extensions

    options = environment.options
    return prepare_extensions(
        cwd=environment.cwd,
        env=environment.env,
        settings=environment.settings,
        add_dirs=environment.add_dirs,
        plugin_dirs=[str(d) for d in options.plugin_dirs],
        registry=registry,
        gate=gate,
        lifecycle=lifecycle,
        context=context,
        session_id=model.loaded.session_id,
        model=model.model,
        provider_name=model.provider_name,
        warnings=environment.warnings,
        setting_sources=options.setting_sources,
        loop_settings=model.settings,
    )


async def close_shell(ctx: Any) -> None:
    if ctx.session.services.shell is not None:
        from yoke.tools.shell.state import shutdown_shell

        await shutdown_shell(ctx.session)
