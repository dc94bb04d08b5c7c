"""`/context`: a coloured grid of what fills the context window, then the detailed report."""

from __future__ import annotations

from typing import Any

from rich.text import Text

CELLS = 50  # one cell = 2% of the window
CATEGORIES = (("System prompt", "magenta"), ("Tools", "cyan"), ("Messages", "green"), ("Free space", "dim"))


def context_grid(usage: Any, report: str) -> list[Any]:
    """`usage` is the session's `context_measure()`; the report below the grid is made from the same."""
    window = usage.window
    used = [usage.system, usage.tools, usage.messages]
    sizes = [*used, max(0, window - sum(used))]
    cells: list[Any] = []
    for (_label, style), tokens in zip(CATEGORIES, sizes, strict=True):
        count = round(CELLS * tokens / window) if window else 0
        if tokens and not count and style != "dim":
            count = 1
        cells += [style] * count
    cells = (cells + ["dim"] * CELLS)[:CELLS]
    grid = Text()
    for i, style in enumerate(cells):
        grid.append("⛁ " if style != "dim" else "⛶ ", style=style)
        if i % 10 == 9:
            grid.append("\n")
    legend = Text()
    legend.append(
        f"{usage.model} · {sum(used):,}/{window:,} tokens ({100 * sum(used) / window:.0f}%)\n", style="bold"
    )
    for (label, style), tokens in zip(CATEGORIES, sizes, strict=True):
        legend.append("⛁ ", style=style)
        legend.append(f"{label}: {tokens:,} tokens ({100 * tokens / window:.1f}%)\n")
    return [grid, legend, Text(report, style="dim")]
