"""The connection manager: every configured server connects concurrently in the background and never hangs
the session.

Each server has a supervisor task. It opens a connection attempt and gives it the start-up deadline
(`MCP_TIMEOUT`, default 30 s) to initialize and list its tools; an attempt that misses it is cancelled and
the server is `failed`. A connected server whose connection ends (a stdio server crashed, a remote one
dropped) is reconnected: a stdio server is restarted at once, a remote one after 1 s; further failed attempts
wait 2, 4, 8, 16 s, and after five the server stays `failed`. States: pending -> connected | failed |
needs-auth | disabled, each change reported through `on_change(name, status, error)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession, MessageHandlerFnT

from yoke.mcp.config import ServerConfig
from yoke.mcp.errors import error_text, is_connection_error, needs_auth, unwrap
from yoke.mcp.requests import McpRequests
from yoke.mcp.server_state import ServerState
from yoke.mcp.transports import Link, open_transport

BACKOFF_S = (1, 2, 4, 8, 16)  # waits before reconnection attempts 1..5
STABLE_AFTER_S = 10.0  # a connection that lasted this long was healthy: its end starts a fresh count
PING_EVERY_S = 10.0


DEFAULT_TOOL_TIMEOUT_S = 600.0  # a tools/call with no answer by then is an error result (MCP_TOOL_TIMEOUT)


def _ms_env(env: Mapping[str, str], name: str, default: float | None) -> float | None:
    value = env.get(name)
    if not value:
        return default
    try:
        ms = float(value)
    except ValueError:
        return default
    return ms / 1000 if ms > 0 else default


class McpManager(McpRequests):
    def __init__(
        self,
        configs: Mapping[str, ServerConfig],
        cwd: Path,
        *,
        on_change: Callable[[str, str, str], None] | None = None,
        on_tools_changed: Callable[[str], None] | None = None,
        elicit: Callable[..., Any] | None = None,
        env: Mapping[str, str] | None = None,
        auth_factory: Callable[[ServerConfig], Any] | None = None,
        prespawned: dict[str, Any] | None = None,
    ):
        env = os.environ if env is None else env
        self.env = env
        self.cwd = cwd
        self.servers = {name: ServerState(cfg) for name, cfg in configs.items()}
        self.on_change = on_change
        self.on_tools_changed = on_tools_changed
        self.elicit = elicit
        self.auth_factory = auth_factory
        self.startup_timeout = _ms_env(env, "MCP_TIMEOUT", 30.0) or 30.0
        self.tool_timeout = _ms_env(env, "MCP_TOOL_TIMEOUT", DEFAULT_TOOL_TIMEOUT_S)
        self._prespawned = dict(prespawned or {})  # stdio processes started before `mcp` was imported
        self._tasks: list[asyncio.Task] = []
        self._supervisors: dict[str, asyncio.Task] = {}
        self._closing = asyncio.Event()

    # ---- lifetime -----------------------------------------------------------------------------------

    def start(self) -> None:
        for state in self.servers.values():
            self._watch(state)

    def _watch(self, state: ServerState) -> None:
        task = asyncio.ensure_future(self._supervise(state))
        self._supervisors[state.name] = task
        self._tasks.append(task)

    async def _unwatch(self, state: ServerState) -> None:
        task = self._supervisors.pop(state.name, None)
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=3.0)

    async def reconnect(self, name: str) -> None:
        """Drop the server's connection (stopping a stdio server) and connect again from scratch."""
        state = self._state(name)
        await self._unwatch(state)
        self._set(state, "pending", "reconnecting")
        self._watch(state)

    async def set_enabled(self, name: str, enabled: bool) -> None:
        """Disable (disconnect, its tools withdrawn) or enable (connect) one server for this session."""
        state = self._state(name)
        await self._unwatch(state)
        if enabled:
            self._set(state, "pending", "")
            self._watch(state)
            return
        state.tools = []
        self._set(state, "disabled", "disabled for this session")
        if self.on_tools_changed is not None:
            self.on_tools_changed(name)

    def _state(self, name: str) -> ServerState:
        state = self.servers.get(name)
        if state is None:
            raise KeyError(f"no MCP server {name!r} (servers: {', '.join(self.servers) or 'none'})")
        return state

    async def wait_started(self, timeout: float | None = None) -> None:
        """Until every server has left `pending` once (or the deadline passes)."""
        waits = [s.settled.wait() for s in self.servers.values()]
        if waits:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*waits), timeout or self.startup_timeout + 1)

    async def aclose(self) -> None:
        """Stop every server: stdio ones are signalled SIGINT -> SIGTERM -> SIGKILL within a second."""
        self._closing.set()
        for process in self._prespawned.values():  # started, never adopted (closed before connecting)
            from yoke.mcp.transports import stop_process

            await stop_process(process)
        self._prespawned.clear()
        if not self._tasks:
            return
        _done, pending = await asyncio.wait(self._tasks, timeout=2.0)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=1.0)
        self._tasks = []

    def statuses(self) -> list[dict[str, Any]]:
        return [s.entry() for s in self.servers.values()]

    def _set(self, state: ServerState, status: str, error: str = "") -> None:
        changed = (state.status, state.error) != (status, error)
        state.status, state.error = status, error
        if status != "pending":
            state.settled.set()
        if changed and self.on_change is not None:
            self.on_change(state.name, status, error)

    # ---- the supervisor -----------------------------------------------------------------------------

    async def _supervise(self, state: ServerState) -> None:
        attempts: list[asyncio.Future] = []
        try:
            await self._supervise_attempts(state, attempts)
        finally:  # cancelled (reconnect, disable): the attempt in flight ends too, stopping its server
            for attempt in attempts:
                if not attempt.done():
                    attempt.cancel()

    async def _supervise_attempts(self, state: ServerState, attempts: list[asyncio.Future]) -> None:
        was_connected = False
        failures = 0  # failed reconnection attempts in a row (a connection that lasts resets it)
        while not self._closing.is_set():
            attempt = asyncio.ensure_future(self._attempt(state))
            attempts[:] = [attempt]
            connected = await self._until_ready(state, attempt)
            if connected:
                was_connected = True
                since = asyncio.get_running_loop().time()
                closing = asyncio.ensure_future(self._closing.wait())
                await asyncio.wait({attempt, closing}, return_when=asyncio.FIRST_COMPLETED)
                closing.cancel()
                await self._finish(attempt)
                if self._closing.is_set():
                    return
                if asyncio.get_running_loop().time() - since > STABLE_AFTER_S:
                    failures = 0
                else:
                    failures += 1  # a server that dies right after starting is not restarted forever
                state.restarts += 1
                why = state.link.describe_end() if state.link else ""
                self._set(state, "pending", "connection lost; reconnecting" + (f" ({why})" if why else ""))
                if failures >= len(BACKOFF_S):
                    self._set(
                        state, "failed", "kept exiting right after starting" + (f" ({why})" if why else "")
                    )
                    return
                if state.config.remote:
                    await self._sleep(BACKOFF_S[failures])  # a dropped remote: 1 s, then 2, 4, 8, 16
                elif failures > 1:
                    await self._sleep(
                        BACKOFF_S[failures - 1]
                    )  # a crashed stdio server: at once, then 2, 4, 8
                continue
            error = await self._finish(attempt, timed_out=not attempt.done())
            if self._closing.is_set():
                return
            if needs_auth(error):
                self._set(state, "needs-auth", f"run `yoke mcp login {state.name}` to sign in")
                return
            failures += 1
            if not was_connected or failures >= len(BACKOFF_S):
                self._set(state, "failed", error_text(error, state, self.startup_timeout))
                return
            self._set(state, "pending", f"reconnecting (attempt {failures + 1})")
            await self._sleep(BACKOFF_S[failures])

    async def _until_ready(self, state: ServerState, attempt: asyncio.Future) -> bool:
        """Whether the attempt connected within the start-up deadline (False: it failed, timed out, or the
        manager is closing)."""
        state.ready, state.lost = asyncio.Event(), asyncio.Event()
        ready = asyncio.ensure_future(state.ready.wait())
        closing = asyncio.ensure_future(self._closing.wait())
        try:
            await asyncio.wait(
                {attempt, ready, closing}, timeout=self.startup_timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            ready.cancel()
            closing.cancel()
        return state.ready.is_set()

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._closing.wait()

    async def _finish(self, attempt: asyncio.Future, timed_out: bool = False) -> BaseException | None:
        """End an attempt (cancelling it if it is still running); its error, if any."""
        if not attempt.done():
            attempt.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(attempt), 3.0)
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():  # type: ignore[union-attr]
                raise
            return TimeoutError() if timed_out else None
        except TimeoutError:
            return TimeoutError()
        except BaseException as exc:  # noqa: BLE001 - the attempt's failure, reported as the server's error
            return unwrap(exc)
        return TimeoutError() if timed_out else None

    async def _attempt(self, state: ServerState) -> None:
        from yoke import __version__

        link = Link()
        state.link = link
        auth = self.auth_factory(state.config) if self.auth_factory and state.config.remote else None
        try:
            async with (
                open_transport(
                    state.config, self.cwd, link, auth, self.env, self._prespawned.pop(state.name, None)
                ) as (read, write),
                ClientSession(
                    read,
                    write,
                    elicitation_callback=self._elicitation(state),
                    message_handler=self._messages(state),
                    client_info=types.Implementation(name="yoke", version=__version__),
                ) as session,
            ):
                init = await session.initialize()
                state.capabilities = init.capabilities
                state.server_info = init.server_info
                state.instructions = init.instructions or ""
                state.tools = await list_tools(session) if init.capabilities.tools is not None else []
                state.session = session
                state.ready.set()
                self._set(state, "connected")
                if self.on_tools_changed is not None:
                    self.on_tools_changed(state.name)
                await self._until_lost(state, session, link)
        finally:
            state.session = None

    async def _until_lost(self, state: ServerState, session: ClientSession, link: Link) -> None:
        """Wait until the connection ends: the transport says so, a call failed on it, or pings stop."""
        waits = [
            asyncio.ensure_future(link.ended.wait()),
            asyncio.ensure_future(state.lost.wait()),
            asyncio.ensure_future(self._closing.wait()),
        ]
        if state.config.remote:
            waits.append(asyncio.ensure_future(self._ping(session)))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waits:
                waiter.cancel()

    async def _ping(self, session: ClientSession) -> None:
        while True:
            await asyncio.sleep(PING_EVERY_S)
            try:
                await asyncio.wait_for(session.send_ping(), PING_EVERY_S)
            except Exception:
                return

    def _messages(self, state: ServerState) -> MessageHandlerFnT:
        async def handle(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                state.refreshing = asyncio.ensure_future(self.refresh_tools(state.name))
            elif isinstance(message, Exception) and state.config.remote and is_connection_error(message):
                state.lost.set()

        return handle

    def _elicitation(self, state: ServerState) -> Callable[..., Any]:
        async def answer(context: Any, params: Any) -> Any:
            if self.elicit is None:
                return types.ElicitResult(action="decline")
            try:
                result = await self.elicit(state.name, params)
            except Exception:
                return types.ElicitResult(action="decline")
            if isinstance(result, types.ElicitResult):
                return result
            action, content = result if isinstance(result, tuple) else (result, None)
            return types.ElicitResult(action=action, content=content)

        return answer

    async def refresh_tools(self, name: str) -> None:
        """`notifications/tools/list_changed`: list the server's tools again and tell the session."""
        state = self.servers.get(name)
        if state is None or state.session is None:
            return
        try:
            state.tools = await list_tools(state.session)
        except Exception:
            return
        if self.on_tools_changed is not None:
            self.on_tools_changed(name)


async def list_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[Any] = []
    cursor = None
    for _ in range(100):  # a server that pages forever is not followed forever
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await session.list_tools(params=params)
        tools.extend(result.tools)
        cursor = result.next_cursor
        if not cursor:
            break
    return tools
