"""The report as one self-contained HTML page: inline CSS and SVG charts, no script, no outside request."""

from __future__ import annotations

from html import escape
from typing import Any

from yoke.batch.report import group_of

COLOURS = {
    "passed": "#2e9d57",
    "grader fail": "#d9822b",
    "timeout": "#8a63d2",
    "budget": "#c7a600",
    "model error": "#d64545",
    "crash": "#555",
}


def report_html(report: dict[str, Any], rows: list[dict[str, Any]], title: str = "") -> str:
    sections = [
        _model_section(model, r, [row for row in rows if group_of(row) == model])
        for model, r in report["models"].items()
    ]
    body = "\n".join(sections) or "<p>No finished attempts yet.</p>"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>yoke batch report</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; margin: .5em 0 1.5em; }}
td, th {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}
th {{ background: #f3f3f3; }} td:first-child, th:first-child {{ text-align: left; }}
.charts {{ display: flex; gap: 2em; flex-wrap: wrap; }} h3 {{ margin: .2em 0; font-size: 13px; }}
</style></head><body>
<h1>yoke batch report</h1><p>{escape(title)}</p>
{body}
</body></html>
"""


def _model_section(model: str, r: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    c, w = r["cost_usd"], r["wall_s"]
    table = (
        "<table><tr><th>tasks</th><th>attempts</th><th>passed</th><th>pass@1</th><th>cost total</th>"
        "<th>cost mean</th><th>cost p95</th><th>time mean</th><th>time p95</th></tr>"
        f"<tr><td>{r['tasks']}</td><td>{r['attempts']}</td><td>{r['passed']}</td><td>{100 * r['pass@1']:.1f}%</td>"
        f"<td>${c['total']:.4f}</td><td>${c['mean']:.4f}</td><td>${c['p95']:.4f}</td>"
        f"<td>{w['mean']:.2f} s</td><td>{w['p95']:.2f} s</td></tr></table>"
    )
    pass_k = [(f"pass@{k}", v) for k, v in r["pass@k"].items()]
    outcomes = [("passed", r["passed"])] + [(k, n) for k, n in r["failures"].items()]
    walls = [float(row.get("wall_s") or 0) for row in rows]
    charts = (
        _bars("pass@k", [(k, v) for k, v in pass_k], 1.0, lambda v: f"{100 * v:.1f}%")
        + _bars("outcomes", outcomes, max([n for _, n in outcomes] + [1]), lambda v: str(int(v)))
        + _histogram("time per attempt (s)", walls)
    )
    ran = f" ({escape(', '.join(r['ran']))})" if r["ran"] and r["ran"] != [model] else ""
    return f'<h2>{escape(model)}{ran}</h2>\n{table}\n<div class="charts">{charts}</div>'


def _bars(title: str, items: list[tuple[str, float]], top: float, label: Any) -> str:
    width, row_h = 360, 22
    height = row_h * len(items) + 4
    parts = []
    for i, (name, value) in enumerate(items):
        y = i * row_h + 2
        length = 0 if top <= 0 else (width - 170) * value / top
        colour = COLOURS.get(name, "#3b7dd8")
        parts.append(
            f'<text x="0" y="{y + 15}" font-size="12">{escape(name)}</text>'
            f'<rect x="100" y="{y + 3}" width="{length:.1f}" height="{row_h - 6}" fill="{colour}"/>'
            f'<text x="{104 + length:.1f}" y="{y + 15}" font-size="12">{escape(label(value))}</text>'
        )
    return _svg(title, width, height, "".join(parts))


def _histogram(title: str, values: list[float], bins: int = 12) -> str:
    width, height = 360, 140
    if not values:
        return _svg(title, width, height, "")
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - low) / span * bins))] += 1
    top = max(counts)
    bar_w = (width - 20) / bins
    parts = [
        f'<rect x="{10 + i * bar_w:.1f}" y="{110 - 100 * n / top:.1f}" width="{bar_w - 2:.1f}" height="{100 * n / top:.1f}" fill="#3b7dd8"/>'
        for i, n in enumerate(counts)
    ]
    parts.append(f'<text x="10" y="128" font-size="11">{low:.2f}</text>')
    parts.append(f'<text x="{width - 10}" y="128" font-size="11" text-anchor="end">{high:.2f}</text>')
    return _svg(title, width, height, "".join(parts))


def _svg(title: str, width: int, height: int, inner: str) -> str:
    return (
        f'<figure><h3>{escape(title)}</h3><svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">{inner}</svg></figure>'
    )
