"""`yoke stats`'s figures: what the transcripts already hold, no collector needed.

Reads every transcript under the session stores (Yoke's `projects/` and, for Yoke's default home, Claude
Code's) and sums cost and tokens per day, model and project, cache hits, tool calls and their errors, and each
session's length. Cost comes from the `turn_result` records Yoke writes (the figures its result line printed,
priced once from models.json by the session's ledger); a transcript without them (Claude Code's own) is
priced per assistant message with the same table.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from yoke import jsonsafe

TOKEN_KINDS = ("input", "output", "cache_read", "cache_creation")
_USAGE_KEYS = {
    "input": ("inputTokens", "input_tokens"),
    "output": ("outputTokens", "output_tokens"),
    "cache_read": ("cacheReadInputTokens", "cache_read_input_tokens"),
    "cache_creation": ("cacheCreationInputTokens", "cache_creation_input_tokens"),
}


class StatsError(Exception):
    """Bad filter values; the text says what to write instead."""


def parse_since(value: str, now: datetime | None = None) -> datetime:
    """`2026-11-01`, `2026-11-01T09:00`, or a span back from now: `7d`, `12h`, `2w`."""
    now = now or datetime.now(UTC)
    text = value.strip().lower()
    units = {"d": "days", "h": "hours", "w": "weeks"}
    if text[-1:] in units and text[:-1].isdigit():
        return now - timedelta(**{units[text[-1]]: int(text[:-1])})
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise StatsError(
            f"--since {value!r}: give a date (2026-11-01) or a span back from now (7d, 12h, 2w)"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _bucket() -> dict[str, Any]:
    return {"cost_usd": 0.0, **{kind: 0 for kind in TOKEN_KINDS}}


def _add(bucket: dict[str, Any], cost: float, tokens: dict[str, int]) -> None:
    bucket["cost_usd"] += cost
    for kind in TOKEN_KINDS:
        bucket[kind] += tokens.get(kind, 0)


def _tokens(usage: dict[str, Any]) -> dict[str, int]:
    out = {}
    for kind, keys in _USAGE_KEYS.items():
        out[kind] = int(next((usage[k] for k in keys if isinstance(usage.get(k), int | float)), 0))
    return out


def _when(record: dict[str, Any]) -> datetime | None:
    stamp = record.get("timestamp")
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class _Session:
    """One transcript's contribution, built record by record."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.id = path.stem
        self.project = ""
        self.start: datetime | None = None
        self.end: datetime | None = None
        self.cost_usd = 0.0
        self.tokens = dict.fromkeys(TOKEN_KINDS, 0)
        self.entries: list[
            tuple[datetime | None, str, float, dict[str, int]]
        ] = []  # (when, model, cost, tokens)
        self.tool_names: dict[str, str] = {}
        self.tool_calls: list[tuple[str, bool]] = []  # (name, is_error)
        self._seen: dict[str, dict[str, float]] = {}  # model -> cumulative figures at the last turn_result
        self._priced: dict[str, tuple[datetime | None, str, dict[str, int]]] = {}  # fallback, per message id
        self.has_results = False

    def read(self, record: dict[str, Any]) -> None:
        when = _when(record)
        if when is not None:
            self.start = when if self.start is None or when < self.start else self.start
            self.end = when if self.end is None or when > self.end else self.end
        if not self.project and isinstance(record.get("cwd"), str):
            self.project = record["cwd"]
        kind = record.get("type")
        raw_message = record.get("message")
        message: dict[str, Any] = raw_message if isinstance(raw_message, dict) else {}
        if kind == "system" and record.get("subtype") == "turn_result":
            self._turn_result(record, when)
        elif kind == "assistant":
            for block in message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    self.tool_names[str(block.get("id"))] = str(block.get("name"))
            usage = message.get("usage")
            if isinstance(usage, dict) and message.get("model") and message.get("model") != "<synthetic>":
                # Claude Code writes one record per content block, each with the message's usage
                key = str(message.get("id") or record.get("uuid") or len(self._priced))
                self._priced[key] = (when, str(message["model"]), _tokens(usage))
        elif kind == "user":
            for block in message.get("content") or [] if isinstance(message.get("content"), list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    name = self.tool_names.get(str(block.get("tool_use_id")), "?")
                    self.tool_calls.append((name, bool(block.get("is_error"))))

    def _turn_result(self, record: dict[str, Any], when: datetime | None) -> None:
        """`modelUsage` is the session's running total: what is new since the last one happened now."""
        self.has_results = True
        for model, figures in (record.get("modelUsage") or {}).items():
            if not isinstance(figures, dict):
                continue
            now = {"cost_usd": float(figures.get("costUSD") or 0.0), **_tokens(figures)}
            before = self._seen.get(model, {})
            delta_cost = now["cost_usd"] - before.get("cost_usd", 0.0)
            delta = {kind: int(now[kind] - before.get(kind, 0)) for kind in TOKEN_KINDS}
            self._seen[model] = now
            if delta_cost or any(delta.values()):
                self.entries.append((when, model, delta_cost, delta))

    def finish(self, subagents: list[_Session]) -> None:
        """Sub-agents' transcripts add their tool calls; their cost is in the parent's `turn_result` (one
        ledger), or, in a transcript without them, priced with the parent's answers."""
        for sub in subagents:
            self.tool_calls += sub.tool_calls
            if not self.has_results:
                self._priced.update({f"{sub.id}:{key}": value for key, value in sub._priced.items()})
        if not self.has_results:  # Claude Code's transcript: price each answer with models.json
            from yoke.session.admin.stats import answer_cost

            for when, model, tokens in self._priced.values():
                self.entries.append((when, model, answer_cost(model, tokens), tokens))
        for _, _, cost, tokens in self.entries:
            self.cost_usd += cost
            for kind in TOKEN_KINDS:
                self.tokens[kind] += tokens[kind]


def transcript_paths(home: Path) -> list[Path]:
    from yoke.session.claude_transcripts import session_roots

    paths: dict[str, Path] = {}
    for root in session_roots(home):
        projects = root / "projects"
        if projects.is_dir():
            for path in sorted(projects.glob("*/*.jsonl")):
                paths.setdefault(path.stem, path)  # a session Yoke adopted from Claude Code: Yoke's copy
    return list(paths.values())


def _records(path: Path, session: _Session) -> _Session:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return session
    for line in text.splitlines():
        try:
            record = jsonsafe.loads(line)
        except ValueError:
            continue  # a torn last line
        if isinstance(record, dict):
            session.read(record)
    return session


def _read(path: Path) -> _Session:
    session = _records(path, _Session(path))
    folder = path.with_suffix("") / "subagents"
    subagents = (
        [_records(sub, _Session(sub)) for sub in sorted(folder.glob("*.jsonl"))] if folder.is_dir() else []
    )
    session.finish(subagents)
    return session


def collect(
    home: Path, since: datetime | None = None, project: str | None = None, paths: list[Path] | None = None
) -> dict[str, Any]:
    """Everything `yoke stats` shows, as plain JSON-ready data (the `--json` output)."""
    days: dict[str, dict[str, Any]] = {}
    models: dict[str, dict[str, Any]] = {}
    projects: dict[str, dict[str, Any]] = {}
    tools: dict[str, dict[str, int]] = {}
    day_models: dict[str, dict[str, dict[str, Any]]] = {}  # the timeline: day -> model -> figures
    day_projects: dict[str, dict[str, dict[str, Any]]] = {}  # day -> project -> figures
    sessions: list[dict[str, Any]] = []
    total = _bucket()
    for path in paths if paths is not None else transcript_paths(home):
        session = _read(path)
        if project and project not in (session.project or str(path.parent)):
            continue
        entries = [e for e in session.entries if since is None or (e[0] is not None and e[0] >= since)]
        if since is not None and not entries and (session.end is None or session.end < since):
            continue
        name = session.project or path.parent.name
        cost = 0.0
        for when, model, entry_cost, tokens in entries:
            day = when.date().isoformat() if when is not None else "unknown"
            _add(days.setdefault(day, _bucket()), entry_cost, tokens)
            _add(day_models.setdefault(day, {}).setdefault(model, _bucket()), entry_cost, tokens)
            _add(day_projects.setdefault(day, {}).setdefault(name, _bucket()), entry_cost, tokens)
            _add(models.setdefault(model, _bucket()), entry_cost, tokens)
            _add(projects.setdefault(name, {**_bucket(), "sessions": 0}), entry_cost, tokens)
            _add(total, entry_cost, tokens)
            cost += entry_cost
        projects.setdefault(name, {**_bucket(), "sessions": 0})["sessions"] += 1
        for tool, failed in session.tool_calls:
            row = tools.setdefault(tool, {"calls": 0, "errors": 0})
            row["calls"] += 1
            row["errors"] += int(failed)
        duration = (session.end - session.start).total_seconds() if session.start and session.end else 0.0
        sessions.append(
            {
                "path": str(path),
                "id": session.id,
                "project": name,
                "started": session.start.isoformat() if session.start else None,
                "duration_s": round(duration, 3),
                "cost_usd": cost,
            }
        )
    prompt = total["input"] + total["cache_read"] + total["cache_creation"]
    return {
        "since": since.isoformat() if since else None,
        "project": project,
        "sessions": len(sessions),
        "total": total,
        "cache_hit_rate": (total["cache_read"] / prompt) if prompt else 0.0,
        "by_day": dict(sorted(days.items())),
        "by_day_model": dict(sorted(day_models.items())),
        "by_day_project": dict(sorted(day_projects.items())),
        "by_model": dict(sorted(models.items(), key=lambda kv: -kv[1]["cost_usd"])),
        "by_project": dict(sorted(projects.items(), key=lambda kv: -kv[1]["cost_usd"])),
        "tools": dict(sorted(tools.items(), key=lambda kv: -kv[1]["calls"])),
        "slowest_sessions": sorted(sessions, key=lambda s: -s["duration_s"])[:10],
        "costliest_sessions": _costliest(sessions),
    }


def _costliest(sessions: list[dict[str, Any]], count: int = 10) -> list[dict[str, Any]]:
    """The sessions that cost most, each with its drill-down (`stats_drill.py`) when it has cost records."""
    from yoke.cli.stats_drill import drill

    out = []
    for row in sorted(sessions, key=lambda s: -s["cost_usd"])[:count]:
        detail = drill(Path(row["path"]))
        out.append({**row, "drill": detail if detail["turns"] else None})
    return out
