"""The one HTTP exchange a provider makes, behind a seam a recorder or replayer can wrap.

A `Transport` sends one `HttpRequest` (a JSON POST) and returns one `HttpResponse`: the status, the headers,
and either the whole body (errors and non-streaming answers) or the server-sent events of a streaming answer.
Everything above this seam (retries, SSE-to-event assembly, error messages) works on these plain values, so a
transport that records each exchange to a cassette, or plays one back, needs to implement only `send`.

Failures below HTTP are reported as two exceptions: `ConnectionFailure` when no response arrived at all (the
retry layer retries it) and `StreamInterrupted` when a streaming body broke off midway.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from yoke.jsonsafe import loads as safe_json
from yoke.providers.base import ProviderError
from yoke.providers.sse import SSEEvent, SSEParser
from yoke.records import Record

if TYPE_CHECKING:
    import httpx


class ConnectionFailure(Exception):
    """No HTTP response arrived (refused, DNS failure, TLS error, timeout). The text is a short reason."""


class StreamInterrupted(Exception):
    """A streaming response broke off before it was complete."""


class HttpRequest(Record):
    __slots__ = ("url", "headers", "body", "stream", "method", "encoded", "idle_timeout")

    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    stream: bool  # ask for server-sent events rather than one JSON body
    method: str
    encoded: bytes | None  # `body` already as JSON (see providers/encode.py); None: encode `body`
    idle_timeout: float | None  # a stream idle this long is given up (TimeoutError); None: not asked

    def __init__(
        self,
        url: str,
        headers: dict[str, str],
        body: dict[str, Any],
        stream: bool,
        method: str = "POST",
        encoded: bytes | None = None,
        idle_timeout: float | None = None,
    ) -> None:
        self.url = url
        self.headers = headers
        self.body = body
        self.stream = stream
        self.method = method
        self.encoded = encoded
        self.idle_timeout = idle_timeout


def header_wait(request: HttpRequest) -> float | None:
    """How long a streamed request waits for the response's headers: its idle limit (a streaming server
    sends them before the first token). None: the transport's read timeout (an unstreamed answer comes
    whole, after the model has written it)."""
    return request.idle_timeout if request.stream else None


class HttpResponse(Record):
    """One response. Headers are keyed in lower case.

    For a successful streaming answer `events` iterates its SSE events (and `body` is b""); otherwise `body`
    holds the whole response and `events` is None. Call `aclose` when done reading `events` early.
    """

    __slots__ = ("status", "headers", "body", "events", "closer", "idle_guarded")

    status: int
    headers: Mapping[str, str]
    body: bytes
    events: AsyncGenerator[SSEEvent, None] | None
    closer: Callable[[], Any] | None  # releases the connection
    idle_guarded: bool  # `events` itself raises TimeoutError after the request's idle_timeout

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def json(self) -> Any:
        """The body as JSON, or None when it is not JSON (a proxy's HTML error page, for instance)."""

        try:
            return safe_json(self.body.decode("utf-8", "replace"))
        except ValueError:
            return None

    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    async def aclose(self) -> None:
        if self.closer is not None:
            closer, self.closer = self.closer, None
            await closer()

    def __init__(
        self,
        status: int,
        headers: Mapping[str, str],
        body: bytes = b"",
        events: AsyncGenerator[SSEEvent, None] | None = None,
        closer: Callable[[], Any] | None = None,
        idle_guarded: bool = False,
    ) -> None:
        self.status = status
        self.headers = headers
        self.body = body
        self.events = events
        self.closer = closer
        self.idle_guarded = idle_guarded


class Transport(Protocol):
    async def send(self, request: HttpRequest) -> HttpResponse: ...

    async def aclose(self) -> None: ...


ClientFactory = Callable[[], "httpx.AsyncClient"]


class AutoTransport:
    """The default: the lean `Http1Transport`, or `HttpxTransport` when a `*_PROXY` variable applies to the
    endpoint (or `YOKE_HTTP_CLIENT=httpx` asks for it). Chosen at the first request."""

    def __init__(self, *, connect_timeout: float = 30.0, read_timeout: float = 600.0) -> None:
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._inner: Transport | None = None

    async def send(self, request: HttpRequest) -> HttpResponse:
        if self._inner is None:
            import os

            from yoke.providers.http1 import Http1Transport, proxy_applies

            use_httpx = os.environ.get("YOKE_HTTP_CLIENT") == "httpx" or proxy_applies(request.url)
            transport = HttpxTransport if use_httpx else Http1Transport
            self._inner = transport(connect_timeout=self._connect_timeout, read_timeout=self._read_timeout)
        return await self._inner.send(request)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()


class HttpxTransport:
    """The real network, over one lazily created `httpx.AsyncClient` (which honours HTTP(S)_PROXY)."""

    def __init__(
        self,
        *,
        connect_timeout: float = 30.0,
        read_timeout: float = 600.0,
        client_factory: ClientFactory | None = None,
    ) -> None:
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._client_factory = client_factory
        self._client: httpx.AsyncClient | None = None

    def _get_client(self, url: str) -> httpx.AsyncClient:
        if self._client is None:
            if self._client_factory is not None:
                self._client = self._client_factory()
            else:
                import httpx

                timeout = httpx.Timeout(self._read_timeout, connect=self._connect_timeout)
                # Building a TLS context (loading the CA bundle) costs tens of milliseconds; a plain-HTTP
                # endpoint (a local model server) never needs one. A provider talks to one base URL.
                verify = not url.startswith("http://")
                self._client = httpx.AsyncClient(timeout=timeout, verify=verify)
        return self._client

    async def send(self, request: HttpRequest) -> HttpResponse:
        import asyncio

        import httpx

        client = self._get_client(request.url)
        headers = dict(request.headers)
        headers.setdefault("accept", "text/event-stream" if request.stream else "application/json")
        try:
            if request.method == "GET":  # a GET carries no body
                built = client.build_request(request.method, request.url, headers=headers)
            elif request.encoded is not None:
                headers.setdefault("content-type", "application/json")
                built = client.build_request(
                    request.method, request.url, headers=headers, content=request.encoded
                )
            else:
                import json

                from yoke.jsonsafe import utf8

                headers.setdefault("content-type", "application/json")
                content = utf8(json.dumps(request.body, ensure_ascii=False))
                built = client.build_request(request.method, request.url, headers=headers, content=content)
            async with asyncio.timeout(header_wait(request)):
                response = await client.send(built, stream=True)
        except TimeoutError:
            raise ConnectionFailure(f"no response headers within {header_wait(request):g} s") from None
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            # A malformed base URL will not get better by retrying.
            raise ProviderError("config", f"invalid API URL {request.url!r}: {exc}") from None
        except httpx.HTTPError as exc:
            raise ConnectionFailure(describe_http_error(exc)) from exc
        except OSError as exc:
            raise ConnectionFailure(str(exc) or type(exc).__name__) from exc
        resp_headers = {k.lower(): v for k, v in response.headers.items()}
        content_type = resp_headers.get("content-type", "")
        if request.stream and response.is_success and "application/json" not in content_type:
            events = _sse_events(response)

            async def close_stream() -> None:
                await events.aclose()
                await response.aclose()

            return HttpResponse(response.status_code, resp_headers, events=events, closer=close_stream)
        try:
            # the whole answer within the read timeout: a body trickled a byte at a time is not progress
            async with asyncio.timeout(self._read_timeout):
                body = await response.aread()
        except TimeoutError:
            raise ConnectionFailure(f"ReadTimeout: no whole answer within {self._read_timeout:g} s") from None
        except httpx.HTTPError as exc:
            raise ConnectionFailure(describe_http_error(exc)) from exc
        finally:
            await response.aclose()
        return HttpResponse(response.status_code, resp_headers, body=body)

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()


async def _sse_events(response: httpx.Response) -> AsyncGenerator[SSEEvent, None]:
    import httpx

    parser = SSEParser()
    try:
        async for chunk in response.aiter_text():
            for event in parser.feed(chunk):
                yield event
        for event in parser.close():
            yield event
    except httpx.HTTPError as exc:
        raise StreamInterrupted(describe_http_error(exc)) from exc
    finally:
        await response.aclose()


def describe_http_error(exc: Exception) -> str:
    """A short reason for a low-level HTTP failure, e.g. 'ConnectError: connection refused'."""
    text = str(exc).strip()
    if not text and exc.__cause__ is not None:
        text = str(exc.__cause__).strip()
    name = type(exc).__name__
    return f"{name}: {text}" if text else name
