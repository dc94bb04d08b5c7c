"""`--record FILE`: wrap a provider's transport so every exchange lands in a cassette."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.providers.base import ProviderError
from yoke.providers.cassette import RecordingTransport


def record_provider(provider: Any, path: Path, model: str = "") -> None:
    transport = getattr(provider, "transport", None)
    if transport is None:
        name = getattr(provider, "name", "this provider")
        raise ProviderError("config", f"--record is not supported with {name} (it has no HTTP transport)")
    retry = getattr(provider, "retry", None)
    name = getattr(provider, "name", "anthropic")
    provider.transport = RecordingTransport(transport, path, name, model, getattr(retry, "max_retries", None))
