"""The host process (`yoke host`): listens on a Unix socket (0600) and optionally TCP with a token, runs
hosted sessions, and stops when idle. Methods and messages: docs/wire.md."""

from __future__ import annotations

import asyncio
import fcntl
import os
import secrets
import sys
import time
from typing import Any

from yoke.host import records
from yoke.host.hosted import HostedSession
from yoke.host.methods import METHODS
from yoke.host.notifier import Notifier
from yoke.host.owned import open_private, read_private, write_private
from yoke.host.paths import runtime_dir, socket_path, token_path
from yoke.host.protocol import MAX_MESSAGE, ProtocolError, decode_request, encode, error
from yoke.host.scopes import held_to
from yoke.host.tokens import scope_for

# bytes queued for one client before it counts as too slow and is dropped (it may reconnect with its last seq)
CLIENT_BUFFER = int(os.environ.get("YOKE_HOST_CLIENT_BUFFER") or 8 * 1024 * 1024)
# seconds a TCP or WebSocket client has to authenticate (`hello` with the token) before it is dropped, and
# how many may be waiting to at once: idle connections cannot use up the host's file descriptors
HELLO_DEADLINE = float(os.environ.get("YOKE_HOST_HELLO_TIMEOUT") or 10)
REPLAY_STALL = 30.0  # seconds a replaying client may read nothing before it is dropped


class Client:
    def __init__(self, writer: asyncio.StreamWriter, authenticated: bool):
        self.writer = writer
        self.authenticated = authenticated
        self.held: list[bytes] | None = None  # live messages waiting for a replay to finish
        self.held_bytes = 0

    def send(self, data: bytes) -> bool:
        """Queue `data`; False (and the connection dropped) when the client has stopped reading."""
        if self.writer.is_closing():
            return False
        if self.held is not None:  # a replay is under way: live messages follow it, in order
            self.held.append(data)
            self.held_bytes += len(data)
            if self.held_bytes <= CLIENT_BUFFER:
                return True
            self.abort()
            return False
        if self.writer.transport.get_write_buffer_size() > CLIENT_BUFFER:
            self.abort()
            return False
        self.writer.write(data)
        return True

    async def replay(self, messages: list[bytes]) -> None:
        """Send a reconnecting client's backlog at the pace it reads, however long (a backlog sent at once
        overflowed the buffer, and a client dropped for reading slowly was dropped again in its replay).
        What the session says meanwhile is held and follows the backlog."""
        self.held, self.held_bytes = [], 0
        try:
            for data in messages:
                if self.writer.is_closing():
                    return
                self.writer.write(data)
                if self.writer.transport.get_write_buffer_size() > CLIENT_BUFFER // 2:
                    await asyncio.wait_for(self.writer.drain(), REPLAY_STALL)
        except (ConnectionError, TimeoutError):
            self.abort()
        finally:
            held, self.held = self.held or [], None
            for data in held:
                self.send(data)

    def abort(self) -> None:
        self.writer.transport.abort()


class Host:
    def __init__(self, idle_stop: float, token: str | None):
        self.sessions: dict[str, HostedSession] = {}
        self.clients: set[Client] = set()
        self.idle_stop = idle_stop
        self.token = token
        self.last_busy = time.monotonic()
        self.done = asyncio.Event()
        self.unauthenticated = 0  # connections yet to send their `hello` with the token
        self.max_unauthenticated = _unauthenticated_cap()
        self.template: Any = None  # the warm start's template (host/warm.py), when on
        self.pages: dict[
            Any, Any
        ] = {}  # remote-control pages (webpage.py), by the client that asked for them
        self.keeper: Any = None  # host/schedules.py: the durable tasks it keeps
        self.notifier = Notifier(self)  # Web Push and the webhook when a session needs someone

    # -- connections ---------------------------------------------------------------------------------------
    async def serve_connection(self, reader, writer, needs_token: bool) -> None:
        """A Unix socket or TCP connection: one message per line."""
        client = Client(writer, authenticated=not needs_token)
        try:
            await self.serve(client, _lines(reader, client))
        finally:
            try:
                if not writer.is_closing():
                    await asyncio.wait_for(writer.drain(), 2)
                writer.close()
            except (ConnectionError, TimeoutError):
                writer.transport.abort()

    async def serve(self, client: Any, messages: Any) -> None:
        """Answer a client's messages (an async iterator of bytes) until it leaves or fails to authenticate
        (or does not within HELLO_DEADLINE seconds)."""
        deadline = None
        if not client.authenticated:
            if self.unauthenticated >= self.max_unauthenticated:
                _drop(client)
                return
            self.unauthenticated += 1
            deadline = asyncio.get_running_loop().call_later(HELLO_DEADLINE, _drop_unless_in, client)
        else:
            self.clients.add(client)  # only an authenticated client hears broadcasts (or keeps the host up)
        try:
            async for line in messages:
                if line.strip() and not await self._handle_line(client, line):
                    break
        finally:
            if deadline is not None:
                deadline.cancel()
                self.unauthenticated -= 1
            self.clients.discard(client)
            for session in self.sessions.values():
                session.detach(client)
            page = self.pages.pop(client, None)
            if page is not None:  # the page lives as long as the command that asked for it
                page.close()
            self.last_busy = time.monotonic()

    async def _handle_line(self, client: Any, line: bytes) -> bool:
        """Answer one request; False ends the connection (a failed authentication)."""
        ident = None
        try:
            ident, method, params = decode_request(line)
            if not client.authenticated:
                scope = scope_for(self.token, params.get("token")) if method == "hello" else None
                if scope is None:  # neither host.token nor an unexpired minted token (host/tokens.py)
                    client.send(error(ident, "unauthorized", "send hello with the host's token first"))
                    return False
                client.authenticated, client.scope, client.token = True, scope, params["token"]
                self.clients.add(client)
            elif getattr(client, "token", None) and scope_for(self.token, client.token) is None:
                client.send(error(ident, "unauthorized", "this client's token was revoked or has expired"))
                return False
            params, refused = held_to(getattr(client, "scope", "admin"), method, params)
            if refused:
                raise ProtocolError("forbidden", refused)
            handler = METHODS.get(method)
            if handler is None:
                raise ProtocolError("method_not_found", f"unknown method {method!r}")
            result = await handler(self, client, ident, params)
            client.send(encode("response", ident, result))
        except ProtocolError as exc:
            client.send(error(ident, exc.code, str(exc)))
        except (LookupError, RuntimeError, ValueError, OSError) as exc:
            client.send(error(ident, "failed", str(exc).strip("'\"")))
        except (TypeError, AttributeError) as exc:  # a parameter of the wrong shape (`args: 5`)
            client.send(error(ident, "invalid_params", f"a parameter has the wrong type ({exc})"))
        return True

    def broadcast(self, method: str, params: dict[str, Any]) -> None:
        """To every authenticated client; one bound to a session (a share link) hears of that one only."""
        for client in [c for c in self.clients if c.authenticated]:
            only = getattr(client, "only_session", None)
            if only is not None and params.get("session") != only:
                continue
            client.send(encode("notification", None, {"method": method, "params": params}))

    def _session(self, params: dict[str, Any]) -> HostedSession:
        query = str(params.get("session") or "")
        if query in self.sessions:
            return self.sessions[query]
        record = records.find(query)
        if record is not None and record["id"] in self.sessions:
            return self.sessions[record["id"]]
        raise KeyError(f"no running session {query!r} (yoke agents --all lists them)")

    # -- lifetime ------------------------------------------------------------------------------------------
    async def watch_idle(self) -> None:
        while not self.done.is_set():
            await asyncio.sleep(0.5)
            keeping = self.keeper is not None and self.keeper.keeping  # durable tasks to fire
            busy = self.clients or keeping or any(s.live for s in self.sessions.values())
            if self.template is not None:
                busy = busy or self.template.busy()
                await self.template.keep()
            if busy:
                self.last_busy = time.monotonic()
            elif time.monotonic() - self.last_busy > self.idle_stop:
                self.done.set()

    async def shutdown(self) -> None:
        await asyncio.gather(*(s.stop(force=False) for s in self.sessions.values()), return_exceptions=True)
        if self.template is not None:
            await self.template.stop()


def _unauthenticated_cap() -> int:
    """How many connections may wait to authenticate at once: a quarter of the descriptors the host may
    open (raised to its hard limit first), at most 256, so the rest stay for sessions and clients."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 65536
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return 256
    return max(8, min(256, soft // 4))


def _drop(client: Any) -> None:
    abort = getattr(client, "abort", None) or client.close
    abort()


def _drop_unless_in(client: Any) -> None:
    if not client.authenticated:
        client.send(
            error(None, "unauthorized", f"no hello with the host's token within {HELLO_DEADLINE:g} s")
        )
        _drop(client)


async def _lines(reader: asyncio.StreamReader, client: Client) -> Any:
    """The connection's lines. A line over the limit gets one `message_too_large` and is skipped to its end,
    exactly: the next line is the next request, whether or not the long one's end had arrived yet."""
    skipping = False
    while True:
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.LimitOverrunError as exc:  # nothing consumed: drop what was read of the long line
            if not skipping:
                client.send(error(None, "message_too_large", f"a message is at most {MAX_MESSAGE} bytes"))
            skipping = True
            try:
                await reader.readexactly(exc.consumed)
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            continue
        except asyncio.IncompleteReadError as exc:  # the end of the connection: its last, unended line
            if exc.partial and not skipping:
                yield exc.partial
            return
        except ConnectionError:
            return
        if skipping:  # the end of the long line
            skipping = False
            continue
        yield line


# -- methods: each (host, client, request id, params) -> the response's payload -------------------------------
def load_token(create: bool) -> str | None:
    path = token_path()
    try:
        return read_private(path).strip() or None
    except OSError:
        if not create:
            return None
    token = secrets.token_urlsafe(32)
    write_private(path, token.encode())
    return token


async def run_host(
    idle_stop: float, tcp: tuple[str, int] | None = None, ws: tuple[str, int] | None = None
) -> int:
    """Serve until idle; 0, or 1 when another host already holds this runtime directory."""
    lock = open_private(runtime_dir() / "host.lock", "a")  # held for the host's life
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"yoke host: a host is already running for {runtime_dir()}", file=sys.stderr)
        return 1
    path = socket_path()
    path.unlink(missing_ok=True)
    token = os.environ.get("YOKE_HOST_TOKEN") or (load_token(create=True) if tcp or ws else None)
    host = Host(idle_stop, token)
    old = os.umask(0o177)  # the socket is born 0600: no window where another user may connect
    try:
        unix = await asyncio.start_unix_server(
            lambda r, w: host.serve_connection(r, w, needs_token=False), path=str(path), limit=MAX_MESSAGE + 1
        )
    finally:
        os.umask(old)
    servers = [unix]
    if tcp is not None:
        tcp_server = await asyncio.start_server(
            lambda r, w: host.serve_connection(r, w, needs_token=True), tcp[0], tcp[1], limit=MAX_MESSAGE + 1
        )
        port = tcp_server.sockets[0].getsockname()[1]
        write_private(runtime_dir() / "host.port", str(port).encode())
        servers.append(tcp_server)
    if ws is not None:
        from yoke.host.websocket import serve_websocket

        servers.append(await serve_websocket(host, ws))
    from yoke.host.schedules import Keeper

    host.keeper = Keeper(host)
    from yoke.host.warm import start_template

    host.template = await start_template()
    watcher = asyncio.get_running_loop().create_task(host.watch_idle())
    keeper = asyncio.get_running_loop().create_task(host.keeper.run())
    try:
        await host.done.wait()
    finally:
        watcher.cancel()
        keeper.cancel()
        for server in servers:
            server.close()
        await host.shutdown()
        path.unlink(missing_ok=True)
    return 0
