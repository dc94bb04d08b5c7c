"""MCP inside a session: the manager, the tools it puts in the registry, state changes as events, prompts.

Imported only when at least one server is configured (it loads the `mcp` package, over a second).
"""

from __future__ import annotations

import logging
import os
import shlex
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from yoke.mcp.config import McpConfig
from yoke.mcp.manager import McpManager
from yoke.mcp.server_state import McpUnavailable
from yoke.mcp.tools import ListMcpResourcesTool, McpTool, ReadMcpResourceTool, max_output_chars, tool_name
from yoke.mcp.toolsearch import ToolSearch, should_defer

# The `mcp` package logs tracebacks for failures Yoke reports itself (one line per server state).
logging.getLogger("mcp").addHandler(logging.NullHandler())
logging.getLogger("mcp").propagate = False


class McpRuntime:
    def __init__(
        self,
        config: McpConfig,
        cwd: Path,
        registry: Any,
        *,
        notify: Callable[[str, str, dict[str, Any]], None] | None = None,
        hide: Callable[[list[str]], Iterable[str]] | None = None,  # the tools a bare deny rule hides
        elicit: Callable[..., Any] | None = None,
        env: Mapping[str, str] | None = None,
        prespawned: dict[str, Any] | None = None,
        lifecycle: Any = None,
        asker: Callable[[], Any] | None = None,
    ):
        self.env = os.environ if env is None else env
        self.config = config
        self.registry = registry
        self.notify = notify
        self.hide = hide
        self.max_chars = max_output_chars(self.env)
        self.manager = McpManager(
            config.servers,
            cwd,
            on_change=self._changed,
            on_tools_changed=self.sync_tools,
            elicit=self._elicit,
            env=self.env,
            auth_factory=_auth_factory(self.env),
            prespawned=prespawned,
        )
        self.tool_search = ToolSearch(registry)
        self._deferring = False
        self._started = False
        self.lifecycle = lifecycle  # Elicitation / ElicitationResult hooks
        self.asker = asker  # the session's asker now (a front-end may replace it): answers elicitations
        self._ask = elicit  # an explicit elicitation answerer, else the asker's `elicit` if it has one

    async def _elicit(self, server: str, params: Any) -> tuple[str, Any]:
        """A server asks the user for input: Elicitation hooks first, then the asker; nobody there
        (headless) declines. ElicitationResult hooks may change the answer."""
        mode = getattr(params, "mode", None) or "form"
        fields = {"mcp_server_name": server, "message": params.message, "mode": mode}
        schema = getattr(params, "requested_schema", None)
        action, content, answered = "decline", None, False
        if self.lifecycle is not None:
            out = await self.lifecycle.announce("Elicitation", **fields, requested_schema=schema)
            if out.extras.get("action") in ("accept", "decline", "cancel"):
                action, content, answered = out.extras["action"], out.extras.get("content"), True
            elif out.decision == "deny" or out.block:
                answered = True
        if not answered:
            asker = self.asker() if self.asker is not None else None
            ask = self._ask or getattr(asker, "elicit", None)
            if callable(ask):
                reply = await ask(server, params.message, schema, mode)
                if reply:
                    action, content = reply if isinstance(reply, tuple) else (reply, None)
        if self.lifecycle is not None:
            out = await self.lifecycle.announce(
                "ElicitationResult",
                mcp_server_name=server,
                action=action,
                content=content,
                mode=mode,
                elicitation_id=getattr(params, "elicitation_id", None) or "",
            )
            if out.extras.get("action") in ("accept", "decline", "cancel"):
                action, content = out.extras["action"], out.extras.get("content", content)
        return action, content if action == "accept" else None

    def start(self) -> None:
        self.manager.start()

    async def wait_started(self) -> None:
        await self.manager.wait_started()
        self._started = True
        self._apply_deferral()

    async def aclose(self) -> None:
        await self.manager.aclose()

    async def reconnect(self, name: str) -> None:
        await self.manager.reconnect(name)

    async def set_enabled(self, name: str, enabled: bool) -> None:
        await self.manager.set_enabled(name, enabled)

    def entries(self) -> list[dict[str, Any]]:
        """`mcp_servers` of the init line: every server with its real state."""
        out = self.manager.statuses()
        out += [{"name": n, "status": "disabled", "error": "not approved"} for n in self.config.unapproved]
        out += [{"name": n, "status": "disabled", "error": "rejected"} for n in self.config.rejected]
        return out

    def _changed(self, name: str, status: str, error: str) -> None:
        if self.notify is not None and self._started:
            text = f'MCP server "{name}": {status}' + (f" ({error})" if error else "")
            self.notify("mcp_status", text, {"server": name, "status": status, "error": error})

    # ---- tools --------------------------------------------------------------------------------------

    def sync_tools(self, server: str) -> None:
        """(Re)register one server's tools after it connected or its list changed."""
        state = self.manager.servers[server]
        prefix = tool_name(server, "")
        old = {t.name: t for t in self.registry if isinstance(t, McpTool) and t.name.startswith(prefix)}
        tools = [McpTool(self.manager, server, spec, self.max_chars) for spec in state.tools]
        names = [t.name for t in tools]
        hidden = set(self.hide(names)) if self.hide else set()
        for name in old:
            self.registry.remove(name)
        for tool in tools:
            if tool.name in hidden:
                continue
            if tool.name in old:
                tool.deferred = old[tool.name].deferred
            elif self._started and self.tool_search_on:
                tool.deferred = not (tool.always_load or state.config.always_load)
            self.registry.register(tool)
        if any(getattr(c, "resources", None) is not None for c in self._capabilities()):
            for extra in (ListMcpResourcesTool(self.manager), ReadMcpResourceTool(self.manager)):
                if self.registry.get(extra.name) is None:
                    self.registry.register(extra)
        if self._started and old.keys() != set(names) and self.notify is not None:
            self.notify(
                "mcp_tools", f'MCP server "{server}" now offers {len(names)} tools', {"server": server}
            )
        refresh = getattr(self.registry, "refresh", None)
        if callable(refresh):
            refresh()

    def _capabilities(self) -> list[Any]:
        return [s.capabilities for s in self.manager.servers.values() if s.capabilities is not None]

    @property
    def tool_search_on(self) -> bool:
        """MCP tools are deferred (a ToolSearch may be there for deferred built-ins alone)."""
        return self._deferring

    def _apply_deferral(self) -> None:
        mcp_tools = [t for t in self.registry if isinstance(t, McpTool)]
        if not mcp_tools or not should_defer(mcp_tools, self.env):
            return
        for tool in mcp_tools:
            always = tool.always_load or self.manager.servers[tool.server].config.always_load
            tool.deferred = not always
        if any(t.deferred for t in mcp_tools):
            self._deferring = True
            if self.registry.get("ToolSearch") is None:
                self.registry.register(self.tool_search)
            self.registry.refresh()

    # ---- prompts as slash commands ------------------------------------------------------------------

    async def prompt_specs(self) -> list[tuple[str, Any]]:
        """(server name, prompt) of every prompt the connected servers offer (name, description, arguments)."""
        return await self.manager.list_prompts()

    async def prompt_commands(self) -> list[str]:
        return [f"mcp__{server}__{p.name}" for server, p in await self.manager.list_prompts()]

    async def expand_command(self, text: str) -> str | None:
        """`/mcp__server__prompt args`: the prompt rendered by its server, or None when not one of ours."""
        return await render_prompt(self.manager, text)


async def render_prompt(manager: McpManager, text: str) -> str | None:
    stripped = text.strip()
    if not stripped.startswith("/mcp__"):
        return None
    head, _, rest = stripped[1:].partition(" ")
    parts = head.split("__")
    if len(parts) < 3:
        return None
    server, prompt = parts[1], "__".join(parts[2:])
    if server not in manager.servers:
        return None
    prompts = {p.name: p for s, p in await manager.list_prompts() if s == server}
    spec = prompts.get(prompt)
    if spec is None:
        raise McpUnavailable(f'MCP server "{server}" has no prompt "{prompt}"')
    try:
        values = shlex.split(rest)
    except ValueError:
        values = rest.split()
    arguments = {a.name: v for a, v in zip(spec.arguments or [], values, strict=False)}
    result = await manager.get_prompt(server, prompt, arguments)
    lines = []
    for message in result.messages:
        content = message.content
        text_part = getattr(content, "text", None)
        if text_part is None and getattr(content, "type", "") == "resource":
            text_part = getattr(content.resource, "text", None)
        if text_part:
            lines.append(text_part)
    return "\n\n".join(lines)


def _auth_factory(env: Mapping[str, str]) -> Callable[[Any], Any]:
    def make(cfg: Any) -> Any:
        from yoke.mcp.oauth import headless_auth

        return headless_auth(cfg, env)

    return make
