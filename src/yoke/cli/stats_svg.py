"""The charts of `yoke stats --html`, as plain inline SVG: lengths in percent, so a chart is as wide as its
column (no horizontal scroll on a 390 px phone) while its text keeps its size. No library, no script."""

from __future__ import annotations

from html import escape
from typing import Any

ROW_H = 34  # a bar row: its label line, then the bar
TIMELINE_H = 180
PALETTE = 8  # series drawn in their own colour (.s0 … .s7); the rest together as "other"


def money(usd: float) -> str:
    """A cost to the cent or finer: three significant digits under a dollar, never "$0.00" for a paid
    request under a cent (the page's list says it the same way: host/static/list.js)."""
    if usd <= 0:
        return "$0.00"
    if usd < 0.0001:
        return "<$0.0001"
    if usd < 1:
        return f"${usd:#.3g}"
    return f"${usd:,.2f}"


def _short(label: str, width: int = 34) -> str:
    """A label that leaves room for its figure on a phone: its end, which names a path's project."""
    return label if len(label) <= width else "…" + label[-(width - 1) :]


def bar_chart(rows: list[tuple[str, float, str]], css: str = "bar", label: str = "") -> str:
    """Horizontal bars, one row each: the label and the figure on a line, the bar (relative to the largest)
    below. Each bar's <title> is its tooltip."""
    if not rows:
        return "<p>No data.</p>"
    largest = max(value for _, value, _ in rows) or 1.0
    parts = [
        f'<svg class="chart" width="100%" height="{ROW_H * len(rows)}" role="img" aria-label="{escape(label)}">'
    ]
    for i, (name, value, shown) in enumerate(rows):
        y = i * ROW_H
        width = max(0.4, value / largest * 100) if value else 0.0
        parts.append(
            f'<text x="0" y="{y + 13}">{escape(_short(name))} <tspan class="v">{escape(shown)}</tspan></text>'
            f'<rect class="track" x="0" y="{y + 18}" width="100%" height="10" rx="2"></rect>'
            f'<rect class="{css}" x="0" y="{y + 18}" width="{width:.2f}%" height="10" rx="2">'
            f"<title>{escape(name)}: {escape(shown)}</title></rect>"
        )  # fmt: skip
    parts.append("</svg>")
    return "".join(parts)


def _series(by_day: dict[str, dict[str, dict[str, Any]]], value: Any) -> list[str]:
    """The series names, largest first; past the palette the rest are drawn together as "other"."""
    totals: dict[str, float] = {}
    for cells in by_day.values():
        for name, row in cells.items():
            totals[name] = totals.get(name, 0.0) + value(row)
    names = sorted(totals, key=lambda n: -totals[n])
    return names[: PALETTE - 1] + (["other"] if len(names) >= PALETTE else names[PALETTE - 1 :])


def timeline(by_day: dict[str, dict[str, dict[str, Any]]], value: Any, shown: Any, label: str) -> str:
    """Cost or tokens per day as stacked columns, one colour a series (a model or a project), with a legend.
    `value(row)` is the figure drawn, `shown(x)` its text."""
    if not by_day:
        return "<p>No data.</p>"
    names = _series(by_day, value)
    days = list(by_day)
    stacks = []
    for day in days:
        cells: dict[str, float] = {}
        for name, row in by_day[day].items():
            key = name if name in names else "other"
            cells[key] = cells.get(key, 0.0) + value(row)
        stacks.append(cells)
    top = max(sum(c.values()) for c in stacks) or 1.0
    plot_top, plot_h = 18, TIMELINE_H - 40
    step = 100 / max(len(days), 7)  # a week's width at least: one day is a column, not a wall
    gap = min(step * 0.2, 1.5)
    parts = [
        f'<svg class="chart timeline" width="100%" height="{TIMELINE_H}" role="img" aria-label="{escape(label)}">',
        f'<text x="0" y="12" class="v">max {escape(shown(top))} a day</text>',
        f'<line class="axis" x1="0" x2="100%" y1="{plot_top + plot_h}" y2="{plot_top + plot_h}"></line>',
    ]
    for i, (day, cells) in enumerate(zip(days, stacks, strict=True)):
        base = float(plot_top + plot_h)
        for n, name in enumerate(names):
            amount = cells.get(name, 0.0)
            if not amount:
                continue
            height = amount / top * plot_h
            base -= height
            parts.append(
                f'<rect class="bar s{n}" x="{i * step + gap / 2:.3f}%" y="{base:.2f}" width="{step - gap:.3f}%" '
                f'height="{max(height, 0.5):.2f}"><title>{escape(day)} · {escape(name)}: {escape(shown(amount))}'
                "</title></rect>"
            )  # fmt: skip
    bottom = TIMELINE_H - 6
    parts.append(f'<text x="0" y="{bottom}" class="v">{escape(days[0])}</text>')
    if len(days) > 1:
        parts.append(f'<text x="100%" y="{bottom}" text-anchor="end" class="v">{escape(days[-1])}</text>')
    parts.append("</svg>")
    legend = "".join(
        f'<li><span class="sw s{n}"></span>{escape(_short(name, 48))}</li>' for n, name in enumerate(names)
    )
    return "".join(parts) + f'<ul class="legend">{legend}</ul>'


def rate_table(tools: dict[str, dict[str, int]]) -> str:
    """Tool error rates as rates: the share of calls that failed, a bar whose full width is 100 % (one error
    in two calls is half a bar), and the counts it comes from."""
    if not tools:
        return "<p>No tool calls.</p>"
    rows = []
    for name, row in sorted(tools.items(), key=lambda kv: (-kv[1]["errors"], -kv[1]["calls"])):
        calls, errors = row["calls"], row["errors"]
        rate = errors / calls if calls else 0.0
        bar = (
            '<svg class="rate" width="100%" height="10" aria-hidden="true">'
            '<rect class="track" x="0" y="0" width="100%" height="10" rx="2"></rect>'
            f'<rect class="bar err" x="0" y="0" width="{rate * 100:.2f}%" height="10" rx="2"></rect></svg>'
        )
        rows.append(
            f"<tr><td>{escape(name)}</td><td class=n>{rate:.0%}</td><td class=n>{errors} of {calls}</td>"
            f'<td class="rate-cell">{bar}</td></tr>'
        )
    head = (
        '<tr><th>tool</th><th class=n>error rate</th><th class=n>failed</th><th class="rate-cell"></th></tr>'
    )
    return f'<div class="table-wrap" tabindex="0"><table class="rates">{head}{"".join(rows)}</table></div>'
