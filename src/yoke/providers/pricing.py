"""Model prices and context windows, for cost reporting and compaction thresholds.

Prices are USD per million tokens: input, output, cache write (Anthropic's 5-minute cache) and cache read.
OpenAI bills no premium for writing its automatic cache, so there the write price is the input price.
Models are matched by the longest known family prefix after provider prefixes (`anthropic/`,
`us.anthropic.`) and date or version suffixes (`-20250929`, `@20250929`, `-v1:0`, `-2024-08-06`) are dropped.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from yoke.providers.base import Usage


class Price(NamedTuple):
    input: float
    output: float
    cache_write: float
    cache_read: float


PRICES: dict[str, Price] = {
    # Anthropic
    "claude-opus-4-5": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-1": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4-0": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4": Price(15.0, 75.0, 18.75, 1.50),
    "claude-3-opus": Price(15.0, 75.0, 18.75, 1.50),
    "claude-sonnet-4-5": Price(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-0": Price(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4": Price(3.0, 15.0, 3.75, 0.30),
    "claude-3-7-sonnet": Price(3.0, 15.0, 3.75, 0.30),
    "claude-3-5-sonnet": Price(3.0, 15.0, 3.75, 0.30),
    "claude-haiku-4-5": Price(1.0, 5.0, 1.25, 0.10),
    "claude-3-5-haiku": Price(0.80, 4.0, 1.0, 0.08),
    "claude-3-haiku": Price(0.25, 1.25, 0.30, 0.03),
    # OpenAI
    "gpt-5": Price(1.25, 10.0, 1.25, 0.125),  # also gpt-5-codex, gpt-5-chat
    "gpt-5.1": Price(1.25, 10.0, 1.25, 0.125),
    "gpt-5-mini": Price(0.25, 2.0, 0.25, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.05, 0.005),
    "gpt-5-pro": Price(15.0, 120.0, 15.0, 15.0),
    "gpt-4.1": Price(2.0, 8.0, 2.0, 0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.40, 0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.10, 0.025),
    "gpt-4o": Price(2.50, 10.0, 2.50, 1.25),
    "gpt-4o-mini": Price(0.15, 0.60, 0.15, 0.075),
    "o3": Price(2.0, 8.0, 2.0, 0.50),
    "o3-pro": Price(20.0, 80.0, 20.0, 20.0),
    "o3-mini": Price(1.10, 4.40, 1.10, 0.55),
    "o4-mini": Price(1.10, 4.40, 1.10, 0.275),
}

CONTEXT_WINDOWS: dict[str, int] = {
    "gpt-4.1": 1_047_576,
    "gpt-5": 400_000,
    "o3": 200_000,
    "o4-mini": 200_000,
}
CLAUDE_CONTEXT = 200_000
OTHER_CONTEXT = 128_000

_PREFIXES = re.compile(r"^(?:[a-z0-9_-]+/)+|^(?:(?:us|eu|apac|global|jp|au)\.)?anthropic\.")
_SUFFIXES = re.compile(r"(?:\[1m\]|@\d{8}|-v\d+(?::\d+)?|-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$")


def normalize_model(model: str) -> str:
    """The bare model family name: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' -> 'claude-sonnet-4-5'."""
    name = _PREFIXES.sub("", model.strip().lower())
    while True:
        shorter = _SUFFIXES.sub("", name)
        if shorter == name:
            return name
        name = shorter


def _lookup(model: str, table: dict[str, object]) -> str | None:
    """The longest key that is the whole name or a prefix of it followed by a variant word ('-codex'); a
    following version number ('claude-opus-4' in 'claude-opus-4-9') is a different model, so no match."""
    name = normalize_model(model)
    best = None
    for key in table:
        rest = name[len(key) :] if name.startswith(key) else None
        fits = rest == "" or (rest is not None and rest.startswith("-") and not rest[1:2].isdigit())
        if fits and (best is None or len(key) > len(best)):
            best = key
    return best


def price_of(model: str) -> Price | None:
    key = _lookup(model, PRICES)  # type: ignore[arg-type]
    return PRICES[key] if key else None


def known_model(model: str) -> bool:
    return price_of(model) is not None


def cost_usd(model: str, usage: Usage) -> float:
    """What a call cost; 0.0 for a model without a known price (check `known_model` to say so)."""
    price = price_of(model)
    if price is None:
        return 0.0
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_creation_input_tokens * price.cache_write
        + usage.cache_read_input_tokens * price.cache_read
    )
    return total / 1_000_000


def context_window(model: str) -> int:
    key = _lookup(model, CONTEXT_WINDOWS)  # type: ignore[arg-type]
    if key:
        return CONTEXT_WINDOWS[key]
    return CLAUDE_CONTEXT if "claude" in normalize_model(model) else OTHER_CONTEXT
