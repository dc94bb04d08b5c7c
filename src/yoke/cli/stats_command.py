"""`yoke stats [--since WHEN] [--project TEXT] [--json] [--html FILE]`: cost, tokens and tools from the
transcripts (yoke.cli.stats_data), as terminal tables with bars, JSON, or one self-contained HTML page."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

BAR_WIDTH = 28


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="yoke stats",
        description="Cost, tokens, cache hits and tool use from your session transcripts (no collector needed).",
    )
    parser.add_argument(
        "--since", help="only what happened since a date (2026-11-01) or a span (7d, 12h, 2w)"
    )
    parser.add_argument("--project", help="only projects whose folder contains this text")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--session",
        metavar="ID",
        help="one session drilled down: turns, tools and sub-agents by cost, and why",
    )
    parser.add_argument("--html", metavar="FILE", help="write one self-contained page of charts to FILE")
    args = parser.parse_args(argv)
    from yoke.cli.stats_data import StatsError, collect, parse_since
    from yoke.session.transcript import yoke_home

    try:
        since = parse_since(args.since) if args.since else None
    except StatsError as exc:
        print(f"yoke stats: {exc}", file=sys.stderr)
        return 2
    if args.session:
        return _one_session(args.session, args.json)
    data = collect(yoke_home(), since=since, project=args.project)
    if args.html:
        from yoke.cli.stats_html import render_page

        try:
            Path(args.html).write_text(render_page(data), encoding="utf-8")
        except OSError as exc:
            print(f"yoke stats: cannot write {args.html}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(f"wrote {args.html}")
        return 0
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    show(data)
    return 0


def _one_session(session: str, as_json: bool) -> int:
    from yoke.cli.stats_drill import drill, drill_text
    from yoke.session.store import SessionError, find_session
    from yoke.session.transcript import yoke_home

    try:
        path = find_session(session, Path.cwd(), yoke_home())
    except SessionError as exc:
        print(f"yoke stats: {exc}", file=sys.stderr)
        return 1
    data = drill(path)
    print(json.dumps(data, indent=2) if as_json else drill_text(data))
    return 0


def _money(value: float) -> str:
    from yoke.cli.stats_svg import money  # to the cent or finer, as the page says it

    return money(value)


def _tokens(bucket: dict[str, Any]) -> int:
    return bucket["input"] + bucket["output"] + bucket["cache_read"] + bucket["cache_creation"]


def _bar(value: float, largest: float) -> str:
    if largest <= 0:
        return ""
    cells = value / largest * BAR_WIDTH
    return "█" * int(cells) + ("▌" if cells - int(cells) >= 0.5 else "")


def show(data: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    total = data["total"]
    scope = f" since {data['since'][:16]}" if data["since"] else ""
    scope += f" in projects matching {data['project']!r}" if data["project"] else ""
    console.print(
        f"[bold]{data['sessions']} session{'' if data['sessions'] == 1 else 's'}{scope}[/]: {_money(total['cost_usd'])}, {_tokens(total):,} tokens "
        f"({total['input']:,} in, {total['output']:,} out, {total['cache_read']:,} cache reads, "
        f"{total['cache_creation']:,} cache writes); cache-hit rate {data['cache_hit_rate']:.0%}"
    )
    for title, rows in (
        ("Per day", data["by_day"]),
        ("Per model", data["by_model"]),
        ("Per project", data["by_project"]),
    ):
        if not rows:
            continue
        table = Table(title=title, title_justify="left", box=None, pad_edge=False)
        for column, justify in (
            (title[4:].capitalize(), "left"),
            ("cost", "right"),
            ("", "left"),
            ("tokens", "right"),
        ):
            table.add_column(column, justify=justify)  # type: ignore[arg-type]
        largest = max(row["cost_usd"] for row in rows.values())
        for name, row in rows.items():
            table.add_row(
                name,
                _money(row["cost_usd"]),
                f"[cyan]{_bar(row['cost_usd'], largest)}[/]",
                f"{_tokens(row):,}",
            )
        console.print(table)
    for table in (_tools_table(data), _slowest_table(data), _costliest_table(data)):
        if table is not None:
            console.print(table)


def _tools_table(data: dict[str, Any]) -> Any:
    """The most-used tools, with their error rates (None: no tool was called)."""
    from rich.table import Table

    if not data["tools"]:
        return None
    table = Table(title="Most-used tools", title_justify="left", box=None, pad_edge=False)
    for column, justify in (("tool", "left"), ("calls", "right"), ("", "left"), ("errors", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    largest = max(row["calls"] for row in data["tools"].values())
    for name, row in list(data["tools"].items())[:12]:
        rate = row["errors"] / row["calls"] if row["calls"] else 0.0
        table.add_row(
            name,
            str(row["calls"]),
            f"[green]{_bar(row['calls'], largest)}[/]",
            f"{row['errors']} ({rate:.0%})",
        )
    return table


def _slowest_table(data: dict[str, Any]) -> Any:
    """The five slowest sessions (None: no session)."""
    from rich.table import Table

    if not data["slowest_sessions"]:
        return None
    table = Table(title="Slowest sessions", title_justify="left", box=None, pad_edge=False)
    for column in ("session", "project", "started", "duration", "cost"):
        table.add_column(column, justify="right" if column in ("duration", "cost") else "left")
    for row in data["slowest_sessions"][:5]:
        table.add_row(
            row["id"][:8],
            row["project"],
            (row["started"] or "")[:16],
            f"{row['duration_s']:.1f} s",
            _money(row["cost_usd"]),
        )
    return table


def _costliest_table(data: dict[str, Any]) -> Any:
    """The five costliest sessions, with what cost most in each (None: no session)."""
    from rich.table import Table

    rows = [row for row in data.get("costliest_sessions") or [] if row["cost_usd"] > 0]
    if not rows:
        return None
    table = Table(
        title="Costliest sessions (drill down: yoke stats --session ID)",
        title_justify="left",
        box=None,
        pad_edge=False,
    )
    for column in ("session", "project", "cost", "most of it"):
        table.add_column(column, justify="right" if column == "cost" else "left")
    for row in rows[:5]:
        why = (row.get("drill") or {}).get("why") or []
        top = f"{why[0]['cause']} ({_money(why[0]['cost_usd'])})" if why else ""
        table.add_row(row["id"][:8], row["project"], _money(row["cost_usd"]), top)
    return table
