"""Assembly, the session's tools: the built-in ones as `--tools` leaves them, the sub-agent and task-list
tools (as `--agent` leaves them), what the model is offered, plugins' agent definitions, --json-schema's
tool, a sub-agent's subset of its parent's tools; and MCP servers: which settings may approve a project's
`.mcp.json` servers, the session's servers (`mcp/attach.py`), a sub-agent definition's own servers."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.session.engine import SessionError
from yoke.session.options import SessionOptions

if TYPE_CHECKING:
    from yoke.agents.child_options import ChildOptions
    from yoke.loop.lifecycle import Lifecycle
    from yoke.permissions.pipeline import PermissionGate
    from yoke.session.resources import ResourceStack
    from yoke.tools.registry import ToolRegistry

AGENT_TOOL_NAMES = frozenset(
    {"Agent", "Task", "ListAgents", "SendMessage", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}
    | {"EnterWorktree", "ExitWorktree"}
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


def offer_model_tools(
    options: SessionOptions, registry: Any, model: str, env: Mapping[str, str], notifies: bool = True
) -> None:
    """The tools the model is offered, as `providers/models.json` (`tool_offer`) records Claude Code
    2.1.330's choices: the todo and task-list tools left out for the families it withholds them from (unless
    `--tools` names them), the rarely used ones deferred behind ToolSearch where the family has tool search,
    `ENABLE_TOOL_SEARCH` is not false and `--tools` did not pick the tools. PushNotification is left out
    unless `notifies` (the session is hosted, or the user set a webhook) or `--tools` names it."""
    from yoke.providers.pricing import model_data, model_flag
    from yoke.tools.search import offer_tools

    offer = model_data().get("tool_offer") or {}
    named = set(options.tools or ())
    withheld = [n for n in offer.get("task_list", []) if n not in named]
    # PushNotification where a notification can go (2.1.332 offers it only with Remote Control on)
    unheard = [] if notifies or "PushNotification" in named else ["PushNotification"]
    search_off = (env.get("ENABLE_TOOL_SEARCH") or "").strip().lower() in ("false", "0", "no", "off")
    search_off = search_off or options.tools is not None  # tools picked by name are sent in full
    offer_tools(
        registry,
        deferred=[] if search_off or model_flag(model, "tool_search") is False else offer.get("deferred", []),
        withheld=(withheld if model_flag(model, "task_list") is False else []) + unheard,
    )


def notifies(env: Mapping[str, str], settings: Any) -> bool:
    """Whether a notification can leave this session: it is hosted, or the user's own settings name a
    webhook (`yoke.notify.SETTING`, named here so a run does not import the notifier and its redactor)."""
    if env.get("YOKE_HOSTED") == "1":
        return True
    blocks = (
        [source.data.get("remoteNotifications") for source in settings.source("user")]
        if settings is not None
        else []
    )
    return any(isinstance(block, dict) and block.get("webhook") for block in blocks)


def register_agent_tools(registry: Any, catalog: Any, options: SessionOptions) -> None:
    """The sub-agent and task-list tools (`--tools` restricts these too); with `--agent NAME` the tools
    that agent may not use are withheld from the main session (its sub-agents still get them)."""
    from yoke.agents import agent_tools

    for tool in agent_tools(catalog):
        if options.tools is None or {tool.name, *tool.aliases} & set(options.tools):
            registry.register(tool)
    definition = catalog.get(options.agent) if options.agent else None
    if definition is None:
        return
    keep = set(definition.tools) if definition.tools is not None else None
    for name in registry.names():
        if (keep is not None and name not in keep) or name in definition.disallowed_tools:
            catalog.withheld_tools.append(registry.get(name))
            registry.remove(name)


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


def structured_output(options: SessionOptions, registry: Any) -> Any:
    """--json-schema: the StructuredOutput tool, and its listener and result shaper (session/structured.py)."""
    if options.json_schema is None:
        return None
    from yoke.session.structured import StructuredOutput

    structured = StructuredOutput(options.json_schema)
    registry.register(structured.tool)
    return structured


def child_registry(tools: ToolRegistry, options: ChildOptions) -> ToolRegistry:
    """A sub-agent's tools: the parent's (and those `--agent` withheld from it), as the definition's
    `tools` and `disallowedTools` leave them."""
    from yoke.tools.registry import ToolRegistry

    wanted = None if options.tools is None else set(options.tools)
    denied = set(options.disallowed_tools)
    keep = []
    for tool in [*tools, *options.withheld_tools]:
        names = {tool.name, *tool.aliases}
        if wanted is not None and not names & wanted:
            continue
        if names & denied:
            continue
        keep.append(tool)
    return ToolRegistry(keep)


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
    lifecycle: Lifecycle,
    asker: Callable[[], Any],
) -> Any:
    """MCP servers from every configuration source, started concurrently and waited for up to the
    start-up deadline (yoke.mcp.attach); None when none is configured (the `mcp` package stays unloaded).
    A server's elicitation requests go to the Elicitation hooks on `lifecycle`, then to `asker()` (the
    front-end's asker at that moment)."""
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
        lifecycle=lifecycle,
        asker=asker,
    )


async def agent_mcp(
    servers: dict[str, Any],
    label: str,
    cwd: Path,
    registry: Any,
    env: Mapping[str, str],
    warnings: list[str],
    resources: ResourceStack,
) -> None:
    """A sub-agent definition's own MCP servers (`mcpServers` entries written out in full) run for that
    agent only, closed with it; servers named by a string are the session's own, whose tools it has."""
    if not servers:
        return
    from yoke.mcp.attach import attach_mcp

    runtime = await attach_mcp(
        cwd, {}, registry, warnings, flag_configs=[json.dumps({"mcpServers": servers})], strict=True, env=env
    )
    if runtime is not None and hasattr(runtime, "aclose"):
        resources.add(runtime, f"MCP servers of agent {label}")
