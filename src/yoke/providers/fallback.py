"""`--fallback-model`: switch to another model when the main one stays overloaded.

`FallbackProvider` wraps the session's provider. When a request still fails with `overloaded` (529, or a
provider's own overload answer) after the retries, it switches for the rest of the session, as Claude Code
does: what streamed of the failed answer is dropped (a `RetryNotice(discard_partial=True)`), a
`ModelFallback` event says "Switched to X due to high demand for Y", and the request is asked again of the
fallback model with a history it can read: thinking signatures are dropped (they are bound to the model
that made them, and replaying them is a 400) and tool calls left without results get
"Model fallback triggered". Signatures the fallback model makes afterwards are kept.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from yoke.providers.base import (
    MessageStart,
    ModelFallback,
    ModelRequest,
    Provider,
    ProviderError,
    ProviderEvent,
    RetryNotice,
)
from yoke.providers.history import answer_dangling, convert_history, signatures_in


def fallback_message(from_model: str, to_model: str) -> str:
    return f"Switched to {to_model} due to high demand for {from_model}"


class FallbackProvider:
    def __init__(self, inner: Provider, fallback_model: str, *, active_from: str | None = None) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "anthropic")
        self.fallback_model = fallback_model
        self.switched_from: str | None = (
            active_from  # set once switched (or when resuming a switched session)
        )
        self._stale: set[str] | None = None  # signatures made before the switch

    @property
    def transport(self):  # `--record` wraps the real transport underneath
        return getattr(self.inner, "transport", None)

    @transport.setter
    def transport(self, value) -> None:
        self.inner.transport = value  # type: ignore[attr-defined]

    @property
    def active(self) -> bool:
        return self.switched_from is not None

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        return self._stream(request)

    async def _stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        if self.active:
            async with aclosing(self.inner.stream(self._for_fallback(request))) as events:
                async for event in events:
                    yield event
            return
        partial = False
        try:
            async with aclosing(self.inner.stream(request)) as events:
                async for event in events:
                    if isinstance(event, MessageStart):
                        partial = True
                    elif isinstance(event, RetryNotice) and event.discard_partial:
                        partial = False
                    yield event
            return
        except ProviderError as error:
            if error.kind != "overloaded":
                raise
            failure = error
        self.switched_from = request.model
        if partial:
            yield RetryNotice(1, 1, 0.0, failure.status, str(failure), discard_partial=True)
        message = fallback_message(request.model, self.fallback_model)
        yield ModelFallback(request.model, self.fallback_model, message)
        async with aclosing(self.inner.stream(self._for_fallback(request))) as events:
            async for event in events:
                yield event

    def _for_fallback(self, request: ModelRequest) -> ModelRequest:
        if self._stale is None:
            self._stale = signatures_in(request.messages)
        family = self.name
        converted = convert_history(request.messages, family, strip_signatures=self._stale)
        messages, _ = answer_dangling(converted.messages)
        return request.replace(model=self.fallback_model, messages=messages)

    async def aclose(self) -> None:
        await self.inner.aclose()


def with_fallback(
    provider: Provider,
    provider_name: str,
    model: str,
    fallback: str | None,
    env: dict[str, str] | None = None,
    *,
    resumed: tuple[str, str] | None = None,
) -> Provider:
    """The session's provider, wrapped for `--fallback-model` / the `fallbackModel` setting when one is set.
    `resumed` is a resumed transcript's recorded switch: the session continues on the fallback model."""
    if not fallback or not fallback.strip():
        return provider
    from yoke.providers.select import resolve_model_alias

    target = resolve_model_alias(provider_name, fallback.strip(), env or {})
    if target == model:
        raise ProviderError(
            "config",
            "Fallback model cannot be the same as the main model; name a different one with --fallback-model",
        )
    active = resumed[0] or model if resumed and resumed[1] == target else None
    return FallbackProvider(provider, target, active_from=active)
