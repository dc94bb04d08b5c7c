"""Running token and cost totals per model for a session."""

from __future__ import annotations

from dataclasses import dataclass, field

from yoke.events import ModelUsage
from yoke.providers.base import Usage


@dataclass
class CostLedger:
    per_model: dict[str, Usage] = field(default_factory=dict)
    cost: dict[str, float] = field(default_factory=dict)
    unknown_models: set[str] = field(default_factory=set)
    notices: list[str] = field(default_factory=list)  # said once per unpriced model, taken by the loop

    @property
    def total_cost_usd(self) -> float:
        return sum(self.cost.values())

    def add(self, model: str, usage: Usage) -> float:
        """Add one response's usage; returns its cost (0 for a model missing from the price table)."""
        from yoke.providers.pricing import cost_usd, known_model, unpriced_notice

        self.per_model.setdefault(model, Usage()).add(usage)
        if not known_model(model) and model not in self.unknown_models:
            self.unknown_models.add(model)
            self.notices.append(unpriced_notice(model))
        cost = cost_usd(model, usage)
        self.cost[model] = self.cost.get(model, 0.0) + cost
        return cost

    def take_notices(self) -> list[str]:
        taken, self.notices = self.notices, []
        return taken

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
