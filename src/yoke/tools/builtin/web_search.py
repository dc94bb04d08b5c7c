"""WebSearch: a web search through the configured back-end (Brave, Tavily or SearXNG)."""

from __future__ import annotations

import json
import time
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from yoke.tools.base import Tool, ToolContext, ToolError, ToolKind, ToolResult
from yoke.tools.schema import ToolInput

DESCRIPTION = """\
Searches the web and returns result titles, links and snippets. Use it for information newer than your \
training data or that you are unsure of: current versions, recent releases, documentation, error messages.
- `allowed_domains` limits results to those sites; `blocked_domains` leaves sites out. Use one or the other, \
not both.
- Results are links and short snippets; fetch a page with WebFetch to read it in full.
- After answering from search results, end your answer with a "Sources:" section listing the pages you used \
as Markdown links ([title](url)).
- Mind the current date from your context when you search for recent things (e.g. include the year).\
"""


class WebSearchInput(ToolInput):
    query: str = Field(min_length=2, description="The search query")
    allowed_domains: list[str] | None = Field(
        default=None, description="Only include results from these domains"
    )
    blocked_domains: list[str] | None = Field(
        default=None, description="Never include results from these domains"
    )


class WebSearchTool(Tool):
    name: ClassVar[str] = "WebSearch"
    kind: ClassVar[ToolKind] = "fetch"
    description: ClassVar[str] = DESCRIPTION
    input_model: ClassVar[type[BaseModel]] = WebSearchInput
    read_only: ClassVar[bool] = True
    concurrency_safe: ClassVar[bool] = True
    timeout_s: ClassVar[float | None] = 60.0

    def summary(self, input: Any) -> str:
        return f"WebSearch({input.query})" if isinstance(input, WebSearchInput) else self.name

    async def run(self, input: WebSearchInput, ctx: ToolContext) -> ToolResult:
        from yoke.tools.shell.script import settings_env
        from yoke.tools.web.search import DomainLimits, choose_backend, run_search

        if input.allowed_domains and input.blocked_domains:
            raise ToolError("Give allowed_domains or blocked_domains, not both.")
        started = time.monotonic()
        backend = choose_backend(settings_env(ctx))
        limits = DomainLimits(tuple(input.allowed_domains or ()), tuple(input.blocked_domains or ()))
        hits = await run_search(backend, input.query, limits)
        lines = [f'Web search results for query: "{input.query}"', ""]
        if not hits:
            lines.append("No results found.")
        for number, hit in enumerate(hits, 1):
            lines.append(f"{number}. [{hit.title}]({hit.url})")
            if hit.snippet:
                lines.append(f"   {' '.join(hit.snippet.split())}")
        lines += [
            "",
            "Links: " + json.dumps([{"title": h.title, "url": h.url} for h in hits], ensure_ascii=False),
            "",
            'REMINDER: end your answer with a "Sources:" section listing the pages you used, '
            "as Markdown links.",
        ]
        data = {
            "query": input.query,
            "results": [
                {
                    "tool_use_id": ctx.tool_use_id or f"search_{backend.name}",
                    "content": [{"title": h.title, "url": h.url} for h in hits],
                }
            ],
            "durationSeconds": round(time.monotonic() - started, 3),
        }
        return ToolResult("\n".join(lines), data=data)
