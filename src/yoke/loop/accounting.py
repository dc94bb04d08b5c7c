"""Running token and cost totals per model for a session."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from yoke.events import ModelUsage
from yoke.providers.base import Usage


class CostLedger:
    def __init__(self, prices: dict[str, Any] | None = None) -> None:
        self.per_model: dict[str, Usage] = {}
        self.cost: dict[str, float] = {}
        self.unknown_models: set[str] = set()
        self.prices: dict[str, Any] = {} if prices is None else prices  # model -> Price the user gave
        self.notices: list[str] = []  # said once per unpriced model, taken by the loop
        # told of every priced request: (source, model, usage, cost, parts, detail); the session records them
        self.listeners: list[Callable[[str, str, Usage, float, dict[str, float], dict[str, Any]], None]] = []

    @property
    def total_cost_usd(self) -> float:
        return sum(self.cost.values())

    def add(
        self, model: str, usage: Usage, source: str = "turn", detail: dict[str, Any] | None = None
    ) -> float:
        """Add one response's usage; returns its cost (0 for a model missing from the price table). `source`
        says what asked (a turn's request, compaction, the auto-mode classifier, memory selection); `detail`
        is the request's attribution (`loop/spend.py`), for the listeners."""
        from yoke.providers.pricing import cost_usd, unpriced_notice

        self.per_model.setdefault(model, Usage()).add(usage)
        if not self.knows(model) and model not in self.unknown_models:
            self.unknown_models.add(model)
            self.notices.append(unpriced_notice(model))
        given = self._given_price(model)
        price = (lambda u: _priced(given, u)) if given is not None else (lambda u: cost_usd(model, u))
        cost = price(usage)
        self.cost[model] = self.cost.get(model, 0.0) + cost
        if self.listeners:
            parts = _parts(price, usage, cost)
            for listener in self.listeners:
                listener(source, model, usage, cost, parts, detail or {})
        return cost

    def take_notices(self) -> list[str]:
        taken, self.notices = self.notices, []
        return taken

    def knows(self, model: str) -> bool:
        from yoke.providers.pricing import known_model

        return self._given_price(model) is not None or known_model(model)

    def _given_price(self, model: str) -> Any:
        if not self.prices:
            return None
        from yoke.providers.pricing import normalize_model

        return self.prices.get(model) or self.prices.get(normalize_model(model))

    def model_usage(self) -> dict[str, ModelUsage]:
        return {
            model: ModelUsage(
                u.input_tokens,
                u.output_tokens,
                u.cache_read_input_tokens,
                u.cache_creation_input_tokens,
                self.cost.get(model, 0.0),
            )
            for model, u in self.per_model.items()
        }

    def restore(self, model_usage: dict[str, dict]) -> None:
        """Carry totals over from a resumed session's transcript (`modelUsage` as written there)."""
        for model, m in model_usage.items():
            self.per_model[model] = Usage(
                int(m.get("inputTokens", 0)),
                int(m.get("outputTokens", 0)),
                int(m.get("cacheReadInputTokens", 0)),
                int(m.get("cacheCreationInputTokens", 0)),
            )
            self.cost[model] = float(m.get("costUSD", 0.0))


def _parts(price: Callable[[Usage], float], usage: Usage, cost: float) -> dict[str, float]:
    """A request's cost by what it paid for: the answer, the prompt read from the cache, and the prompt not
    read from it (new or re-written); the last takes the rest, so the parts add up to the cost exactly.
    Each part is priced at the tier of the whole prompt, as the request is."""
    prompt = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    if not prompt:
        return {"output": cost, "cacheRead": 0.0, "newPrompt": 0.0}
    read = price(Usage(0, 0, prompt, 0)) / prompt * usage.cache_read_input_tokens
    output = price(Usage(prompt, usage.output_tokens, 0, 0)) - price(Usage(prompt, 0, 0, 0))
    return {"output": output, "cacheRead": read, "newPrompt": cost - output - read}


def _priced(price: Any, usage: Usage) -> float:
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_creation_input_tokens * price.cache_write
        + usage.cache_read_input_tokens * price.cache_read
    )
    return total / 1_000_000


def prices_from_settings(value: Any, warnings: list[str]) -> dict[str, Any]:
    """The `modelPrices` setting (Yoke's own): {"model": {"input": 3, "output": 15, "cacheRead": 0.3,
    "cacheWrite": 3.75}} in USD per million tokens; cache prices default to the input price."""
    from yoke.providers.pricing import Price

    if value is None:
        return {}
    if not isinstance(value, dict):
        warnings.append("settings: `modelPrices` must be an object of model -> prices; ignored")
        return {}
    prices: dict[str, Any] = {}
    for model, entry in value.items():
        numbers = entry if isinstance(entry, dict) else {}
        try:
            given = {k: float(numbers[k]) for k in ("input", "output")}
            cache_read = float(numbers.get("cacheRead", given["input"]))
            cache_write = float(numbers.get("cacheWrite", given["input"]))
        except (KeyError, TypeError, ValueError):
            warnings.append(
                f"settings: `modelPrices.{model}` needs numeric `input` and `output` (USD per million tokens); "
                "ignored"
            )
            continue
        prices[str(model)] = Price(given["input"], given["output"], cache_write, cache_read)
    return prices
