"""`SessionOptions.request_gate`: each model request waits at a caller's gate (a shared rate limiter)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from yoke.providers.transport import HttpRequest, HttpResponse, Transport

RequestGate = Callable[[HttpRequest], Awaitable[None]]  # awaited before each request is sent


class GatedTransport:
    def __init__(self, inner: Transport, gate: RequestGate) -> None:
        self.inner = inner
        self.gate = gate

    async def send(self, request: HttpRequest) -> HttpResponse:
        await self.gate(request)
        return await self.inner.send(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def gate_provider(provider: Any, gate: RequestGate) -> None:
    """Put `gate` in front of the provider's transport; a provider without one (replay) is left as it is."""
    transport = getattr(provider, "transport", None)
    if transport is not None and not isinstance(provider.transport, GatedTransport):
        provider.transport = GatedTransport(transport, gate)
