"""Requests to connected servers: tool calls, resources and prompts. A request waits for a server being
(re)started, and fails with a line the model can read, never hangs, when the connection ends under it or
the server does not answer in time. `McpManager` (manager.py) inherits these methods."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from yoke.mcp.errors import is_connection_error, is_timeout
from yoke.mcp.server_state import McpUnavailable, ServerState, usable


class McpRequests:
    # what these methods use of `McpManager`, which inherits them
    servers: dict[str, ServerState]
    startup_timeout: float
    tool_timeout: float | None
    _closing: asyncio.Event

    # ---- calls --------------------------------------------------------------------------------------

    async def _session(self, server: str) -> Any:
        """The connected server; a server being restarted or reconnected is waited for (start-up deadline)."""
        state = self.servers.get(server)
        if state is None:
            raise McpUnavailable(f'no MCP server named "{server}"')
        deadline = asyncio.get_running_loop().time() + self.startup_timeout
        while (
            not usable(state)
            and state.status in ("pending", "connected")
            and not self._closing.is_set()
            and asyncio.get_running_loop().time() < deadline
        ):
            await asyncio.sleep(0.05)
        if not usable(state):
            detail = f": {state.error}" if state.error else ""
            raise McpUnavailable(f'MCP server "{server}" is {state.status}{detail}')
        return state

    async def call_tool(
        self, server: str, tool: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None
    ) -> Any:
        state = await self._session(server)
        timeout = state.config.timeout_ms / 1000 if state.config.timeout_ms else self.tool_timeout
        return await self._request(
            state, state.session.call_tool(tool, arguments, read_timeout_seconds=timeout, meta=meta), timeout
        )

    async def _request(self, state: ServerState, coro: Any, timeout: float | None = None) -> Any:
        """One request that fails (instead of hanging) when the connection ends under it."""
        call = asyncio.ensure_future(coro)
        ended = asyncio.ensure_future(state.link.ended.wait()) if state.link else None
        waits = {call} | ({ended} if ended else set())
        try:
            done, _ = await asyncio.wait(
                waits, timeout=(timeout + 1) if timeout else None, return_when="FIRST_COMPLETED"
            )
        finally:
            if ended is not None:
                ended.cancel()
        if call in done:
            if state.refreshing is not None and not state.refreshing.done():
                # the server changed its tool list during the call: the next request should carry the new one
                await asyncio.wait({state.refreshing}, timeout=5)
            try:
                return call.result()
            except Exception as exc:
                if is_connection_error(exc):
                    state.lost.set()
                    raise McpUnavailable(
                        f'the connection to MCP server "{state.name}" was lost; reconnecting'
                    ) from None
                if is_timeout(exc):
                    raise McpUnavailable(
                        f'MCP server "{state.name}" did not answer within {timeout:g} s'
                    ) from None
                raise
        call.cancel()
        if ended is not None and ended.done():
            why = state.link.describe_end() if state.link else ""
            raise McpUnavailable(
                f'MCP server "{state.name}" exited during the call'
                + (f" ({why})" if why else "")
                + "; it is being restarted"
            )
        raise McpUnavailable(f'MCP server "{state.name}" did not answer within {timeout:g} s')

    async def list_resources(self, server: str | None = None) -> list[tuple[str, Any]]:
        names = [server] if server else [n for n, s in self.servers.items() if s.session is not None]
        out: list[tuple[str, Any]] = []
        for name in names:
            state = await self._session(name)
            if state.capabilities is None or state.capabilities.resources is None:
                continue
            result = await self._request(state, state.session.list_resources())
            out.extend((name, r) for r in result.resources)
        return out

    async def read_resource(self, server: str, uri: str) -> Any:
        state = await self._session(server)
        return await self._request(state, state.session.read_resource(uri))

    async def list_prompts(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        for name, state in self.servers.items():
            if state.session is None or state.capabilities is None or state.capabilities.prompts is None:
                continue
            with contextlib.suppress(Exception):
                result = await self._request(state, state.session.list_prompts())
                out.extend((name, p) for p in result.prompts)
        return out

    async def get_prompt(self, server: str, prompt: str, arguments: dict[str, str]) -> Any:
        state = await self._session(server)
        return await self._request(state, state.session.get_prompt(prompt, arguments))
