"""`open_session(options)`: the one function that assembles a session.

Settings, environment, provider, tools, permission gate, transcript, system prompt and collaborators are
each built by the package that owns them; this is the one place they meet. The CLI, the SDK, the terminal
UI and sub-agents all come through here.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from yoke import events as ev
from yoke.ids import new_uuid
from yoke.loop.lifecycle import Lifecycle
from yoke.loop.turn import Agent, LoopSettings
from yoke.providers.base import ProviderError
from yoke.records import Record
from yoke.seams import NoAsker
from yoke.session.engine import Session, SessionError
from yoke.session.options import SessionOptions
from yoke.session.resources import ResourceStack
from yoke.startup import resume_collection


class _Loaded(Record):
    """What resuming brought back."""

    __slots__ = ("session_id", "transcript", "chain", "conversation")

    def __init__(self, session_id: str, transcript: Any, chain: Any, conversation: Any) -> None:
        self.session_id = session_id
        self.transcript = transcript
        self.chain = chain
        self.conversation = conversation  # store.LoadedSession or None


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
    settings = _load_settings(options, cwd, warnings)
    merged: dict[str, Any] = getattr(settings, "merged", {}) or {}
    env = _session_env(settings, cwd, options.env, warnings)
    _behaves_as(merged, warnings)
    resources = ResourceStack()
    registry = _tools(options)
    options, catalog = _agents(options, cwd, env, registry, warnings)
    provider, provider_name, model = _make_provider(options, merged, env)
    _offer_tools(options, registry, model, env)
    effort = _effort(options, merged, env, model)
    prices = _prices(options, merged, model, warnings)
    structured = _structured_output(options, registry)
    home = _yoke_home(env)
    loaded = _session(options, cwd, home)
    resources.add(loaded.transcript, "transcript")
    if loaded.conversation is not None:
        warnings.extend(loaded.conversation.repairs)  # a history that needed repair says so
    provider = _with_fallback(provider, provider_name, model, options, merged, env, loaded)
    resources.add(provider, "provider")
    add_dirs = [Path(d).expanduser().resolve() for d in options.add_dirs]
    gate = _gate(options, settings, cwd, add_dirs)
    if options.extras.get("restricted"):  # --restricted: the file tools stay inside the working directories
        gate.block_outside_reads = True
    warnings.extend(getattr(gate, "warnings", []) or [])
    warnings.extend(_sandbox_warning(gate))
    for name in gate.hidden_tools(registry.names()):  # a bare deny rule hides the tool from the model
        registry.remove(name)
    working_dirs = list(getattr(gate, "working_dirs", None) or [cwd, *add_dirs])
    mcp_events: list[ev.Event] = []  # MCP server state changes, handed out by the session between events
    mcp_merged = _mcp_settings(settings, cwd, merged, warnings)
    mcp = await _mcp(options, cwd, mcp_merged, registry, gate, env, warnings, mcp_events)
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
    lifecycle = Lifecycle(_common_fields(recorder, cwd, gate))
    for listener in options.listeners:
        lifecycle.add(listener)
    if structured is not None:
        lifecycle.add(structured)
    executor = _executor(
        registry, gate, cwd, env, working_dirs, session_dir, loaded, recorder, memory, options
    )
    executor.lifecycle = lifecycle
    if mcp is not None:
        mcp.attach_session(lifecycle, executor.ctx)  # elicitation: Elicitation hooks, then the asker
    resources.callback(lambda: _close_shell(executor.ctx), "background shells")
    from yoke.skills.session import prepare_extensions  # skills, commands, output styles, plugins

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
    )
    _plugin_agents(catalog, extensions, warnings)
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
        extras=options.extras,
        prompt_model=(provider, provider_name, model),
        agent_model=agent_hook_model(ready),
        extensions=extensions,
    )
    section = auto_memory.prompt_section() if auto_memory is not None else None
    system = await _system_prompt(
        options, cwd, model, registry.names(), memory, working_dirs, git_pending, env, section, extensions
    )
    agent = Agent(
        provider=provider,
        executor=executor,
        settings=_loop_settings(options, model, env, effort),
        recorder=recorder,
        system=system,
        messages=_resumed_messages(loaded.conversation, model, env, warnings),
    )
    agent.ledger.prices = prices
    if loaded.conversation is not None and loaded.conversation.model_usage:
        agent.ledger.restore(loaded.conversation.model_usage)
    extensions.runtime.agent = agent
    if hasattr(gate, "classifier"):  # auto mode's classifier, active while the mode is auto
        from yoke.permissions.auto_mode import install

        install(gate, provider, model, agent.messages, settings, agent.ledger, env)

    from yoke.session.collaborators import make_compactor

    agent.keeper = make_compactor(agent, model, session_dir, memory, env)
    if auto_memory is not None:
        lifecycle.add(auto_memory.listener(agent))  # recall adds memories to each prompt
        auto_memory.start_messages = len(agent.messages)
    started = ev.SessionStarted(
        loaded.session_id,
        model,
        str(cwd),
        registry.names(),
        getattr(gate, "mode", "default"),
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
        rebuild_model=_switch_model,
    )
    ready.append(session)
    executor.ctx.set_permission_mode = session.set_permission_mode
    if structured is not None:
        session.result_shapers.append(structured.shape)
    session.mcp, session.side_events = mcp, mcp_events
    if auto_memory is not None:
        resources.callback(lambda: _end_auto_memory(auto_memory, session), "auto memory")
    from yoke.agents import attach_runner

    attach_runner(session, catalog)
    await _announce_start(session, "resume" if loaded.conversation is not None else "startup")
    return session


def _prices(options: SessionOptions, merged: dict[str, Any], model: str, warnings: list[str]) -> dict:
    """Prices given in settings; with --max-budget-usd, a model whose price nobody knows cannot start: its
    spending could not be measured, so the budget would never stop it."""
    from yoke.loop.accounting import CostLedger, prices_from_settings

    prices = prices_from_settings(merged.get("modelPrices"), warnings)
    if options.max_budget_usd is not None and not CostLedger(prices=prices).knows(model):
        raise SessionError(
            f"--max-budget-usd: no price is known for model {model}, so its spending cannot be measured; "
            f'give it in settings: "modelPrices": {{"{model}": {{"input": 1.0, "output": 2.0}}}} '
            "(USD per million tokens)"
        )
    return prices


def _structured_output(options: SessionOptions, registry: Any) -> Any:
    """--json-schema: the StructuredOutput tool, and its listener and result shaper (session/structured.py)."""
    if options.json_schema is None:
        return None
    from yoke.session.structured import StructuredOutput

    structured = StructuredOutput(options.json_schema)
    registry.register(structured.tool)
    return structured


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


_MCP_APPROVALS = ("enableAllProjectMcpServers", "enabledMcpjsonServers")


def _mcp_settings(settings: Any, cwd: Path, merged: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """The settings MCP reads, where a project's own files approve its `.mcp.json` servers only once the
    folder is trusted: approving them is granting, like an allow rule (refusals still count)."""
    from yoke.config.trust import is_trusted
    from yoke.permissions.build import PROJECT_SCOPES

    sources = list(getattr(settings, "sources", []) or [])
    if not any(s.scope in PROJECT_SCOPES and any(k in s.data for k in _MCP_APPROVALS) for s in sources):
        return merged
    if is_trusted(cwd, settings.yoke_home, home=settings.home, claude_dir=settings.claude_dir):
        return merged
    warnings.append(
        f"this workspace ({cwd}) has not been trusted: its settings do not approve its .mcp.json servers; "
        "run `yoke trust` in it to trust it"
    )
    own = settings.merged_from([s for s in sources if s.scope not in PROJECT_SCOPES])
    chosen = {k: v for k, v in merged.items() if k not in _MCP_APPROVALS}
    chosen.update({k: own[k] for k in _MCP_APPROVALS if k in own})
    return chosen


async def _mcp(
    options: SessionOptions,
    cwd: Path,
    merged: dict[str, Any],
    registry: Any,
    gate: Any,
    env: Mapping[str, str],
    warnings: list[str],
    events: list[ev.Event],
) -> Any:
    """MCP servers from every configuration source, started concurrently and waited for up to the
    start-up deadline (yoke.mcp.attach); None when none is configured (the `mcp` package stays unloaded)."""
    from yoke.mcp.attach import attach_mcp

    def notify(kind: str, message: str, data: dict[str, Any]) -> None:
        events.append(ev.Notice(kind, message, data))

    return await attach_mcp(
        cwd,
        merged,
        registry,
        warnings,
        flag_configs=options.mcp_config,
        strict=options.strict_mcp_config,
        notify=notify,
        hide=gate.hidden_tools,
        env=env,
        plugin_dirs=list(options.plugin_dirs),
        sdk_bridge=options.mcp_sdk_bridge,
        approve=getattr(options.asker, "approve_mcp_servers", None) if options.interactive else None,
    )


def _common_fields(recorder: Any, cwd: Path, gate: Any) -> Any:
    def common() -> dict[str, Any]:
        return {
            "session_id": recorder.session_id,
            "transcript_path": str(recorder.transcript.path),
            "cwd": str(cwd),
            "permission_mode": str(getattr(gate, "mode", "default")),
        }

    return common


def _switch_model(session: Session, spec: str) -> None:
    """`set_model`: the next request goes to `spec` (an alias, a model id, or `provider:model`), with the
    output budget and compaction thresholds of its context window. Across vendors the history is converted
    (what the other side cannot read is dropped) and a notice says so. Raises ValueError, one line."""
    from yoke.providers.base import ProviderError
    from yoke.providers.switch import plan_model_switch

    agent = session.agent
    env = agent.executor.ctx.env or os.environ
    try:
        plan = plan_model_switch(
            spec,
            current_provider=session.provider_name,
            current_model=agent.settings.model,
            messages=agent.messages,
            env=env,
        )
    except ProviderError as exc:
        raise ValueError(str(exc)) from None
    if plan.provider is not None:
        agent.provider = plan.provider
        session.resources.add(plan.provider, "provider")  # the old one closes with the session too
        session.provider_name = plan.provider_name
    if plan.messages is not agent.messages:
        agent.messages[:] = plan.messages
    agent.settings.model = plan.model
    agent.settings.max_tokens = min(agent.settings.max_tokens, max(1024, plan.context_window // 4))
    keeper = agent.keeper
    if keeper is not None and hasattr(keeper, "retarget"):
        keeper.retarget(plan.model)
    if plan.notice:
        agent.notices.append(plan.notice)


def _executor(
    registry: Any,
    gate: Any,
    cwd: Path,
    env: dict[str, str],
    working_dirs: list[Path],
    session_dir: Path,
    loaded: _Loaded,
    recorder: Any,
    memory: Any,
    options: SessionOptions,
) -> Any:
    """The tool executor, the session's tool context and the collaborators that watch tool calls."""
    from yoke.loop.executor import ToolExecutor
    from yoke.session.collaborators import Checkpointer, NestedMemory
    from yoke.tools.base import SessionState, ToolContext

    state = SessionState(session_id=recorder.session_id, session_dir=session_dir)
    from yoke.permissions.gate_actions import tool_extras

    state.extras.update(tool_extras(gate))  # the sandbox Bash runs in; what Grep and Glob leave out
    conversation = loaded.conversation
    if conversation is not None:
        if conversation.todos:
            state.extras["todos"] = list(conversation.todos)
        from yoke.session.read_state import restore_read_state

        restore_read_state(state, conversation.messages, cwd)
    asker = options.asker or NoAsker()
    ctx = ToolContext(cwd=cwd, session=state, working_dirs=working_dirs, asker=asker, env=env)
    ctx.files, ctx.terminal = options.workspace_files, options.command_terminal  # front-end's, if any
    observers = [Checkpointer(session_dir, recorder), NestedMemory(memory)]
    return ToolExecutor(registry, gate, ctx, observers=observers)


async def _close_shell(ctx: Any) -> None:
    if "shell" in ctx.session.extras:
        from yoke.tools.shell.state import shutdown_shell

        await shutdown_shell(ctx.session)


def _effort(
    options: SessionOptions, merged: Mapping[str, Any], env: Mapping[str, str], model: str
) -> str | None:
    """The reasoning effort level: CLAUDE_CODE_EFFORT_LEVEL, --effort, the effortLevel setting, else the
    model's default as Claude Code sends it."""
    from yoke.providers.effort import EffortError, session_effort

    try:
        return session_effort(options.effort, env, merged.get("effortLevel"), model)
    except EffortError as exc:
        raise SessionError(str(exc)) from None


def _loop_settings(
    options: SessionOptions, model: str, env: Mapping[str, str], effort: str | None
) -> LoopSettings:
    return LoopSettings(
        model=model,
        max_turns=options.max_turns,
        max_budget_usd=options.max_budget_usd,
        max_tokens=options.max_output_tokens or _max_output(env, model),
        thinking_budget=options.max_thinking_tokens,
        effort=effort,
        include_partial=options.include_partial_messages,
    )


def _max_output(env: Mapping[str, str], model: str) -> int:
    """max_tokens: YOKE_MAX_OUTPUT_TOKENS or CLAUDE_CODE_MAX_OUTPUT_TOKENS, else the model's default as Claude
    Code 2.1.330 sends it (models.json `max_output`), else 32,000."""
    from yoke.providers.pricing import max_output

    for name in ("YOKE_MAX_OUTPUT_TOKENS", "CLAUDE_CODE_MAX_OUTPUT_TOKENS"):
        if env.get(name):
            return _int_env(env, name, 32000)
    return max_output(model) or 32000


def _behaves_as(merged: Mapping[str, Any], warnings: list[str]) -> None:
    """Claude Code's `modelPicker.options[].behavesAs`: a model Yoke does not know takes a known one's
    capabilities (effort levels and default, thinking, context window, max output), never its price."""
    from yoke.providers.pricing import set_behaves_as

    picker = merged.get("modelPicker")
    rows = picker.get("options") if isinstance(picker, dict) else None
    if picker is not None and not isinstance(rows, list):
        warnings.append('settings: "modelPicker" must be an object with an "options" array; ignored')
        rows = []
    pairs = {}
    for row in rows or ():
        if (
            isinstance(row, dict)
            and isinstance(row.get("model"), str)
            and isinstance(row.get("behavesAs"), str)
        ):
            pairs[row["model"]] = row["behavesAs"]
    set_behaves_as(pairs)


def _yoke_home(env: Mapping[str, str]) -> Path:
    from yoke.session.transcript import yoke_home

    return yoke_home(dict(env))


def _int_env(env: Mapping[str, str], name: str, default: int) -> int:
    try:
        return int(env.get(name, default))
    except ValueError:
        raise SessionError(f"{name} must be a whole number (got {env.get(name)!r})") from None


def _load_settings(options: SessionOptions, cwd: Path, warnings: list[str]) -> Any:
    from yoke.config.settings import load_settings

    try:
        home = Path(options.env["HOME"]) if options.env is not None and options.env.get("HOME") else None
        loaded = load_settings(
            cwd, home=home, flag_settings=options.settings, setting_sources=options.setting_sources
        )
    except (OSError, ValueError) as exc:
        raise SessionError(f"--settings: {exc}") from None
    found = list(getattr(loaded, "warnings", []) or [])
    if options.settings is not None:
        # a file named on the command line must be usable: a problem with it is fatal, not a warning
        fatal = [w for w in found if w.startswith(("--settings", *_flag_file_labels(options.settings, cwd)))]
        if fatal:
            raise SessionError(fatal[0].removesuffix("; ignored"))
    warnings.extend(found)
    return loaded


def _flag_file_labels(value: str, cwd: Path) -> tuple[str, ...]:
    if value.strip().startswith("{"):
        return ()
    path = Path(value.strip()).expanduser()
    return (f"{path if path.is_absolute() else cwd / path}:",)


def _session_env(
    settings: Any, cwd: Path, base: Mapping[str, str] | None, warnings: list[str]
) -> dict[str, str]:
    """The session's environment: the caller's (or Yoke's own) with settings' `env` blocks applied, as in
    Claude Code overriding the shell's exports (an empty string unsets). Trust is decided first, from the
    Yoke home as it was before any settings applied; `config.env_policy` says what a project may set."""
    from yoke.config.env_policy import apply_env, settings_env
    from yoke.config.trust import is_trusted

    env = dict(os.environ if base is None else base)
    sources = list(getattr(settings, "sources", []) or [])
    trusted = not any(
        s.scope in ("project", "local") and isinstance(s.data.get("env"), dict) for s in sources
    )
    if not trusted:
        trusted = is_trusted(cwd, settings.yoke_home, home=settings.home, claude_dir=settings.claude_dir)
    apply_env(settings_env(sources, trusted, warnings), env)
    from yoke.tools.shell.output import SETTING_ENV, setting_limit

    limit = setting_limit((getattr(settings, "merged", {}) or {}).get("bashOutputMaxChars"))
    if limit is not None:
        env[SETTING_ENV] = limit
    return env


def _make_provider(
    options: SessionOptions, merged: dict[str, Any], env: Mapping[str, str]
) -> tuple[Any, str, str]:
    from yoke.providers.select import make_provider, resolve_provider

    flag_provider = options.provider
    if options.replay:
        if flag_provider not in (None, "replay"):
            raise SessionError(
                "--replay plays a cassette back; it cannot be combined with --provider", usage=True
            )
        flag_provider = "replay"
    try:
        config = resolve_provider(flag_provider, options.model, merged, env)
        if config.provider == "replay":
            path = options.replay or env.get("YOKE_REPLAY")
            if not path:
                raise SessionError(
                    "the replay provider needs a cassette: --replay FILE (or YOKE_REPLAY)", usage=True
                )
            from yoke.providers.replay import ReplayProvider

            provider = ReplayProvider(Path(path))
            model = options.model or provider.model or config.model
        else:
            provider = make_provider(config)
            model = config.model
        if options.record:
            from yoke.providers.record import record_provider

            record_provider(provider, Path(options.record), model)
        if options.request_gate is not None:
            from yoke.providers.gated import gate_provider

            gate_provider(provider, options.request_gate)
    except ProviderError as exc:
        raise SessionError(str(exc), usage=exc.kind == "config") from None
    headers = getattr(provider, "extra_headers", None)
    if options.betas and isinstance(
        headers, dict
    ):  # --betas: Anthropic's beta header, as Claude Code sends it
        headers["anthropic-beta"] = ",".join(filter(None, [headers.get("anthropic-beta"), *options.betas]))
    return provider, config.provider, model


def _with_fallback(
    provider: Any,
    name: str,
    model: str,
    options: SessionOptions,
    merged: dict,
    env: Mapping[str, str],
    loaded: Any,
) -> Any:
    """--fallback-model (or the fallbackModel setting): switch models on repeated overload; a resumed
    session that had switched goes on with the fallback."""
    from yoke.providers.fallback import with_fallback

    setting = merged.get("fallbackModel")
    fallback = options.fallback_model or (setting if isinstance(setting, str) else None)
    resumed = getattr(loaded.conversation, "fallback", None) if loaded.conversation is not None else None
    try:
        return with_fallback(provider, name, model, fallback, dict(env), resumed=resumed)
    except ProviderError as exc:
        raise SessionError(str(exc), usage=True) from None


AGENT_TOOL_NAMES = frozenset(
    {"Agent", "Task", "ListAgents", "SendMessage", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}
)


def _tools(options: SessionOptions) -> Any:
    from yoke.tools.builtin import builtin_tools
    from yoke.tools.registry import ToolRegistry

    registry = ToolRegistry(builtin_tools())
    if options.tools is not None:
        wanted = [n for n in options.tools if n not in AGENT_TOOL_NAMES]  # those come with _agents
        unknown = [n for n in wanted if registry.get(n) is None]
        if unknown:
            available = [*registry.names(), *sorted(AGENT_TOOL_NAMES - {"Task"})]
            raise SessionError(
                f"--tools: unknown tool(s) {', '.join(unknown)} (available: {', '.join(available)})",
                usage=True,
            )
        keep = {registry.get(n).name for n in wanted}  # type: ignore[union-attr]
        for name in registry.names():
            if name not in keep:
                registry.remove(name)
    return registry


def _offer_tools(options: SessionOptions, registry: Any, model: str, env: Mapping[str, str]) -> None:
    """The tools the model is offered, as `providers/models.json` (`tool_offer`) records Claude Code
    2.1.330's choices: the todo and task-list tools left out for the families it withholds them from (unless
    `--tools` names them), the rarely used ones deferred behind ToolSearch where the family has tool search,
    `ENABLE_TOOL_SEARCH` is not false and `--tools` did not pick the tools."""
    from yoke.providers.pricing import model_data, model_flag
    from yoke.tools.search import offer_tools

    offer = model_data().get("tool_offer") or {}
    named = set(options.tools or ())
    withheld = [n for n in offer.get("task_list", []) if n not in named]
    search_off = (env.get("ENABLE_TOOL_SEARCH") or "").strip().lower() in ("false", "0", "no", "off")
    search_off = search_off or options.tools is not None  # tools picked by name are sent in full
    offer_tools(
        registry,
        deferred=[] if search_off or model_flag(model, "tool_search") is False else offer.get("deferred", []),
        withheld=withheld if model_flag(model, "task_list") is False else [],
    )


def _plugin_agents(catalog: Any, extensions: Any, warnings: list[str]) -> None:
    """Enabled plugins' agent definitions, namespaced `plugin:name` as Claude Code names them."""
    from yoke.agents.definitions import parse_plugin_agent_file

    for plugin in getattr(extensions, "plugins", None) or []:
        folders = plugin.agent_dirs()
        for path in plugin.agent_files():
            folder = next((f for f in folders if f in path.parents), path.parent)
            definition = parse_plugin_agent_file(path, plugin.name, folder, warnings)
            if definition is not None:
                catalog.add(definition)


def _agents(
    options: SessionOptions, cwd: Path, env: Mapping[str, str], registry: Any, warnings: list[str]
) -> tuple[SessionOptions, Any]:
    """The agent definitions this session can start, their tools registered; with `--agent NAME` the main
    session takes that agent's prompt, tools, model and mode."""
    from yoke.agents import agent_tools, catalog_for

    try:
        catalog = catalog_for(cwd, env, options.agents)
    except ValueError as exc:
        raise SessionError(str(exc), usage=True) from None
    warnings.extend(catalog.warnings)
    for tool in agent_tools(catalog):
        if options.tools is None or {tool.name, *tool.aliases} & set(
            options.tools
        ):  # --tools restricts these too
            registry.register(tool)
    if options.agent:
        definition = catalog.get(options.agent)
        if definition is None:
            raise SessionError(
                f"--agent: no agent called {options.agent!r} (agents: {', '.join(catalog.names())})"
            )
        options = replace(
            options,
            system_prompt=options.system_prompt or definition.prompt or None,
            model=options.model or (definition.model if definition.model != "inherit" else None),
            permission_mode=options.permission_mode or definition.permission_mode,
        )
        keep = set(definition.tools) if definition.tools is not None else None
        for name in registry.names():
            if (keep is not None and name not in keep) or name in definition.disallowed_tools:
                catalog.withheld_tools.append(registry.get(name))  # its sub-agents still get them
                registry.remove(name)
    return options, catalog


def _sandbox_warning(gate: Any) -> list[str]:
    """One line when no kernel sandbox exists here to enforce what the fast paths allow (docs/permissions.md)."""
    from yoke.sandbox.confine import kernel_sandbox_available

    if getattr(gate, "mode", "") == "bypassPermissions" or kernel_sandbox_available():
        return []
    return [
        "no kernel sandbox found (install bubblewrap on Linux): commands Yoke allows without asking are "
        "confined only by its analysis of them"
    ]


def _gate(options: SessionOptions, settings: Any, cwd: Path, add_dirs: list[Path]) -> Any:
    from yoke.permissions import build_gate

    mode = options.permission_mode
    try:
        return build_gate(
            settings,
            cwd=cwd,
            mode=mode,
            allowed_tools=list(options.allowed_tools),
            disallowed_tools=list(options.disallowed_tools),
            add_dirs=add_dirs,
            interactive=options.interactive,
            allow_bypass=bool(options.allow_bypass or mode == "bypassPermissions"),
        )
    except ValueError as exc:
        raise SessionError(str(exc), usage=True) from None


def _session(options: SessionOptions, cwd: Path, home: Path) -> _Loaded:
    """The session id, transcript and record chain, and (when resuming) what was loaded. The transcript is
    claimed (one writer per session) before its history is read, so nothing is appended after the read."""
    from yoke.session.records import RecordChain
    from yoke.session.transcript import transcript_path

    conversation = None
    parent_uuid = None
    session_id = options.session_id or new_uuid()
    transcript = None
    if options.continue_session or options.resume is not None:
        conversation, session_id, transcript = _resume(options, cwd, home, session_id)
        if conversation is not None:
            parent_uuid = conversation.last_uuid
    if transcript is None:
        path = transcript_path(cwd, session_id, home)
        if options.session_id and path.exists():
            raise SessionError(f"Session ID {session_id} is already in use.")
        transcript = _claimed(path, options.persist)
    chain = RecordChain(
        session_id=session_id, cwd=str(cwd), entrypoint=options.entrypoint, parent_uuid=parent_uuid
    )
    return _Loaded(session_id, transcript, chain, conversation)


def _resumed_messages(conversation: Any, model: str, env: Any, warnings: list[str]) -> list:
    """The resumed history, under the same limit new prompts get: a message that alone fills the model's
    window is cut down rather than uploaded whole (and refused) on every turn."""
    if conversation is None:
        return []
    from yoke.context.oversize import shrink_oversized
    from yoke.providers.tokens import context_window

    messages, cut = shrink_oversized(list(conversation.messages), context_window(model, env))
    if cut:
        warnings.append(
            f"{cut} message(s) of the resumed history were larger than {model}'s context window and were "
            "shortened to their beginning and end"
        )
    return messages


def _claimed(path: Path, persist: bool) -> Any:
    from yoke.session.lock import SessionBusy
    from yoke.session.transcript import Transcript

    transcript = Transcript(path, enabled=persist)
    try:
        transcript.claim()
    except SessionBusy as exc:
        raise SessionError(str(exc)) from None
    except OSError:
        pass  # an unwritable home: the first append says so and the run goes on unsaved
    return transcript


def _resume(options: SessionOptions, cwd: Path, home: Path, session_id: str) -> tuple[Any, str, Any]:
    from yoke.session import store

    transcript = None
    try:
        if options.continue_session and not options.resume:
            path = store.latest_session(cwd, home)
            if path is None:
                return None, session_id, None  # as Claude Code: nothing to continue starts a new session
        else:
            if not options.resume:
                raise SessionError("--resume needs a session id or path in headless mode", usage=True)
            path = store.find_session(options.resume, cwd, home)
        forked = options.fork_session or options.session_id
        if not forked:
            path = _adopted(path, cwd, home)  # a Claude Code session goes on in Yoke's own copy
        if forked:
            # A fork gets its own transcript holding a copy of the history (fresh uuids, forkedFrom).
            session_id, path = store.fork_session(path, cwd, home, options.session_id or None)
        transcript = _claimed(path, options.persist)
        conversation = store.load_conversation(path)
    except (FileNotFoundError, LookupError, ValueError) as exc:
        if transcript is not None:
            transcript.close()
        raise SessionError(str(exc)) from None
    return conversation, (session_id if forked else conversation.session_id), transcript


def _adopted(path: Path, cwd: Path, home: Path) -> Path:
    from yoke.session.claude_transcripts import adopt, is_under

    if is_under(path, home):
        return path
    return adopt(path, cwd, home)


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
