"""What the HTTP providers share: retry policy, retry-after parsing, and the drive of one model call.

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
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import aclosing
from typing import Any, Protocol

from yoke import __version__
from yoke.providers.base import ErrorKind, ProviderError, ProviderEvent, RetryNotice
from yoke.providers.sse import SSEEvent
from yoke.providers.transport import (
    ConnectionFailure,
    HttpRequest,
    HttpResponse,
    StreamInterrupted,
    Transport,
)
from yoke.records import Record

USER_AGENT = f"yoke/{__version__}"
DEFAULT_MAX_RETRIES = 10
DEFAULT_BASE_DELAY = 0.5
DEFAULT_IDLE_TIMEOUT = 90.0
DEFAULT_RETRY_DEADLINE = 600.0  # no retry starts this long after a model call's first attempt
MAX_DELAY_FACTOR = 64  # the backoff cap is 64 base delays: 32 s with the default 0.5 s


Sleeper = Callable[[float], Awaitable[None]]


async def _asyncio_sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


REFUSED_MAX_RETRIES = 2  # a refused connection (not 429/529/5xx) is retried this often at most


def _refused(exc: BaseException) -> bool:
    """Whether the failure is a refused connection, however deep the HTTP stack wrapped it."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [exc]
    while stack:
        error = stack.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        if isinstance(error, ConnectionRefusedError) or "connection refused" in str(error).lower():
            return True
        stack += [error.__cause__, error.__context__, *getattr(error, "exceptions", ())]
    return False


class RetryPolicy(Record):
    __slots__ = (
        "max_retries",
        "base_delay",
        "idle_timeout",
        "max_retry_after",
        "jitter",
        "sleep",
        "deadline",
    )

    def __init__(
        self,
        max_retries: int = DEFAULT_MAX_RETRIES,  # retries after the first try
        base_delay: float = DEFAULT_BASE_DELAY,  # first backoff in seconds, doubling each retry
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,  # seconds a stream may go without data before it is given up
        max_retry_after: float = 600.0,  # a longer server-requested wait is not honoured (plain backoff)
        jitter: float = 0.25,  # each backoff is shortened by up to this fraction, so clients spread out
        sleep: Sleeper = _asyncio_sleep,
        deadline: float = DEFAULT_RETRY_DEADLINE,  # seconds from a call's first attempt after which none is retried
    ) -> None:
        self.deadline = deadline
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.idle_timeout = idle_timeout
        self.max_retry_after = max_retry_after
        self.jitter = jitter
        self.sleep = sleep

    @property
    def max_delay(self) -> float:
        return self.base_delay * MAX_DELAY_FACTOR

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number `retry` (1-based)."""
        if retry_after is not None and 0 <= retry_after <= self.max_retry_after:
            return retry_after
        import random

        backoff = min(self.base_delay * (2 ** (retry - 1)), self.max_delay)
        return backoff * (1 - self.jitter * random.random())

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> RetryPolicy:
        """YOKE_MAX_RETRIES (or Claude Code's CLAUDE_CODE_MAX_RETRIES), YOKE_RETRY_BASE_DELAY,
        YOKE_STREAM_IDLE_TIMEOUT (also the wait for a streamed answer's headers) and YOKE_RETRY_DEADLINE,
        all optional; a malformed value is a config error naming the variable."""
        retries = _env_number(env, "YOKE_MAX_RETRIES", int)
        if retries is None:
            retries = _env_number(env, "CLAUDE_CODE_MAX_RETRIES", int)
        base = _env_number(env, "YOKE_RETRY_BASE_DELAY", float)
        idle = _env_number(env, "YOKE_STREAM_IDLE_TIMEOUT", float)
        deadline = _env_number(env, "YOKE_RETRY_DEADLINE", float)
        return cls(
            deadline=DEFAULT_RETRY_DEADLINE if not deadline else float(deadline),
            max_retries=DEFAULT_MAX_RETRIES if retries is None else int(retries),
            base_delay=DEFAULT_BASE_DELAY if base is None else float(base),
            idle_timeout=DEFAULT_IDLE_TIMEOUT if idle is None or idle <= 0 else float(idle),
        )


def _env_number(env: Mapping[str, str], name: str, kind: type[int] | type[float]) -> float | None:
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    try:
        value = kind(raw)
    except ValueError:
        value = -1
    if value < 0:
        noun = "whole number" if kind is int else "number"
        raise ProviderError("config", f"{name} must be a non-negative {noun} (got {raw!r})")
    return value


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The server's requested wait in seconds, from `retry-after-ms` or `retry-after` (seconds or an HTTP
    date); None when absent or unreadable."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils
    import time

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def is_retryable(status: int, headers: Mapping[str, str]) -> bool:
    """Whether a failed response is worth repeating; the server's `x-should-retry` has the last word."""
    verdict = (headers.get("x-should-retry") or "").strip().lower()
    if verdict in ("true", "false"):
        return verdict == "true"
    return status in (408, 409, 429) or status >= 500


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


def exhausted_kind(status: int) -> ErrorKind:
    """The error kind for a retryable status that kept failing."""
    if status == 429:
        return "rate_limit"
    if status == 529:
        return "overloaded"
    return "server"


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
    """Pass events through; raise TimeoutError when the next one takes longer than `seconds`. Closing this
    closes `events` too, so wrappers below (a recorder's tee) finish promptly."""
    import asyncio

    iterator = aiter(events)
    try:
        while True:
            try:
                async with asyncio.timeout(seconds):
                    event = await anext(iterator)
            except StopAsyncIteration:
                return
            yield event
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()


async def send_with_retries(
    transport: Transport,
    policy: RetryPolicy,
    request: HttpRequest,
    call: WireCall,
    started: float | None = None,
) -> AsyncIterator[RetryNotice | HttpResponse]:
    """Yield a `RetryNotice` before each wait and finally the successful response; raise `ProviderError`
    for a failure that is not retryable, still failing after `policy.max_retries` retries, or when the next
    retry would start past `policy.deadline` seconds from `started` (the call's first attempt)."""
    started = time.monotonic() if started is None else started
    retry = 0
    while True:
        retry_after: float | None = None
        try:
            response = await transport.send(request)
        except ConnectionFailure as exc:
            status: int | None = None
            reason = str(exc)
            refused = _refused(exc)
            if refused:
                reason = f"connection refused ({reason})"
            hint = f" · {call.connection_hint}" if call.connection_hint else ""
            error = ProviderError("connection", f"cannot reach {request.url}: {reason}{hint}")
        else:
            refused = False
            if response.ok:
                yield response
                return
            status = response.status
            error = call.error_for(response)
            retryable = call.should_retry or (lambda r: is_retryable(r.status, r.headers))
            if not retryable(response):
                raise error
            reason = str(error)
            retry_after = parse_retry_after(response.headers)
        limit = policy.max_retries
        if refused:
            limit = min(limit, REFUSED_MAX_RETRIES)  # nothing listens there: a few quick tries, not minutes
        delay = policy.delay(retry + 1, retry_after)
        late = time.monotonic() + delay - started > policy.deadline
        if retry >= limit or late:
            if status is not None and error.kind not in ("overloaded", "rate_limit"):
                error = ProviderError(exhausted_kind(status), str(error), status)
            if late:
                spent = time.monotonic() - started
                raise ProviderError(
                    error.kind,
                    f"{error} (gave up after {retry} retries in {spent:.0f} s; YOKE_RETRY_DEADLINE is "
                    f"{policy.deadline:g} s)",
                    error.status,
                )
            if retry:
                raise ProviderError(error.kind, f"{error} (gave up after {retry} retries)", error.status)
            raise error
        retry += 1
        yield RetryNotice(attempt=retry, max_retries=limit, delay_s=delay, status=status, error=reason)
        await policy.sleep(delay)
