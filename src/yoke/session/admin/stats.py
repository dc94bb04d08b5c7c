"""Prices for `yoke stats`, which reads transcripts: Claude Code's transcripts carry each answer's tokens but
no cost, so each is priced here with the same table a session's cost ledger uses (`providers/models.json`)."""

from __future__ import annotations

from collections.abc import Mapping


def answer_cost(model: str, tokens: Mapping[str, int]) -> float:
    """What one answer of `model` cost in US dollars, from its `input`, `output`, `cache_read` and
    `cache_creation` tokens; 0.0 for a model without a known price."""
    from yoke.providers.base import Usage
    from yoke.providers.pricing import cost_usd

    usage = Usage(tokens["input"], tokens["output"], tokens["cache_read"], tokens["cache_creation"])
    return cost_usd(model, usage)
