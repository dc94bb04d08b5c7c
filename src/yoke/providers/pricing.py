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

    # json-ours: the package's own models.json
    return json.loads((Path(__file__).with_name("models.json")).read_text(encoding="utf-8"))


def __getattr__(name: str) -> Any:
    # PRICES / CONTEXT_WINDOWS stay importable for callers that read the tables directly.
    models = model_data()["models"]
    if name == "PRICES":
        return {k: Price(*e["price"]) for k, e in models.items() if e.get("price")}
    if name == "CONTEXT_WINDOWS":
        return {k: int(e["context"]) for k, e in models.items() if e.get("context")}
    raise AttributeError(name)


_PREFIXES = re.compile(r"^(?:[a-z0-9_-]+/)+|^(?:(?:us|eu|apac|global|jp|au)\.)?anthropic\.")
_SUFFIXES = re.compile(r"(?:\[1m\]|@\d{8}|-v\d+(?::\d+)?|-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$")

# Models the user's settings say behave as a known one (Claude Code's `modelPicker.options[].behavesAs`):
# normalized name -> the known model. They take its capabilities, never its price.
_USER_BEHAVES_AS: dict[str, str] = {}


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


def set_behaves_as(mapping: dict[str, str]) -> None:
    """Install the settings' `behavesAs` pairs (unknown model -> known model) for this process."""
    cleaned = {normalize_model(k): v for k, v in mapping.items() if isinstance(v, str) and v.strip()}
    if cleaned != _USER_BEHAVES_AS:
        _USER_BEHAVES_AS.clear()
        _USER_BEHAVES_AS.update(cleaned)
        model_entry.cache_clear()


@cache
def model_entry(model: str) -> dict[str, Any]:
    """Everything models.json says of `model` ({} when nothing): its family's entry, following `behavesAs`
    (an entry's own fields win); a user's `behavesAs` lends capabilities but no price."""
    models = model_data()["models"]
    borrowed = _USER_BEHAVES_AS.get(normalize_model(model))
    key = _lookup(model, models)
    if key is None and borrowed:
        lent = {k: v for k, v in model_entry(borrowed).items() if k not in ("price", "tiers")}
        return {**lent, "behavesAs": borrowed}
    if key is None:
        return {}
    entry = models[key]
    if entry.get("behavesAs"):
        return {**model_entry(entry["behavesAs"]), **entry, "key": key}
    return {**entry, "key": key}


def model_flag(model: str, key: str) -> Any:
    """A flag of the model's family in models.json (`task_list`, `tool_search`, ...), or None."""
    return model_entry(model).get(key)


def price_of(model: str, prompt_tokens: int = 0) -> Price | None:
    """The model's price for a request whose prompt (input plus cache reads and writes) has `prompt_tokens`:
    the highest `tiers` entry it is above, else the base price."""
    entry = model_entry(model)
    if not entry.get("price"):
        return None
    numbers = entry["price"]
    for tier in entry.get("tiers", ()):
        if prompt_tokens > int(tier["above"]):
            numbers = tier["price"]
    return Price(*numbers)


def known_model(model: str) -> bool:
    return price_of(model) is not None


def unpriced_notice(model: str) -> str:
    """What a user is told once about a model missing from the price table."""
    return (
        f"No price is known for model '{model}': its cost is not counted in total_cost_usd "
        "(token counts still are). Add it to yoke/providers/models.json to count it."
    )


def cost_usd(model: str, usage: Usage) -> float:
    """What one response cost; 0.0 for a model without a known price (check `known_model` to say so). A
    price tier applies to every token of a request whose prompt is above its threshold."""
    prompt = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    price = price_of(model, prompt)
    if price is None:
        return 0.0
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_creation_input_tokens * price.cache_write
        + usage.cache_read_input_tokens * price.cache_read
    )
    return total / 1_000_000


def max_output(model: str) -> int | None:
    """The max_tokens sent by default (Claude Code 2.1.330's per model), None when models.json has none."""
    value = model_entry(model).get("max_output")
    return int(value) if value else None


def retirement(model: str, provider: str | None = None) -> tuple[str, str, str | None] | None:
    """("retired" | "retires", date, replacement) when the vendor has shut the model down or announced it;
    None on a `provider` the entry's `retirement_platforms` leaves out (Bedrock and Vertex keep their own dates)."""
    entry = model_entry(model)
    platforms = entry.get("retirement_platforms")
    if provider is not None and isinstance(platforms, list) and provider not in platforms:
        return None
    for word in ("retired", "retires"):
        if entry.get(word):
            return word, str(entry[word]), entry.get("replacement")
    return None


def context_window(model: str) -> int:
    window = model_entry(model).get("context")
    if window:
        return int(window)
    return CLAUDE_CONTEXT if "claude" in normalize_model(model) else OTHER_CONTEXT


def responses_only(model: str) -> bool:
    """Whether OpenAI serves this model only through the Responses API (not Chat Completions)."""
    return bool(model_entry(model).get("responses_only"))
