"""Tool search: deferred tools reach the model by name only, and `ToolSearch` loads a tool's full schema on
demand, as current Claude Code releases do.

A deferred tool stays in the registry (so a call by name still works and permission rules still see it) but
is left out of the request's tool list while a ToolSearch is there to load it; from the request after
ToolSearch selects it, its schema is sent like any other tool's. MCP tools are deferred by `mcp/`
(`ENABLE_TOOL_SEARCH`); built-in ones by `offer_tools`, as `providers/models.json` (`tool_offer`) records
Claude Code 2.1.330's choices per model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from yoke.tools.base import Tool, ToolContext, ToolInputError, ToolResult
from yoke.tools.registry import is_deferred


def offer_tools(registry: Any, *, deferred: Iterable[str] = (), withheld: Iterable[str] = ()) -> None:
    """Leave `withheld` tools out of the session and defer `deferred` ones behind a ToolSearch."""
    for name in withheld:
        registry.remove(name)
    any_deferred = False
    for name in deferred:
        tool = registry.get(name)
        if tool is not None and tool.name == name:
            tool.deferred = True
            any_deferred = True
    if any_deferred and registry.get("ToolSearch") is None:
        registry.register(ToolSearch(registry))
    registry.refresh()


def _words(text: str) -> list[str]:
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]


class ToolSearch(Tool):
    name = "ToolSearch"
    kind = "search"
    read_only = True
    concurrency_safe = False  # it changes which tools the next request carries

    def __init__(self, registry: Any):
        self.registry = registry

    def _pool(self) -> list[Any]:
        """Tools that can be deferred (they carry the flag), loaded or not."""
        return [t for t in self.registry if hasattr(t, "__dict__") and "deferred" in vars(t)]

    def deferred_tools(self) -> list[Any]:
        return [t for t in self._pool() if is_deferred(t)]

    @property
    def description(self) -> str:  # type: ignore[override]
        names = ", ".join(t.name for t in self.deferred_tools()) or "(none)"
        return (
            "Loads the full definitions of deferred tools so they can be called. Deferred tools are known by "
            'name only until loaded. Search by keywords (e.g. "github issue"; +word requires a word) or load '
            'exact tools with "select:name1,name2". Loaded tools are callable from your next step.\n\n'
            f"Deferred tools: {names}"
        )

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": 'keywords, or "select:<tool>,<tool>"'},
                "max_results": {"type": "number", "description": "most tools to load (default 5)"},
            },
            "required": ["query"],
        }

    def validate(self, input: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(input.get("query"), str):
            raise ToolInputError("`query` is required: keywords, or select:<tool>,<tool>")
        limit = input.get("max_results")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int | float)):
            raise ToolInputError("`max_results` must be a number")
        return input

    def search(self, query: str, limit: int) -> list[Any]:
        pool = self._pool()
        by_name = {t.name.lower(): t for t in pool}
        if query.strip().lower().startswith("select:"):
            wanted = [w.strip().lower() for w in query.split(":", 1)[1].split(",") if w.strip()]
            return [by_name[w] for w in wanted if w in by_name]
        terms = _words(query.replace("+", " "))
        required = [w.lower() for w in re.findall(r"\+(\w+)", query)]
        scored = []
        for tool in pool:
            name_words = set(_words(tool.name))
            desc = tool.description.lower()
            if any(r not in name_words and r not in desc for r in required):
                continue
            score = 0.0
            if query.strip().lower() == tool.name.lower():
                score += 12
            for term in terms:
                if term in name_words:
                    score += 6
                elif any(term in w for w in name_words):
                    score += 3
                if term in desc:
                    score += 2
            if score:
                scored.append((score, tool.name, tool))
        scored.sort(key=lambda s: (-s[0], s[1]))
        return [t for _, _, t in scored[:limit]]

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        limit = int(input.get("max_results") or 5)
        found = self.search(input["query"], max(1, limit))
        if not found:
            return ToolResult(f"No deferred tools match {input['query']!r}.", data={"matches": []})
        for tool in found:
            tool.deferred = False
        refresh = getattr(self.registry, "refresh", None)
        if callable(refresh):
            refresh()
        lines = ["Loaded these tools; call them directly from your next step:"]
        for tool in found:
            lines.append(
                json.dumps(
                    {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema()}
                )
            )
        return ToolResult("\n".join(lines), data={"matches": [t.name for t in found]})
