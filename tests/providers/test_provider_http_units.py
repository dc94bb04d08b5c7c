"""Retry policy, retry-after parsing, and the retry loop over a scripted in-memory transport."""

from __future__ import annotations

import email.utils

import pytest

from yoke.providers.base import ProviderError, RetryNotice
from yoke.providers.http import WireCall
from yoke.providers.retry import RetryPolicy, is_retryable, parse_retry_after, send_with_retries
from yoke.providers.transport import ConnectionFailure, HttpRequest, HttpResponse


def test_retry_after_in_seconds_milliseconds_and_http_date():
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 20, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now) == pytest.approx(20.0)
    assert parse_retry_after({"retry-after": email.utils.formatdate(now - 50, usegmt=True)}, now=now) == 0.0


def test_retry_after_absent_or_unreadable_is_none():
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({"retry-after-ms": "x"}) is None


def test_backoff_doubles_with_jitter_and_is_capped():
    policy = RetryPolicy(base_delay=0.5)
    for retry, full in [(1, 0.5), (2, 1.0), (3, 2.0), (7, 32.0), (12, 32.0)]:
        delay = policy.delay(retry)
        assert full * 0.75 <= delay <= full, (retry, delay)
    assert policy.delay(3, retry_after=7.0) == 7.0
    assert policy.delay(1, retry_after=10_000.0) <= 0.5  # an absurd server wait falls back to backoff


def test_policy_from_env():
    policy = RetryPolicy.from_env(
        {"YOKE_MAX_RETRIES": "3", "YOKE_RETRY_BASE_DELAY": "0.01", "YOKE_STREAM_IDLE_TIMEOUT": "5"}
    )
    assert (policy.max_retries, policy.base_delay, policy.idle_timeout) == (3, 0.01, 5.0)
    assert policy.max_delay == pytest.approx(0.64)
    assert RetryPolicy.from_env({"CLAUDE_CODE_MAX_RETRIES": "4"}).max_retries == 4
    assert RetryPolicy.from_env({"YOKE_MAX_RETRIES": "2", "CLAUDE_CODE_MAX_RETRIES": "4"}).max_retries == 2
    defaults = RetryPolicy.from_env({})
    assert (defaults.max_retries, defaults.base_delay, defaults.idle_timeout) == (10, 0.5, 90.0)


def test_bad_env_value_is_a_config_error_naming_the_variable():
    with pytest.raises(ProviderError) as info:
        RetryPolicy.from_env({"YOKE_MAX_RETRIES": "lots"})
    assert info.value.kind == "config" and "YOKE_MAX_RETRIES" in str(info.value)


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        (429, {}, True),
        (529, {}, True),
        (500, {}, True),
        (408, {}, True),
        (409, {}, True),
        (400, {}, False),
        (401, {}, False),
        (404, {}, False),
        (500, {"x-should-retry": "false"}, False),
        (400, {"x-should-retry": "true"}, True),
    ],
)
def test_which_statuses_are_retried(status, headers, expected):
    assert is_retryable(status, headers) is expected


class ScriptedTransport:
    """Answers each send with the next scripted outcome: a response or a ConnectionFailure."""

    def __init__(self, outcomes):
        self.outcomes = list(outcomes)
        self.sent = 0

    async def send(self, request):
        self.sent += 1
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def aclose(self):
        return None


def make_call(url: str = "http://model.test/v1/messages") -> WireCall:
    def error_for(response: HttpResponse) -> ProviderError:
        return ProviderError("server", f"status {response.status}", response.status)

    return WireCall(url, {}, lambda stream: {}, lambda: None, error_for, connection_hint="check THE_URL")  # type: ignore[arg-type,return-value]


async def drive(transport, policy) -> tuple[list[RetryNotice], HttpResponse | None]:
    notices, final = [], None
    request = HttpRequest("http://model.test/v1/messages", {}, {}, stream=False)
    async for item in send_with_retries(transport, policy, request, make_call()):
        if isinstance(item, RetryNotice):
            notices.append(item)
        else:
            final = item
    return notices, final


def recording_policy(max_retries: int = 10) -> tuple[RetryPolicy, list[float]]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    return RetryPolicy(max_retries=max_retries, base_delay=0.5, sleep=sleep), slept


async def test_retries_until_success_and_honours_retry_after():
    policy, slept = recording_policy()
    transport = ScriptedTransport(
        [
            HttpResponse(429, {"retry-after": "2"}),
            ConnectionFailure("ConnectError: refused"),
            HttpResponse(200, {}, body=b"{}"),
        ]
    )
    notices, final = await drive(transport, policy)
    assert final is not None and final.status == 200
    assert [(n.attempt, n.status) for n in notices] == [(1, 429), (2, None)]
    assert slept[0] == 2.0 and 0.75 <= slept[1] <= 1.0
    assert notices[1].error == "ConnectError: refused"
    assert [n.delay_s for n in notices] == slept


async def test_gives_up_after_max_retries_with_the_last_error():
    policy, slept = recording_policy(max_retries=2)
    transport = ScriptedTransport([HttpResponse(529, {})] * 3)
    with pytest.raises(ProviderError) as info:
        await drive(transport, policy)
    assert info.value.kind == "overloaded" and "gave up after 2 retries" in str(info.value)
    assert transport.sent == 3 and len(slept) == 2


async def test_non_retryable_status_fails_at_once():
    policy, slept = recording_policy()
    with pytest.raises(ProviderError) as info:
        await drive(ScriptedTransport([HttpResponse(400, {})]), policy)
    assert str(info.value) == "status 400" and slept == []


async def test_unreachable_names_the_url_and_hint():
    policy, _ = recording_policy(max_retries=1)
    failures = [ConnectionFailure("ConnectError: refused")] * 2
    with pytest.raises(ProviderError) as info:
        await drive(ScriptedTransport(failures), policy)
    message = str(info.value)
    assert info.value.kind == "connection"
    assert "http://model.test/v1/messages" in message and "check THE_URL" in message and "\n" not in message
