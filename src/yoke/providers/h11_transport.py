"""A lean HTTP/1.1 transport for the provider seam: asyncio streams, `h11` for the protocol, the standard
library's `ssl`, one keep-alive connection per origin. It does what a model API call needs and nothing
else, so a one-turn run does not pay for importing and setting up a general-purpose client. Proxies (the
`*_PROXY` variables) are left to `HttpxTransport`, which `default_transport` picks when one applies."""

from __future__ import annotations

import asyncio
import codecs
import json
import os
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlsplit

import h11

from yoke.providers.base import ProviderError
from yoke.providers.sse import SSEEvent, SSEParser
from yoke.providers.transport import ConnectionFailure, HttpRequest, HttpResponse, StreamInterrupted

READ_SIZE = 65536
_ONE_WRITE = 65536  # a body up to this size is sent joined to its head


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer
        self.h11 = h11.Connection(our_role=h11.CLIENT)

    def close(self) -> None:
        try:
            self.writer.close()
        except Exception:
            pass

    @property
    def reusable(self) -> bool:
        return self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE


class H11Transport:
    def __init__(self, *, connect_timeout: float = 30.0, read_timeout: float = 600.0):
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._idle: dict[tuple[str, str, int], _Connection] = {}
        self._ssl: Any = None

    async def send(self, request: HttpRequest) -> HttpResponse:
        parts = urlsplit(request.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ProviderError("config", f"invalid API URL {request.url!r}: use http:// or https://")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise ProviderError("config", f"invalid API URL {request.url!r}: bad port") from None
        origin = (parts.scheme, parts.hostname, port)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if request.method == "GET":
            body = b""
        elif request.encoded is not None:
            body = request.encoded
        else:
            body = json.dumps(request.body, ensure_ascii=False).encode("utf-8")
        headers = _headers(request, parts.netloc, len(body))
        reused = self._idle.pop(origin, None)
        if reused is not None:
            try:
                return await self._exchange(reused, origin, request, target, headers, body)
            except _StaleConnection:
                pass  # the server closed a kept-alive connection meanwhile: once more on a fresh one
        conn = await self._connect(origin)
        try:
            return await self._exchange(conn, origin, request, target, headers, body)
        except _StaleConnection as exc:
            raise ConnectionFailure(f"RemoteProtocolError: {exc}") from None

    async def _connect(self, origin: tuple[str, str, int]) -> _Connection:
        scheme, host, port = origin
        ssl_context = None
        if scheme == "https":
            if self._ssl is None:
                import ssl

                self._ssl = ssl.create_default_context()
            ssl_context = self._ssl
        try:
            async with asyncio.timeout(self._connect_timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=ssl_context, limit=READ_SIZE * 4
                )
        except TimeoutError:
            raise ConnectionFailure(
                f"ConnectTimeout: no connection to {host}:{port} within {self._connect_timeout:g} s"
            ) from None
        except OSError as exc:
            raise ConnectionFailure(f"ConnectError: {exc.strerror or exc}") from None
        return _Connection(reader, writer)

    async def _exchange(
        self, conn: _Connection, origin: Any, request: HttpRequest, target: str, headers: list, body: bytes
    ) -> HttpResponse:
        try:
            pieces = [conn.h11.send(h11.Request(method=request.method, target=target, headers=headers))]
            pieces += conn.h11.send_with_data_passthrough(h11.Data(data=body))
            pieces.append(conn.h11.send(h11.EndOfMessage()))
            if len(body) <= _ONE_WRITE:
                conn.writer.write(b"".join(pieces))  # one system call, one packet
            else:
                for piece in pieces:  # a large body passed through, not copied
                    conn.writer.write(piece)
            await conn.writer.drain()
            event = await self._next(conn, fresh_response=True)
        except (OSError, h11.ProtocolError, _StaleConnection) as exc:
            conn.close()
            if isinstance(exc, _StaleConnection):
                raise
            raise ConnectionFailure(f"{type(exc).__name__}: {exc}") from None
        if not isinstance(event, h11.Response):
            conn.close()
            raise ConnectionFailure(f"unexpected HTTP event {type(event).__name__}")
        response_headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in event.headers}
        ok = 200 <= event.status_code < 300
        if request.stream and ok and "application/json" not in response_headers.get("content-type", ""):
            events = self._events(conn, origin, request.idle_timeout)

            async def close_stream() -> None:
                await events.aclose()

            guarded = request.idle_timeout is not None
            return HttpResponse(
                event.status_code, response_headers, events=events, closer=close_stream, idle_guarded=guarded
            )
        try:
            chunks = [chunk async for chunk in self._body(conn)]
        except (OSError, h11.ProtocolError, _StaleConnection) as exc:
            conn.close()
            raise ConnectionFailure(f"{type(exc).__name__}: {exc}") from None
        self._release(conn, origin)
        return HttpResponse(event.status_code, response_headers, body=b"".join(chunks))

    async def _next(self, conn: _Connection, fresh_response: bool = False, idle: float | None = None) -> Any:
        """The next h11 event."""
        while True:
            event = conn.h11.next_event()
            if event is not h11.NEED_DATA:
                return event
            await self._receive(conn, idle, fresh_response)

    async def _receive(self, conn: _Connection, idle: float | None, fresh_response: bool = False) -> None:
        """Hand h11 what arrives next. `idle`: a streamed body's idle limit, raised as TimeoutError (the
        caller's cue to retry without streaming), where the read timeout is a broken connection (OSError)."""
        idle_first = idle is not None and idle <= self._read_timeout
        limit = idle if idle_first else self._read_timeout
        try:
            # asyncio.timeout, not wait_for: on 3.11 wait_for swallows a cancellation (an interrupt) that
            # lands as the read completes, and the stream would run on
            async with asyncio.timeout(limit):
                data = await conn.reader.read(READ_SIZE)
        except TimeoutError:
            if idle_first:
                raise
            raise OSError(f"ReadTimeout: nothing arrived for {self._read_timeout:g} s") from None
        if not data and fresh_response and conn.h11.their_state is h11.SEND_RESPONSE:
            raise _StaleConnection("the server closed the connection without answering")
        conn.h11.receive_data(data)

    async def _body(self, conn: _Connection) -> AsyncIterator[bytes]:
        while True:
            event = await self._next(conn)
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                return

    async def _events(self, conn: _Connection, origin: Any, idle: float | None) -> AsyncIterator[SSEEvent]:
        # h11's events are pulled here, not through `_body`: a stream is a dozen small chunks a turn, and each
        # layer of generator between the socket and the parser costs every one of them
        parser = SSEParser()
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        protocol = conn.h11
        finished = False
        try:
            while True:
                event = protocol.next_event()
                if event is h11.NEED_DATA:
                    await self._receive(conn, idle)
                elif type(event) is h11.Data:
                    for sse in parser.feed(decoder.decode(event.data)):
                        yield sse
                elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                    break
            for sse in parser.feed(decoder.decode(b"", final=True)) + parser.close():
                yield sse
            finished = True
        except TimeoutError:
            raise  # the idle limit (an OSError too, but not a broken connection)
        except (OSError, h11.ProtocolError, _StaleConnection) as exc:
            raise StreamInterrupted(f"{type(exc).__name__}: {exc}") from None
        finally:
            if finished:
                self._release(conn, origin)
            else:
                conn.close()  # read to the end or not at all: a half-read response cannot be reused

    def _release(self, conn: _Connection, origin: Any) -> None:
        if conn.reusable and origin not in self._idle:
            conn.h11.start_next_cycle()
            self._idle[origin] = conn
        else:
            conn.close()

    async def aclose(self) -> None:
        for conn in self._idle.values():
            conn.close()
        self._idle.clear()


class _StaleConnection(Exception):
    pass


def _headers(request: HttpRequest, host: str, length: int) -> list[tuple[str, str]]:
    headers = {k.lower(): v for k, v in request.headers.items()}
    headers.setdefault("accept", "text/event-stream" if request.stream else "application/json")
    headers.setdefault("content-type", "application/json")
    headers["host"] = host
    headers["content-length"] = str(length)
    return list(headers.items())


def proxy_applies(url: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether a `*_PROXY` variable would route `url` through a proxy (then httpx handles it)."""
    env = os.environ if env is None else env
    parts = urlsplit(url)
    names = ("https_proxy", "all_proxy") if parts.scheme == "https" else ("http_proxy", "all_proxy")
    if not any(env.get(n) or env.get(n.upper()) for n in names):
        return False
    no_proxy = env.get("no_proxy") or env.get("NO_PROXY") or ""
    host = (parts.hostname or "").lower()
    for entry in (e.strip().lower() for e in no_proxy.split(",") if e.strip()):
        if entry == "*" or host == entry.lstrip(".") or host.endswith("." + entry.lstrip(".")):
            return False
    return True
