"""`HttpProvider`: what every wire spoken over Yoke's HTTP layer shares, owned once.

Credentials, the base URL, the retry policy, the transport (and its timeout) and reading them from the
environment live here; `stream` sends one `WireCall` through `run_call` (providers/http.py). A wire
(Anthropic Messages, Chat Completions, Responses, Gemini) supplies only what is its own in `wire_call`: the
URL and headers, the body encoding, the assembler of its answer and the mapping of its errors.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, Self

from yoke.providers.base import ModelRequest, ProviderError, ProviderEvent
from yoke.providers.encode import BodyEncoder
from yoke.providers.http import WireCall, run_call
from yoke.providers.retry import RetryPolicy
from yoke.providers.transport import AutoTransport, Transport


class HttpProvider:
    name = ""
    default_base_url = ""
    key_vars: Sequence[str] = ()  # the API key's environment variables: the first one set wins
    base_url_vars: Sequence[str] = ()  # the base URL's, likewise
    history_key = "messages"  # the body's history list, whose end alone the encoder rewrites per request

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
        transport: Transport | None = None,
        api_timeout: float = 600.0,
    ) -> None:
        self.api_key = api_key or None
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self.retry = retry or RetryPolicy()
        self.transport = transport or AutoTransport(read_timeout=api_timeout)
        self._encoder = BodyEncoder(self.history_key)

    @classmethod
    def env_settings(
        cls, env: Mapping[str, str], *, base_url: str | None = None, transport: Transport | None = None
    ) -> dict[str, Any]:
        """The constructor's arguments from the environment: the key and base URL variables, API_TIMEOUT_MS
        and the retry variables of `RetryPolicy.from_env`."""
        return {
            "api_key": first_set(env, cls.key_vars),
            "base_url": base_url or first_set(env, cls.base_url_vars),
            "retry": RetryPolicy.from_env(env),
            "transport": transport,
            "api_timeout": api_timeout_from_env(env),
        }

    @classmethod
    def from_env(
        cls, env: Mapping[str, str], *, base_url: str | None = None, transport: Transport | None = None
    ) -> Self:
        return cls(**cls.env_settings(env, base_url=base_url, transport=transport))

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        return run_call(self.transport, self.retry, self.wire_call(request), request.stream)

    def wire_call(self, request: ModelRequest) -> WireCall:
        raise NotImplementedError

    async def aclose(self) -> None:
        await self.transport.aclose()


def first_set(env: Mapping[str, str], names: Sequence[str]) -> str | None:
    for name in names:
        if env.get(name):
            return env[name]
    return None


def api_timeout_from_env(env: Mapping[str, str]) -> float:
    """API_TIMEOUT_MS (Claude Code's variable) bounds a non-streaming request; default 600 s."""
    raw = (env.get("API_TIMEOUT_MS") or "").strip()
    try:
        return max(1.0, float(raw) / 1000) if raw else 600.0
    except ValueError:
        raise ProviderError(
            "config", f"API_TIMEOUT_MS must be a number of milliseconds (got {raw!r})"
        ) from None


def parse_custom_headers(text: str) -> dict[str, str]:
    """ANTHROPIC_CUSTOM_HEADERS: 'Name: value' lines."""
    headers = {}
    for line in text.splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip():
            headers[name.strip()] = value.strip()
    return headers


def access_error(status: int, message: str, model: str, base_url: str) -> ProviderError | None:
    """A 403 or a 404, worded alike whichever wire answered; None for any other status."""
    if status == 403:
        return ProviderError("permission", f"Permission denied by the API (403): {message}", status)
    if status == 404:
        return ProviderError(
            "not_found",
            f"model '{model}' not found at {base_url} ({message}) · choose another with /model (or --model when starting yoke)",
            status,
        )
    return None


def status_error(status: int, message: str) -> ProviderError:
    """What a wire's own checks left: a 5xx, 408 or 409 is the server's fault, anything else the request's."""
    if status >= 500 or status in (408, 409):
        return ProviderError("server", f"API error ({status}): {message}", status)
    return ProviderError("invalid_request", f"The API rejected the request ({status}): {message}", status)
