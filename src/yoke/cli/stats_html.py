"""`yoke stats --html FILE`: one self-contained page. The charts are SVG drawn here and a few lines of inline
script (switch cost/tokens, hover for figures): no library, no font, no request leaves the page."""

from __future__ import annotations

import json
from html import escape
from typing import Any

ROW_H = 22
LABEL_W = 220
BAR_W = 460

STYLE = """
body{font:14px system-ui,sans-serif;margin:2em;color:#222;background:#fafafa}
h1{font-size:20px}h2{font-size:16px;margin-top:1.6em}
.totals{display:flex;gap:1.5em;flex-wrap:wrap}.totals div{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.6em 1em}
.totals b{display:block;font-size:18px}
svg text{font:12px system-ui,sans-serif}svg .v{fill:#555}
rect.bar{fill:#4a7bd0}rect.bar.err{fill:#d05a4a}rect.bar:hover{fill:#1d4fa8}
button{margin-right:.5em}button.on{font-weight:bold}
table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left}td.n{text-align:right}
"""

SCRIPT = """
function show(metric){
  document.querySelectorAll('[data-metric]').forEach(function(el){
    el.style.display = el.getAttribute('data-metric') === metric ? '' : 'none';
  });
  document.querySelectorAll('button[data-for]').forEach(function(b){
    b.className = b.getAttribute('data-for') === metric ? 'on' : '';
  });
}
document.querySelectorAll('button[data-for]').forEach(function(b){
  b.addEventListener('click', function(){ show(b.getAttribute('data-for')); });
});
show('cost');
"""


def _tokens(row: dict[str, Any]) -> int:
    return row["input"] + row["output"] + row["cache_read"] + row["cache_creation"]


def bar_chart(rows: list[tuple[str, float, str]], css: str = "bar") -> str:
    """Horizontal bars: (label, value, shown text). An SVG with a <title> tooltip on each bar."""
    if not rows:
        return "<p>No data.</p>"
    largest = max(value for _, value, _ in rows) or 1.0
    height = ROW_H * len(rows) + 4
    parts = [f'<svg class="chart" width="{LABEL_W + BAR_W + 120}" height="{height}" role="img">']
    for i, (label, value, shown) in enumerate(rows):
        y = i * ROW_H + 2
        width = max(1.0, value / largest * BAR_W) if value else 0.0
        parts.append(
            f'<text x="{LABEL_W - 8}" y="{y + 15}" text-anchor="end">{escape(label[-34:])}</text>'
            f'<rect class="{css}" x="{LABEL_W}" y="{y + 2}" width="{width:.1f}" height="{ROW_H - 6}">'
            f"<title>{escape(label)}: {escape(shown)}</title></rect>"
            f'<text class="v" x="{LABEL_W + width + 6:.1f}" y="{y + 15}">{escape(shown)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _section(title: str, rows: dict[str, dict[str, Any]]) -> str:
    cost = [(name, row["cost_usd"], f"${row['cost_usd']:,.2f}") for name, row in rows.items()]
    tokens = [(name, float(_tokens(row)), f"{_tokens(row):,} tokens") for name, row in rows.items()]
    return (
        f"<h2>{escape(title)}</h2>"
        f'<div data-metric="cost">{bar_chart(cost)}</div>'
        f'<div data-metric="tokens">{bar_chart(tokens)}</div>'
    )


def _rows(cells: list[list[str]]) -> str:
    return "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in cells)


def _drill(detail: dict[str, Any]) -> str:
    """One session's drill-down: turns, tools, sub-agents, and why it was expensive."""
    turns = [
        [f"${t['cost_usd']:.4f}", str(t["requests"]), str(t["cause"]), t["prompt"] or t["uuid"][:8]]
        for t in sorted(detail["turns"], key=lambda t: -t["cost_usd"])
    ]
    why = [(row["cause"], row["cost_usd"], f"${row['cost_usd']:.4f}") for row in detail["why"]]
    tools = [(name, row["cost_usd"], f"${row['cost_usd']:.4f}") for name, row in detail["tools"].items()]
    agents = [[f"${r['cost_usd']:.4f}", r["type"], a] for a, r in detail["subagents"].items()]
    misses = [
        [m["turn"], "; ".join(f"{c['kind']}: {c['detail']}" for c in m["causes"]), f"${m['cost_usd']:.4f}"]
        for m in detail["cache_misses"]
    ]
    return (
        '<div class="drill"><h3>Why was this expensive</h3>'
        + bar_chart(why)
        + "<h3>Turns by cost</h3><table class=turns><tr><th>cost</th><th>requests</th><th>cause</th><th>prompt</th></tr>"
        + _rows(turns)
        + "</table><h3>Tools (the results they added to the prompt)</h3>"
        + bar_chart(tools)
        + "<h3>Sub-agents</h3><table><tr><th>cost</th><th>type</th><th>agent</th></tr>"
        + _rows(agents)
        + "</table><h3>Cache misses</h3><table class=misses><tr><th>turn</th><th>cause</th><th>cost</th></tr>"
        + _rows(misses)
        + "</table></div>"
    )


def _costliest(sessions: list[dict[str, Any]]) -> str:
    if not sessions:
        return ""
    parts = ["<h2>Costliest sessions</h2>"]
    for row in sessions:
        label = f"{row['id'][:8]}  {row['project']}  ${row['cost_usd']:,.4f}"
        body = (
            _drill(row["drill"])
            if row.get("drill")
            else "<p>No per-request cost records (an older session).</p>"
        )
        parts.append(
            f'<details class="session" data-session="{escape(row["id"])}"><summary>{escape(label)}</summary>{body}</details>'
        )
    return "".join(parts)


def render_page(data: dict[str, Any]) -> str:
    total = data["total"]
    tools = data["tools"]
    tool_rows = [(name, float(row["calls"]), f"{row['calls']} calls") for name, row in tools.items()]
    error_rows = [
        (
            name,
            row["errors"] / row["calls"] if row["calls"] else 0.0,
            f"{row['errors']} errors of {row['calls']}",
        )
        for name, row in tools.items()
    ]
    slow = "".join(
        f"<tr><td>{escape(s['id'][:8])}</td><td>{escape(s['project'])}</td><td>{escape((s['started'] or '')[:16])}</td>"
        f"<td class=n>{s['duration_s']:.1f} s</td><td class=n>${s['cost_usd']:,.2f}</td></tr>"
        for s in data["slowest_sessions"]
    )
    cards = [
        ("sessions", f"{data['sessions']}"),
        ("cost", f"${total['cost_usd']:,.2f}"),
        ("tokens", f"{_tokens(total):,}"),
        ("cache-hit rate", f"{data['cache_hit_rate']:.0%}"),
    ]
    return (
        "<!doctype html><html><head><meta charset=utf-8><title>Yoke stats</title>"
        "<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'\">"
        f"<style>{STYLE}</style></head><body><h1>Yoke stats</h1>"
        '<div class="totals">'
        + "".join(f"<div>{escape(k)}<b>{escape(v)}</b></div>" for k, v in cards)
        + "</div>"
        '<p><button data-for="cost">Cost</button><button data-for="tokens">Tokens</button></p>'
        + _section("Per day", data["by_day"])
        + _section("Per model", data["by_model"])
        + _section("Per project", data["by_project"])
        + "<h2>Most-used tools</h2>"
        + bar_chart(tool_rows)
        + "<h2>Tool error rates</h2>"
        + bar_chart(error_rows, "bar err")
        + "<h2>Slowest sessions</h2><table><tr><th>session</th><th>project</th><th>started</th><th>duration</th>"
        + f"<th>cost</th></tr>{slow}</table>"
        + _costliest(data.get("costliest_sessions") or [])
        + f'<script type="application/json" id="stats-data">{escape(json.dumps(data))}</script>'
        + f"<script>{SCRIPT}</script></body></html>"
    )
