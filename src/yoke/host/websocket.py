"""The host's optional WebSocket listener (`yoke host --ws HOST:PORT`): one bridge message per text frame,
the same token rule as TCP. The `websockets` package is imported only when asked for."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from yoke.host.guard import HANDSHAKE_TIMEOUT, host_allowed, host_names, wildcard
from yoke.host.owned import write_private
from yoke.host.paths import runtime_dir
from yoke.host.protocol import MAX_MESSAGE


class WebSocketClient:
    """Messages queue here and one task sends them; a client with too much queued is dropped."""

    def __init__(self, ws: Any, limit: int):
        self.ws = ws
        self.limit = limit
        self.authenticated = False
        self.only_session: str | None = None  # a share link's session: broadcasts about others skip it
        self.co_drives: set[str] = set()  # sessions it may prompt though another client drives (server.py)
        self.queue: deque[bytes] = deque()
        self.held: list[bytes] | None = None  # live messages waiting for a replay to finish
        self.queued = 0
        self.ready = asyncio.Event()
        self.closed = False
        self.sender = asyncio.get_running_loop().create_task(self._send_all())

    def send(self, data: bytes) -> bool:
        if self.closed:
            return False
        if self.held is not None:  # a replay is under way: live messages follow it, in order
            self.held.append(data)
            if sum(map(len, self.held)) <= self.limit:
                return True
            self.close()
            return False
        if self.queued > self.limit:
            self.close()
            return False
        self.queue.append(data)
        self.queued += len(data)
        self.ready.set()
        return True

    async def replay(self, messages: list[bytes]) -> None:
        """A reconnecting client's backlog, queued at the pace the sender sends it (see server.Client)."""
        self.held = []
        try:
            for data in messages:
                while self.queued > self.limit // 2 and not self.closed:
                    await asyncio.sleep(0.02)
                if self.closed:
                    return
                self.queue.append(data)
                self.queued += len(data)
                self.ready.set()
            while self.queued > self.limit // 2 and not self.closed:  # one message may exceed the limit
                await asyncio.sleep(0.02)
        finally:
            held, self.held = self.held, None
            for data in held:
                self.send(data)

    def close(self) -> None:
        self.closed = True
        self.ready.set()
        asyncio.get_running_loop().create_task(self.ws.close(1008, "too slow"))

    async def _send_all(self) -> None:
        from websockets.exceptions import ConnectionClosed

        while not self.closed:
            await self.ready.wait()
            self.ready.clear()
            while self.queue and not self.closed:
                data = self.queue.popleft()
                self.queued -= len(data)
                try:
                    await self.ws.send(data.decode().rstrip("\n"))
                except (ConnectionClosed, ConnectionError):  # websockets' or aiohttp's (the page)
                    self.closed = True

    async def flush(self) -> None:
        """Send what is queued (an error before closing), for at most two seconds."""
        try:
            async with asyncio.timeout(2):
                while self.queue and not self.closed:
                    await asyncio.sleep(0.01)
        except TimeoutError:
            pass


async def serve_websocket(host: Any, address: tuple[str, int]) -> Any:
    from websockets.asyncio.server import serve
    from websockets.exceptions import ConnectionClosed

    from yoke.host.server import CLIENT_BUFFER

    async def handler(ws: Any) -> None:
        client = WebSocketClient(ws, CLIENT_BUFFER)

        async def messages() -> Any:
            try:
                async for message in ws:
                    yield message.encode() if isinstance(message, str) else message
            except ConnectionClosed:  # a frame over 10 MB closes with 1009, as the WebSocket protocol says
                return

        try:
            await host.serve(client, messages())
            await client.flush()
        finally:
            client.closed = True
            client.ready.set()

    def check(connection: Any, request: Any) -> Any:
        """A browser's page (any Origin: a browser always sends one) or a Host not naming this listener (DNS
        rebinding) is refused before the handshake, so before a word of the host's."""
        if request.headers.get("Origin") is not None:
            return connection.respond(403, "Forbidden origin: this listener is for programs, not pages\n")
        if not host_allowed(request.headers.get("Host"), names, port, wildcard(address[0])):
            return connection.respond(421, "Misdirected request: the Host names another server\n")
        return None

    import socket

    names = host_names(address[0], [socket.gethostname()])  # no getfqdn: a DNS lookup may hang offline
    port = address[1]
    server = await serve(
        handler, address[0], address[1], max_size=MAX_MESSAGE, process_request=check,
        open_timeout=HANDSHAKE_TIMEOUT,
    )  # fmt: skip
    port = next(iter(server.sockets)).getsockname()[1]
    write_private(runtime_dir() / "host.ws-port", str(port).encode())
    return server
