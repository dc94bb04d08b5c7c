"""`yoke stats --html FILE`: one self-contained page. The charts are SVG drawn here (stats_svg.py) and a few
lines of inline script (switch cost/tokens): no library, no font, no request leaves the page. Styled by the
remote page's one stylesheet (host/static/style.css, read as a data file), inlined, plus a few rules of its own."""

from __future__ import annotations

import json
from html import escape
from importlib import resources
from typing import Any

from yoke.cli.stats_svg import bar_chart, money, rate_table, timeline

STYLE = """
.totals{display:grid;grid-template-columns:repeat(auto-fit,minmax(9em,1fr));gap:8px;margin:8px 0 4px}
.totals div{background:var(--surface);border:1px solid var(--line);border-radius:var(--radius);padding:8px 12px;
  color:var(--muted);font-size:var(--s-sm)}
.totals b{display:block;font-size:var(--s-lg);color:var(--text)}
.switch{position:sticky;top:0;z-index:2;background:var(--bg);padding:8px 0;display:flex;gap:8px}
button.on{background:var(--accent);color:var(--accent-text);border-color:var(--accent)}
.chart{display:block;overflow:visible;margin:4px 0 12px;font:var(--s-sm) var(--font)}
.chart text{fill:var(--text)}.chart .v{fill:var(--muted)}
.chart .track,.rate .track{fill:var(--code)}.rate{display:block}.chart .axis{stroke:var(--line)}
rect.bar{fill:#3b78c4}rect.bar.err{fill:var(--bad)}rect.bar:hover{opacity:.8}
rect.s0{fill:#3b78c4}rect.s1{fill:#e08a1e}rect.s2{fill:#3a9d5d}rect.s3{fill:#b04fa8}rect.s4{fill:#c9514a}
rect.s5{fill:#2aa3a3}rect.s6{fill:#8a7a2e}rect.s7{fill:#7d8791}
.sw.s0{background:#3b78c4}.sw.s1{background:#e08a1e}.sw.s2{background:#3a9d5d}.sw.s3{background:#b04fa8}
.sw.s4{background:#c9514a}.sw.s5{background:#2aa3a3}.sw.s6{background:#8a7a2e}.sw.s7{background:#7d8791}
.legend{list-style:none;padding:0;margin:0 0 12px;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:var(--s-sm)}
.legend .sw{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:6px;vertical-align:-1px}
.grid{display:grid;gap:0 24px}@media (min-width:900px){.grid{grid-template-columns:1fr 1fr}}
table{border-collapse:collapse;width:100%;font-size:var(--s-sm)}
td,th{padding:6px 8px;text-align:left;border-bottom:1px solid var(--line);vertical-align:top}
th{white-space:nowrap}
td.n,th.n{text-align:right;white-space:nowrap}.rate-cell{width:35%;min-width:5em}
details.session{background:var(--surface);border:1px solid var(--line);border-radius:var(--radius);
  padding:8px 12px;margin:8px 0}
details.session summary{cursor:pointer;min-height:32px;font-family:var(--mono);font-size:var(--s-sm)}
body{padding-bottom:48px}
"""
SCRIPT = """
function show(metric){
  document.querySelectorAll('[data-metric]').forEach(function(el){
    el.style.display = el.getAttribute('data-metric') === metric ? '' : 'none';
  });
  document.querySelectorAll('button[data-for]').forEach(function(b){
    b.className = b.getAttribute('data-for') === metric ? 'on' : '';
    b.setAttribute('aria-pressed', String(b.getAttribute('data-for') === metric));
  });
}
document.querySelectorAll('button[data-for]').forEach(function(b){
  b.addEventListener('click', function(){ show(b.getAttribute('data-for')); });
});
show('cost');
"""


def _tokens(row: dict[str, Any]) -> int:
    return row["input"] + row["output"] + row["cache_read"] + row["cache_creation"]


def _count(n: float) -> str:
    return f"{int(n):,}"


def _metrics(title: str, cost: str, tokens: str) -> str:
    """One chart per metric; the buttons show one of them."""
    return f'<h2>{escape(title)}</h2><div data-metric="cost">{cost}</div><div data-metric="tokens">{tokens}</div>'


def _section(title: str, rows: dict[str, dict[str, Any]]) -> str:
    cost = [(name, row["cost_usd"], money(row["cost_usd"])) for name, row in rows.items()]
    tokens = [(name, float(_tokens(row)), f"{_tokens(row):,} tokens") for name, row in rows.items()]
    return _metrics(
        title, bar_chart(cost, label=f"{title}: cost"), bar_chart(tokens, label=f"{title}: tokens")
    )


def _timeline(title: str, by_day: dict[str, dict[str, dict[str, Any]]]) -> str:
    def cost(row: dict[str, Any]) -> float:
        return float(row["cost_usd"])

    def tokens(row: dict[str, Any]) -> float:
        return float(_tokens(row))

    return _metrics(
        title,
        timeline(by_day, cost, money, f"{title}: cost"),
        timeline(by_day, tokens, lambda n: f"{_count(n)} tokens", f"{title}: tokens"),
    )


def _rows(cells: list[list[str]]) -> str:
    return "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in cells)


def _table(head: list[str], cells: list[list[str]], css: str = "") -> str:
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    # focusable: a table wider than a phone scrolls in place, and a keyboard can scroll it too
    return (
        f'<div class="table-wrap" tabindex="0"><table class="{css}"><tr>{th}</tr>{_rows(cells)}</table></div>'
    )


def _drill(detail: dict[str, Any]) -> str:
    """One session's drill-down: turns, tools, sub-agents, and why it was expensive."""
    turns = [
        [money(t["cost_usd"]), str(t["requests"]), str(t["cause"]), t["prompt"] or t["uuid"][:8]]
        for t in sorted(detail["turns"], key=lambda t: -t["cost_usd"])
    ]
    why = [(row["cause"], row["cost_usd"], money(row["cost_usd"])) for row in detail["why"]]
    tools = [(name, row["cost_usd"], money(row["cost_usd"])) for name, row in detail["tools"].items()]
    agents = [[money(r["cost_usd"]), r["type"], a] for a, r in detail["subagents"].items()]
    misses = [
        [m["turn"], "; ".join(f"{c['kind']}: {c['detail']}" for c in m["causes"]), money(m["cost_usd"])]
        for m in detail["cache_misses"]
    ]
    return (
        '<div class="drill"><h3>Why was this expensive</h3>'
        + bar_chart(why, label="Why was this expensive")
        + "<h3>Turns by cost</h3>"
        + _table(["cost", "requests", "cause", "prompt"], turns, "turns")
        + "<h3>Tools (the results they added to the prompt)</h3>"
        + bar_chart(tools, label="Tools by cost")
        + "<h3>Sub-agents</h3>"
        + _table(["cost", "type", "agent"], agents)
        + "<h3>Cache misses</h3>"
        + _table(["turn", "cause", "cost"], misses, "misses")
        + "</div>"
    )


def _costliest(sessions: list[dict[str, Any]]) -> str:
    if not sessions:
        return ""
    parts = ["<h2>Costliest sessions</h2>"]
    for row in sessions:
        label = f"{row['id'][:8]}  {row['project']}  {money(row['cost_usd'])}"
        body = (
            _drill(row["drill"])
            if row.get("drill")
            else "<p>No per-request cost records (an older session).</p>"
        )
        parts.append(
            f'<details class="session" data-session="{escape(row["id"])}"><summary>{escape(label)}</summary>{body}</details>'
        )
    return "".join(parts)


def _stylesheet() -> str:
    # the remote page's stylesheet, read as a data file of the package (no code of yoke.host is imported)
    return resources.files("yoke").joinpath("host", "static", "style.css").read_text(encoding="utf-8")


def render_page(data: dict[str, Any]) -> str:
    total = data["total"]
    tools = data["tools"]
    tool_rows = [(name, float(row["calls"]), f"{row['calls']} calls") for name, row in tools.items()]
    slow = [
        [
            s["id"][:8],
            s["project"],
            (s["started"] or "")[:16],
            f"{s['duration_s']:.1f} s",
            money(s["cost_usd"]),
        ]
        for s in data["slowest_sessions"]
    ]
    cards = [
        ("sessions", f"{data['sessions']}"),
        ("cost", money(total["cost_usd"])),
        ("tokens", f"{_tokens(total):,}"),
        ("cache-hit rate", f"{data['cache_hit_rate']:.0%}"),
    ]
    return (
        '<!doctype html><html lang="en"><head><meta charset=utf-8><title>Yoke stats</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'\">"
        f"<style>{_stylesheet()}{STYLE}</style></head><body><main><h1>Yoke stats</h1>"
        '<div class="totals">'
        + "".join(f"<div>{escape(k)}<b>{escape(v)}</b></div>" for k, v in cards)
        + "</div>"
        '<div class="switch"><button data-for="cost">Cost</button><button data-for="tokens">Tokens</button></div>'
        + _timeline("Per day, by model", data.get("by_day_model") or {})
        + _timeline("Per day, by project", data.get("by_day_project") or {})
        + '<div class="grid"><section>'
        + _section("Per model", data["by_model"])
        + "</section><section>"
        + _section("Per project", data["by_project"])
        + "</section><section>"
        + "<h2>Most-used tools</h2>"
        + bar_chart(tool_rows, label="Most-used tools")
        + "</section><section>"
        + "<h2>Tool error rates</h2>"
        + rate_table(tools)
        + "</section></div>"
        + "<h2>Slowest sessions</h2>"
        + _table(["session", "project", "started", "duration", "cost"], slow)
        + _costliest(data.get("costliest_sessions") or [])
        + f'<script type="application/json" id="stats-data">{escape(json.dumps(data))}</script>'
        + f"<script>{SCRIPT}</script></main></body></html>"
    )
