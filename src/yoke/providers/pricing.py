"""Model prices and context windows, for cost reporting and compaction thresholds.

The numbers live in one data file, `models.json` next to this module (read once, on first use): per model
family a price in USD per million tokens (input, output, cache write, cache read) and optionally a context
window, plus each provider's default model and aliases. OpenAI, Gemini and xAI bill no premium for writing
their automatic caches, so there the write price is the input price. Models are matched by the longest known
family prefix after provider prefixes (`anthropic/`, `us.anthropic.`, `models/`) and date or version
suffixes (`-20250929`, `@20250929`, `-v1:0`, `-2024-08-06`) are dropped.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from yoke.providers.base import Usage
from yoke.records import Record


class Price(Record):
    """USD per million tokens."""

    __slots__ = ("input", "output", "cache_write", "cache_read")

    def __init__(self, input: float, output: float, cache_write: float, cache_read: float) -> None:
        self.input = input
        self.output = output
        self.cache_write = cache_write
        self.cache_read = cache_read


CLAUDE_CONTEXT = 200_000
OTHER_CONTEXT = 128_000


@cache
def model_data() -> dict[str, Any]:
    """The parsed models.json (providers' defaults and aliases, model families)."""
    import json
    from pathlib import Path

    return json.loads((Path(__file__).with_name("models.json")).read_text(encoding="utf-8"))


@cache
def _tables() -> tuple[dict[str, Price], dict[str, int], frozenset[str]]:
    prices: dict[str, Price] = {}
    windows: dict[str, int] = {}
    responses_only: set[str] = set()
    for name, entry in model_data()["models"].items():
        if entry.get("price"):
            prices[name] = Price(*entry["price"])
        if entry.get("context"):
            windows[name] = int(entry["context"])
        if entry.get("responses_only"):
            responses_only.add(name)
    return prices, windows, frozenset(responses_only)


def __getattr__(name: str) -> Any:
    # PRICES / CONTEXT_WINDOWS stay importable for callers that read the tables directly.
    if name == "PRICES":
        return _tables()[0]
    if name == "CONTEXT_WINDOWS":
        return _tables()[1]
    raise AttributeError(name)


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


def _lookup(model: str, table: Any) -> str | None:
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


@cache
def _table_key(model: str, table: int) -> str | None:
    """`_lookup` in one of the (fixed) tables, once per model name: every response is priced."""
    return _lookup(model, _tables()[table])


def model_flag(model: str, key: str) -> Any:
    """A flag of the model's family in models.json (`task_list`, `tool_search`, ...), or None."""
    models = model_data()["models"]
    family = _lookup(model, models)
    return models[family].get(key) if family else None


def price_of(model: str) -> Price | None:
    key = _table_key(model, 0)
    return _tables()[0][key] if key else None


def known_model(model: str) -> bool:
    return price_of(model) is not None


def unpriced_notice(model: str) -> str:
    """What a user is told once about a model missing from the price table."""
    return (
        f"No price is known for model '{model}': its cost is not counted in total_cost_usd "
        "(token counts still are). Add it to yoke/providers/models.json to count it."
    )


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
    key = _table_key(model, 1)
    if key:
        return _tables()[1][key]
    return CLAUDE_CONTEXT if "claude" in normalize_model(model) else OTHER_CONTEXT


def responses_only(model: str) -> bool:
    """Whether OpenAI serves this model only through the Responses API (not Chat Completions)."""
    return _table_key(model, 2) is not None
