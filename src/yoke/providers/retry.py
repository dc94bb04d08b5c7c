"""Retrying a model request: the policy (how often, how long to wait, the deadline, from the environment),
the server's `retry-after`, which failures are worth repeating, and `send_with_retries`, which POSTs until a
response is good or the policy gives up (each wait announced by a `RetryNotice`)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from yoke.providers.base import ErrorKind, ProviderError, RetryNotice
from yoke.providers.transport import ConnectionFailure, HttpRequest, HttpResponse, Transport
from yoke.records import Record

if TYPE_CHECKING:
    from yoke.providers.http import WireCall

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


def exhausted_kind(status: int) -> ErrorKind:
    """The error kind for a retryable status that kept failing."""
    if status == 429:
        return "rate_limit"
    if status == 529:
        return "overloaded"
    return "server"


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
