"""A requested model switch, with Claude Code's `PreModelSwitch` and `PostModelSwitch` hook events.

PreModelSwitch runs before `/model` (source "command") or an SDK's `set_model` (source "sdk") changes the
model: a listener's `deny` cancels the switch, and so does `ask` when nobody can be asked (the headless and
SDK paths). PostModelSwitch runs after it; its `additionalContext` reaches the model with the next request.
Both carry what Claude Code 2.1.330's hook input carries (observed: the bundled CLI's hooks on `set_model`): the resolved
`from_model` and `to_model`, `requested_model` (as asked, None for the default), `source`, `context_tokens`
(what the next request re-sends: the last main-thread answer's input, cache and output tokens),
`prompt_cache_warm`, `cache_ttl`, and `estimated_cache_write_usd` with the `pricing` it came from. The
matcher is tested against `to_model`.
"""

from __future__ import annotations

import os
from typing import Any


def switch_fields(session: Any, requested: str | None, source: str, from_model: str, to_model: str) -> dict:
    from yoke.providers.pricing import price_of

    agent = session.agent
    usage = getattr(agent, "last_usage", None)
    tokens = 0
    if usage is not None:
        tokens = (
            usage.input_tokens
            + usage.cache_read_input_tokens
            + usage.cache_creation_input_tokens
            + usage.output_tokens
        )
    price = price_of(to_model)
    return {
        "from_model": from_model,
        "to_model": to_model,
        "requested_model": requested,
        "source": source,
        "context_tokens": tokens,
        "prompt_cache_warm": tokens > 0,  # an answer came in this session: its prefix is cached
        "cache_ttl": "5m",
        "estimated_cache_write_usd": round(tokens * price.cache_write / 1e6, 6) if price is not None else 0.0,
        "pricing": "catalog" if price is not None else "default",
    }


def resolved(session: Any, spec: str) -> str:
    """The model id `spec` (an alias, an id, or provider:model) names, as far as can be told before switching."""
    from yoke.providers.select import resolve_model_alias

    provider, sep, model = spec.partition(":")
    if not sep:
        provider, model = session.provider_name, spec
    try:
        return resolve_model_alias(provider, model, session.agent.executor.ctx.env or os.environ)
    except Exception:  # an unknown provider: the switch itself says what is wrong
        return model


async def switch_model(session: Any, spec: str, source: str = "sdk") -> str:
    """Switch with the hooks around it: "" when switched, else why not (ValueError for a bad model)."""
    agent = session.agent
    before = agent.settings.model
    fields = switch_fields(session, spec, source, before, resolved(session, spec))
    verdict = await agent.lifecycle.announce("PreModelSwitch", **fields)
    if verdict.decision in ("deny", "ask") or verdict.block or verdict.stop:
        return verdict.reason or verdict.stop_reason or f"A PreModelSwitch hook kept the model at {before}."
    session.set_model(spec)
    fields = switch_fields(session, spec, source, before, agent.settings.model)
    after = await agent.lifecycle.announce("PostModelSwitch", **fields)
    if after.additional_context:
        agent.inbox.append(after.additional_context)
    return ""
