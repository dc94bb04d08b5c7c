"""What the HTTP providers share: the drive of one model call (the retries are `retry.py`'s).

`run_call` turns a `WireCall` (URL, headers, body, and the wire format's assembler and error mapper) into
provider events:

1. POST with retries: 408, 409, 429, 5xx/529 and connection failures are retried with exponential backoff and
   jitter (or the server's `retry-after`/`retry-after-ms`), each wait announced by a `RetryNotice`.
2. Stream the answer, feeding each server-sent event to the assembler and passing its events on at once.
3. If the stream breaks off (connection cut, nothing received for `idle_timeout`, or a retryable error event),
   emit a `RetryNotice(discard_partial=True)` and ask once more without streaming; the assembler synthesizes
   the full event sequence from that JSON answer.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import Any, Protocol

from yoke import __version__
from yoke.providers.base import ProviderError, ProviderEvent, RetryNotice
from yoke.providers.retry import RetryPolicy, send_with_retries
from yoke.providers.sse import SSEEvent, is_keepalive
from yoke.providers.transport import (
    HttpRequest,
    HttpResponse,
    StreamInterrupted,
    Transport,
)
from yoke.records import Record

USER_AGENT = f"yoke/{__version__}"


def missing_key_error(variables: str, status: int | None = None) -> ProviderError:
    """A 401 when no key was sent at all: the key is missing, not wrong."""
    return ProviderError("authentication", f"Not logged in · no API key is set: set {variables}", status)


def one_line(text: str, limit: int = 300) -> str:
    """Server text squeezed onto one line and shortened, for error messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def prompt_too_long_message(server_message: str) -> str:
    if server_message.lower().startswith("prompt is too long"):
        return server_message[0].upper() + server_message[1:]
    return f"Prompt is too long: {server_message}"


# ---- the wire-format side ----------------------------------------------------------------------------


class MidStreamError(Exception):
    """The server reported an error inside a stream. Retryable ones restart the call without streaming."""

    def __init__(self, error: ProviderError, retryable: bool):
        super().__init__(str(error))
        self.error = error
        self.retryable = retryable


class Assembler(Protocol):
    """Turns one wire format's answer into provider events. One instance per answer."""

    done: bool  # the final event has been seen; no more should be read

    def feed(self, event: SSEEvent) -> list[ProviderEvent]:
        """Take one streamed event; may raise `MidStreamError`."""
        ...

    def end_of_stream(self) -> list[ProviderEvent]:
        """The stream ended before `done`: close the answer if it is complete, else raise StreamInterrupted."""
        ...

    def from_body(self, body: Any) -> list[ProviderEvent]:
        """The whole event sequence for a non-streaming JSON answer."""
        ...


class WireCall(Record):
    __slots__ = (
        "url",
        "headers",
        "body_for",
        "new_assembler",
        "error_for",
        "connection_hint",
        "should_retry",
        "unstreamed_url",
        "encoder",
    )

    url: str
    headers: dict[str, str]
    body_for: Callable[[bool], dict[str, Any]]  # stream flag -> request body
    new_assembler: Callable[[], Assembler]
    error_for: Callable[[HttpResponse], ProviderError]  # a failed response -> one clear error
    connection_hint: str  # appended to "cannot reach <url>", e.g. "check ANTHROPIC_BASE_URL"
    should_retry: Callable[[HttpResponse], bool] | None  # default: `is_retryable`
    unstreamed_url: str | None  # where the non-streaming request goes when it differs (Gemini)
    encoder: Any  # a BodyEncoder: history messages encoded once across the session's requests

    def __init__(
        self,
        url: str,
        headers: dict[str, str],
        body_for: Callable[[bool], dict[str, Any]],
        new_assembler: Callable[[], Assembler],
        error_for: Callable[[HttpResponse], ProviderError],
        connection_hint: str = "",
        should_retry: Callable[[HttpResponse], bool] | None = None,
        unstreamed_url: str | None = None,
        encoder: Any = None,
    ) -> None:
        self.url = url
        self.headers = headers
        self.body_for = body_for
        self.new_assembler = new_assembler
        self.error_for = error_for
        self.connection_hint = connection_hint
        self.should_retry = should_retry
        self.unstreamed_url = unstreamed_url
        self.encoder = encoder


class _Restart(Exception):
    """The streaming attempt broke off; ask again without streaming."""


async def run_call(
    transport: Transport, policy: RetryPolicy, call: WireCall, stream: bool
) -> AsyncGenerator[ProviderEvent, None]:
    # Each inner generator is closed here, not left to the garbage collector: asyncio finalizes an
    # abandoned one with a task of its own, a cost every turn paid (the consumer stops at MessageStop).
    started = time.monotonic()  # retries, streamed and not, count against one deadline
    if stream:
        try:
            async with aclosing(_streamed(transport, policy, call, started)) as events:
                async for event in events:
                    yield event
            return
        except _Restart as restart:
            yield RetryNotice(
                attempt=1, max_retries=1, delay_s=0.0, status=None, error=str(restart), discard_partial=True
            )
    async with aclosing(_unstreamed(transport, policy, call, started)) as events:
        async for event in events:
            yield event


async def _streamed(
    transport: Transport, policy: RetryPolicy, call: WireCall, started: float | None = None
) -> AsyncGenerator[ProviderEvent, None]:
    body = call.body_for(True)
    encoded = call.encoder.encode(body) if call.encoder is not None else None
    request = HttpRequest(
        call.url, call.headers, body, stream=True, encoded=encoded, idle_timeout=policy.idle_timeout
    )
    response: HttpResponse | None = None
    async for item in send_with_retries(transport, policy, request, call, started):
        if isinstance(item, HttpResponse):
            response = item
        else:
            yield item
    assert response is not None
    assembler = call.new_assembler()
    if response.events is None:  # the server answered with plain JSON although asked to stream
        for event in assembler.from_body(_json_body(response)):
            yield event
        return
    # A transport that watches idleness itself (per network read) saves a timer per event
    guarded = (
        response.events if response.idle_guarded else _idle_guarded(response.events, policy.idle_timeout)
    )
    try:
        async for sse in guarded:
            events = assembler.feed(sse)
            if assembler.done:
                # before the final events go out: the consumer stops at MessageStop and closes this stream
                await _drain(guarded)
            for event in events:
                yield event
            if assembler.done:
                return
        for event in assembler.end_of_stream():
            yield event
    except StreamInterrupted as exc:
        raise _Restart(f"stream interrupted ({exc}); retrying without streaming") from exc
    except TimeoutError as exc:
        raise _Restart(
            f"no data from the API for {policy.idle_timeout:g} s; retrying without streaming"
        ) from exc
    except MidStreamError as exc:
        if not exc.retryable:
            raise exc.error from None
        raise _Restart(f"{str(exc.error).rstrip('.')}; retrying without streaming") from exc
    finally:
        await guarded.aclose()
        await response.aclose()


async def _drain(events: AsyncGenerator[SSEEvent, None], limit_s: float = 0.25) -> None:
    """Read what little follows the final event (the body's terminator) so the connection goes back to the
    pool instead of being closed: a new TCP connection per turn is a measurable share of a short turn."""
    import asyncio

    try:
        async with asyncio.timeout(limit_s):
            async for _ in events:
                pass
    except (TimeoutError, StreamInterrupted, MidStreamError):
        pass


async def _unstreamed(
    transport: Transport, policy: RetryPolicy, call: WireCall, started: float | None = None
) -> AsyncGenerator[ProviderEvent, None]:
    request = HttpRequest(call.unstreamed_url or call.url, call.headers, call.body_for(False), stream=False)
    async for item in send_with_retries(transport, policy, request, call, started):
        if isinstance(item, HttpResponse):
            for event in call.new_assembler().from_body(_json_body(item)):
                yield event
        else:
            yield item


def _json_body(response: HttpResponse) -> Any:
    body = response.json()
    if not isinstance(body, dict):
        snippet = response.text().strip().replace("\n", " ")[:120]
        raise ProviderError("server", f"the API sent an unreadable answer (not a JSON object): {snippet!r}")
    return body


async def _idle_guarded(
    events: AsyncGenerator[SSEEvent, None], seconds: float
) -> AsyncGenerator[SSEEvent, None]:
    """Pass events through; raise TimeoutError when no progress came for `seconds` (a ping is not
    progress). Closing this closes `events` too, so wrappers below (a recorder's tee) finish promptly."""
    import asyncio

    iterator = aiter(events)
    deadline = time.monotonic() + seconds
    try:
        while True:
            try:
                async with asyncio.timeout(deadline - time.monotonic()):
                    event = await anext(iterator)
            except StopAsyncIteration:
                return
            yield event
            if not is_keepalive(event):
                deadline = time.monotonic() + seconds
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()
