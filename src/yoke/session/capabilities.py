"""Assembly, stage three: what the session can do. Built-in and agent tools (and what the model is
offered), the permission gate, MCP servers, --json-schema's tool, and the tool executor with the
session's tool context and services."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.loop.lifecycle import Lifecycle
from yoke.seams import NoAsker
from yoke.session.engine import SessionError, set_gate_mode
from yoke.session.options import SessionOptions
from yoke.session.resume import Loaded

if TYPE_CHECKING:
    from yoke.permissions.pipeline import PermissionGate
    from yoke.seams import Gate

AGENT_TOOL_NAMES = frozenset(
    {"Agent", "Task", "ListAgents", "SendMessage", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}
)


def builtin_registry(options: SessionOptions) -> Any:
    from yoke.tools.builtin import builtin_tools
    from yoke.tools.registry import ToolRegistry

    registry = ToolRegistry(builtin_tools())
    if options.tools is not None:
        wanted = [n for n in options.tools if n not in AGENT_TOOL_NAMES]  # those come with agent_catalog
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


def offer_model_tools(options: SessionOptions, registry: Any, model: str, env: Mapping[str, str]) -> None:
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


def agent_catalog(
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


def add_plugin_agents(catalog: Any, extensions: Any, warnings: list[str]) -> None:
    """Enabled plugins' agent definitions, namespaced `plugin:name` as Claude Code names them."""
    from yoke.agents.definitions import parse_plugin_agent_file

    for plugin in getattr(extensions, "plugins", None) or []:
        folders = plugin.agent_dirs()
        for path in plugin.agent_files():
            folder = next((f for f in folders if f in path.parents), path.parent)
            definition = parse_plugin_agent_file(path, plugin.name, folder, warnings)
            if definition is not None:
                catalog.add(definition)


def session_gate(options: SessionOptions, settings: Any, cwd: Path, add_dirs: list[Path]) -> PermissionGate:
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
        )
    except ValueError as exc:
        raise SessionError(str(exc), usage=True) from None
    if options.restricted:  # the file tools stay inside the working directories
        gate.block_outside_reads = True
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


_MCP_APPROVALS = ("enableAllProjectMcpServers", "enabledMcpjsonServers")


def mcp_settings(settings: Any, cwd: Path, merged: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
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


async def start_mcp(
    options: SessionOptions,
    cwd: Path,
    merged: dict[str, Any],
    registry: Any,
    gate: PermissionGate,
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
    registry: Any,
    gate: PermissionGate,
    cwd: Path,
    env: dict[str, str],
    working_dirs: list[Path],
    session_dir: Path,
    loaded: Loaded,
    recorder: Any,
    memory: Any,
    options: SessionOptions,
    lifecycle: Lifecycle,
) -> Any:
    """The tool executor, the session's tool context and the collaborators that watch tool calls."""
    from yoke.agents.task_list import TaskList
    from yoke.loop.executor import ToolExecutor, ToolObserver
    from yoke.session.collaborators import Checkpointer, NestedMemory
    from yoke.tools.base import SessionState, ToolContext
    from yoke.tools.services import SessionServices

    # the sandbox Bash runs in; what Grep and Glob leave out; the task list (TaskCreate and friends)
    services = SessionServices.for_gate(gate, task_list=TaskList(lifecycle))
    state = SessionState(session_id=recorder.session_id, session_dir=session_dir, services=services)
    conversation = loaded.conversation
    if conversation is not None:
        if conversation.todos:
            state.services.todos = list(conversation.todos)
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
    observers: list[ToolObserver] = [Checkpointer(session_dir, recorder), NestedMemory(memory)]
    return ToolExecutor(registry, gate, ctx, lifecycle, observers)


async def close_shell(ctx: Any) -> None:
    if ctx.session.services.shell is not None:
        from yoke.tools.shell.state import shutdown_shell

        await shutdown_shell(ctx.session)


def structured_output(options: SessionOptions, registry: Any) -> Any:
    """--json-schema: the StructuredOutput tool, and its listener and result shaper (session/structured.py)."""
    if options.json_schema is None:
        return None
    from yoke.session.structured import StructuredOutput

    structured = StructuredOutput(options.json_schema)
    registry.register(structured.tool)
    return structured
