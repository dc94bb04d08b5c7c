"""A lean HTTP/1.1 transport for the provider seam: asyncio streams, `httptools` (llhttp, the parser Node.js
uses) to read responses, the standard library's `ssl`, one keep-alive connection per origin. It does what a
model API call needs and nothing else, so a one-turn run does not pay for importing and setting up a
general-purpose client. Proxies (the `*_PROXY` variables) are left to `HttpxTransport`, which
`AutoTransport` picks when one applies.

Why llhttp and not h11: a streamed answer is a dozen small chunks a turn, and h11's pure-Python state
machine spent about 0.2 ms a turn on them (a tenth of a turn's CPU), and 7% of a one-turn run importing
itself. llhttp reads the same response in a few microseconds. Writing a request needs no parser: a request
line, validated headers and the body."""

from __future__ import annotations

import asyncio
import codecs
import json
import os
import re
import time
from collections.abc import AsyncGenerator, Mapping
from typing import Any
from urllib.parse import urlsplit

import httptools

from yoke.jsonsafe import utf8
from yoke.providers.base import ProviderError
from yoke.providers.sse import SSEEvent, SSEParser, is_keepalive
from yoke.providers.transport import (
    ConnectionFailure,
    HttpRequest,
    HttpResponse,
    StreamInterrupted,
    header_wait,
)

READ_SIZE = 65536
_ONE_WRITE = 65536  # a body up to this size is sent joined to its head
_PARSE_ERRORS = (httptools.HttpParserError, httptools.HttpParserUpgrade)
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # a method or header name (RFC 9110 token)
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # in a header value: a CR or LF would start a header
_TARGET = re.compile(r"[^\x00-\x20\x7f]+")


class _Response:
    """One response as the parser reads it: httptools calls these methods as it goes."""

    __slots__ = (
        "parser",
        "started",
        "status",
        "headers",
        "body",
        "head_done",
        "complete",
        "keep_alive",
        "framed",
        "extra",
    )

    def __init__(self) -> None:
        self.parser = httptools.HttpResponseParser(self)
        self.started = False  # a byte of it has arrived
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []  # read and not yet taken
        self.head_done = False
        self.complete = False
        self.keep_alive = False
        self.framed = True  # its length is known (Content-Length, chunked): else it ends with the connection
        self.extra = False  # bytes followed the response: the connection cannot be trusted for another

    def feed(self, data: bytes) -> None:
        self.started = True
        try:
            self.parser.feed_data(data)
        except _PARSE_ERRORS:
            if not self.complete:
                raise
            self.extra = True  # junk after a whole response spoils the connection, not the response

    def on_message_begin(self) -> None:
        if self.complete:
            self.extra = True

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        status = self.parser.get_status_code()
        if 100 <= status < 200:  # informational (100 Continue): the real response follows
            self.headers = []
            return
        self.status = status
        self.head_done = True
        self.keep_alive = self.parser.should_keep_alive()  # only valid now: it resets with the message
        names = {name.lower() for name, _ in self.headers}
        self.framed = b"content-length" in names or b"transfer-encoding" in names or status in (204, 304)

    def on_body(self, data: bytes) -> None:
        self.body.append(data)

    def on_message_complete(self) -> None:
        if self.head_done:
            self.complete = True

    def take_body(self) -> bytes:
        body = self.body
        data = body[0] if len(body) == 1 else b"".join(body)
        body.clear()
        return data

    @property
    def reusable(self) -> bool:
        return self.complete and self.keep_alive and not self.extra


class _Connection:
    __slots__ = ("reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer

    def close(self) -> None:
        try:
            self.writer.close()
        except Exception:
            pass


class Http1Transport:
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
            body = utf8(json.dumps(request.body, ensure_ascii=False))
        head = request_head(request.method, target, _headers(request, parts.netloc, len(body)))
        reused = self._idle.pop(origin, None)
        if reused is not None:
            try:
                return await self._exchange(reused, origin, request, head, body, reused=True)
            except _StaleConnection:
                pass  # the server closed a kept-alive connection meanwhile: once more on a fresh one
        conn = await self._connect(origin)
        try:
            return await self._exchange(conn, origin, request, head, body)
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
        self,
        conn: _Connection,
        origin: Any,
        request: HttpRequest,
        head: bytes,
        body: bytes,
        reused: bool = False,
    ) -> HttpResponse:
        response = _Response()
        try:
            if len(body) <= _ONE_WRITE:
                conn.writer.write(head + body)  # one system call, one packet
            else:
                conn.writer.write(head)
                conn.writer.write(body)  # a large body passed through, not copied
            await conn.writer.drain()
            await self._read_head(conn, response, header_wait(request))
        except (OSError, *_PARSE_ERRORS, _StaleConnection) as exc:
            conn.close()
            if isinstance(exc, _StaleConnection):
                raise
            if reused and isinstance(exc, ConnectionError) and not response.started:
                raise _StaleConnection(str(exc)) from None  # a reset rather than a close: stale all the same
            raise ConnectionFailure(f"{type(exc).__name__}: {exc}") from None
        except asyncio.CancelledError:
            conn.close()  # interrupted mid-exchange: the socket goes now, not when collected
            raise
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in response.headers}
        ok = 200 <= response.status < 300
        if request.stream and ok and "application/json" not in headers.get("content-type", ""):
            events = self._events(conn, origin, response, request.idle_timeout)

            async def close_stream() -> None:
                await events.aclose()

            guarded = request.idle_timeout is not None
            return HttpResponse(
                response.status, headers, events=events, closer=close_stream, idle_guarded=guarded
            )
        try:
            # the whole answer within the read timeout: a body trickled a byte at a time is not progress
            async with asyncio.timeout(self._read_timeout):
                while not response.complete:
                    await self._read_more(conn, response, None)
        except TimeoutError:
            conn.close()
            raise ConnectionFailure(f"ReadTimeout: no whole answer within {self._read_timeout:g} s") from None
        except (OSError, *_PARSE_ERRORS) as exc:
            conn.close()
            raise ConnectionFailure(f"{type(exc).__name__}: {exc}") from None
        except asyncio.CancelledError:
            conn.close()
            raise
        self._release(conn, origin, response)
        return HttpResponse(response.status, headers, body=response.take_body())

    async def _read_head(self, conn: _Connection, response: _Response, limit: float | None) -> None:
        """The response's status and headers, within `limit` seconds when given (a streamed answer's
        headers come at once; a server that accepts and never answers must not hold the run)."""
        try:
            async with asyncio.timeout(limit):
                while not response.head_done:
                    data = await self._receive(conn, None)
                    if not data:
                        if not response.started:
                            raise _StaleConnection("the server closed the connection without answering")
                        raise ConnectionResetError(
                            "the server closed the connection inside the response head"
                        )
                    response.feed(data)
        except TimeoutError:
            raise TimeoutError(f"no response headers within {limit:g} s") from None

    async def _read_more(self, conn: _Connection, response: _Response, idle: float | None) -> None:
        """Feed the parser what arrives next. The connection's end completes a body that runs to the close
        and breaks off any other."""
        data = await self._receive(conn, idle)
        if data:
            response.feed(data)
        elif response.framed:
            raise ConnectionResetError("the server closed the connection before the response ended")
        else:
            response.complete = True

    async def _receive(self, conn: _Connection, idle: float | None) -> bytes:
        """What arrives next. `idle`: a streamed body's idle limit, raised as TimeoutError (the caller's cue to
        retry without streaming), where the read timeout is a broken connection (OSError)."""
        idle_first = idle is not None and idle <= self._read_timeout
        limit = idle if idle_first else self._read_timeout
        try:
            # asyncio.timeout, not wait_for: on 3.11 wait_for swallows a cancellation (an interrupt) that
            # lands as the read completes, and the stream would run on
            async with asyncio.timeout(limit):
                return await conn.reader.read(READ_SIZE)
        except TimeoutError:
            if idle_first:
                raise
            raise OSError(f"ReadTimeout: nothing arrived for {self._read_timeout:g} s") from None

    async def _events(
        self, conn: _Connection, origin: Any, response: _Response, idle: float | None
    ) -> AsyncGenerator[SSEEvent, None]:
        # Everything one read brought is parsed at once: a stream is a dozen small chunks a turn, and each
        # pass between the socket and the parser costs every one of them
        parser = SSEParser()
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        finished = False
        # The idle limit counts progress, not bytes: a ping or a comment does not move the deadline, so a
        # server that only pings is given up like a silent one
        deadline = None if idle is None else time.monotonic() + idle
        try:
            while True:
                if response.body:
                    progress = False
                    for sse in parser.feed(decoder.decode(response.take_body())):
                        progress = progress or not is_keepalive(sse)
                        yield sse
                    if progress and idle is not None:
                        deadline = time.monotonic() + idle
                if response.complete:
                    break
                await self._read_more(
                    conn, response, None if deadline is None else deadline - time.monotonic()
                )
            for sse in parser.feed(decoder.decode(b"", final=True)) + parser.close():
                yield sse
            finished = True
        except TimeoutError:
            raise  # the idle limit (an OSError too, but not a broken connection)
        except (OSError, *_PARSE_ERRORS) as exc:
            raise StreamInterrupted(f"{type(exc).__name__}: {exc}") from None
        finally:
            if finished:
                self._release(conn, origin, response)
            else:
                conn.close()  # read to the end or not at all: a half-read response cannot be reused

    def _release(self, conn: _Connection, origin: Any, response: _Response) -> None:
        if response.reusable and origin not in self._idle:
            self._idle[origin] = conn
        else:
            conn.close()

    async def aclose(self) -> None:
        for conn in self._idle.values():
            conn.close()
        self._idle.clear()


class _StaleConnection(Exception):
    pass


def request_head(method: str, target: str, headers: list[tuple[str, str]]) -> bytes:
    """The request line and header block, refused (a config error naming the culprit) when a part would not
    be one well-formed field."""
    if not _TOKEN.fullmatch(method) or not _TARGET.fullmatch(target):
        raise ProviderError("config", f"invalid HTTP request line {method} {target!r}")
    lines = [f"{method} {target} HTTP/1.1"]
    for name, value in headers:
        if not _TOKEN.fullmatch(name):
            raise ProviderError("config", f"invalid HTTP header name {name!r}")
        value = value.strip(" \t")
        if _CONTROL.search(value):
            raise ProviderError("config", f"invalid value for HTTP header {name!r}: no control characters")
        lines.append(f"{name}: {value}")
    lines.append("\r\n")
    try:
        return "\r\n".join(lines).encode("latin-1")
    except UnicodeEncodeError:
        raise ProviderError("config", "an HTTP header value has characters outside Latin-1") from None


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
