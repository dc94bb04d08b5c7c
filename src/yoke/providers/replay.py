"""The `replay` provider: a recorded run played back offline through the real wire parsing."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path

from yoke.providers.base import ModelRequest, ProviderError, ProviderEvent
from yoke.providers.cassette import Cassette, ReplayTransport

REPLAY_BASE_URL = "http://cassette.invalid"


class ReplayProvider:
    name = "replay"

    def __init__(self, path: Path):
        self.cassette = Cassette(path)
        self.transport = ReplayTransport(self.cassette)
        self.model = self.cassette.model
        retries = self.cassette.header.get("max_retries")
        self.inner = _wire_provider(
            self.cassette.provider, self.transport, retries if isinstance(retries, int) else 0
        )

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        return self.inner.stream(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _no_wait(seconds: float) -> None:
    return None


def _wire_provider(kind: str, transport: ReplayTransport, max_retries: int = 0):
    from yoke.providers.retry import RetryPolicy

    # A recorded failure is answered again by the next recorded exchange, at once: retried as often as the
    # recorded run retried (older cassettes, without the count, replay no retries).
    no_retries = RetryPolicy(max_retries=max_retries, sleep=_no_wait)
    if kind in ("anthropic", "bedrock", "vertex", "foundry"):
        from yoke.providers.anthropic import AnthropicProvider

        return AnthropicProvider(base_url=REPLAY_BASE_URL, transport=transport, retry=no_retries)
    if kind in ("openai", "grok"):
        from yoke.providers.openai import OpenAIProvider

        return OpenAIProvider(base_url=REPLAY_BASE_URL, transport=transport, retry=no_retries)
    if kind == "openai-responses":
        from yoke.providers.responses import ResponsesProvider

        return ResponsesProvider(base_url=REPLAY_BASE_URL, transport=transport, retry=no_retries)
    if kind == "gemini":
        from yoke.providers.gemini import GeminiProvider

        return GeminiProvider(
            api_key="replay", base_url=REPLAY_BASE_URL, transport=transport, retry=no_retries
        )
    raise ProviderError("config", f"cassette was recorded with an unknown provider {kind!r}")
