"""One session's money, drilled down: its turns, tools and sub-agents by cost, and why it was expensive.

Reads the session's `request_cost` records (`session/spend_records.py`, one per priced request, sub-agents'
included). Each request's cost is split, exactly, into the answer (`output`), the prompt read from the cache
(`cacheRead`) and the prompt not read from it (`newPrompt`); the last is shared between the tool results the
request added to the prompt, by their size, and the rest of what was new (the prompt, notices). Every cent of
a request goes to its turn, so the turns add up to the session's total.

"Why was this expensive" ranks causes by dollars: the unread prompt of requests that missed the cache, by the
miss's cause (a tool-list change, a system prompt block, a model switch, an expired cache, a compaction);
tool results that made prompts larger, by tool; answers; re-reading the cached context; compaction and the
other side requests; sub-agents.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

_CAUSE_NAMES = {
    "tool_list": "cache miss: the tool list changed",
    "system_prompt": "cache miss: a system prompt block changed",
    "model_switch": "cache miss: the model switched",
    "ttl_expired": "cache miss: the cache expired (idle over 5 min)",
    "compaction": "cache miss: the history was compacted",
    "history_changed": "cache miss: earlier messages changed",
    "first_request": "first request: nothing cached yet",
    "unexplained": "cache miss: not explained by what Yoke sent",
}


def _records(path: Path) -> list[dict[str, Any]]:
    """The transcript's records (none when it cannot be read)."""
    from yoke.session.transcript import load_records

    try:
        return list(load_records(path))
    except OSError:
        return []


def _prompt_text(record: dict[str, Any]) -> str:
    content = (record.get("message") or {}).get("content")
    if isinstance(content, str):
        return content
    texts = [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
    return " ".join(texts)


def _add(table: dict[str, dict[str, Any]], key: str, cost: float, **extra: Any) -> dict[str, Any]:
    row = table.setdefault(key, {"cost_usd": 0.0, "requests": 0, **extra})
    row["cost_usd"] += cost
    return row


def drill(path: Path) -> dict[str, Any]:
    """The drill-down of the session whose transcript is `path` (plain JSON-ready data)."""
    records = _records(path)
    prompts: dict[str, str] = {}
    agent_types: dict[str, str] = {}  # the Agent call's id -> the sub-agent's type
    turn_total = 0.0
    for record in records:
        if record.get("type") == "user" and not record.get("isMeta") and isinstance(record.get("uuid"), str):
            text = _prompt_text(record)
            if text:
                prompts[record["uuid"]] = " ".join(text.split())[:80]
        elif record.get("type") == "assistant":
            for block in (record.get("message") or {}).get("content") or []:
                if (
                    isinstance(block, dict)
                    and block.get("type") == "tool_use"
                    and block.get("name") in ("Agent", "Task")
                ):
                    given = block.get("input") or {}
                    agent_types[str(block.get("id"))] = str(given.get("subagent_type") or "general-purpose")
        elif record.get("type") == "system" and record.get("subtype") == "turn_result":
            turn_total = float(record.get("totalCostUsd") or turn_total)
    turns: dict[str, dict[str, Any]] = {}
    tools: dict[str, dict[str, Any]] = {}
    agents: dict[str, dict[str, Any]] = {}
    causes: dict[str, float] = {}
    misses: list[dict[str, Any]] = []
    total = 0.0
    for record in records:
        if record.get("type") != "system" or record.get("subtype") != "request_cost":
            continue
        cost = float(record.get("costUSD") or 0.0)
        total += cost
        parts = record.get("costParts") or {}
        new_prompt = float(parts.get("newPrompt") or 0.0)
        uuid = str(record.get("promptUuid") or "")
        turn = _add(
            turns, uuid, cost, prompt=prompts.get(uuid, ""), cause=record.get("cause") or record.get("source")
        )
        turn["requests"] += 1
        source = str(record.get("source") or "turn")
        if source != "turn":
            causes[source.replace("_", " ")] = causes.get(source.replace("_", " "), 0.0) + cost
            continue
        agent = str(record.get("agentId") or "main")
        if agent != "main":
            label = agent_types.get(str(record.get("parentToolUseId")), "sub-agent")
            row = _add(agents, agent, cost, type=label)
            row["requests"] += 1
            causes[f"sub-agent: {label}"] = causes.get(f"sub-agent: {label}", 0.0) + cost
            continue
        missed = record.get("cacheMiss") or []
        if missed:
            kind = missed[0].get("kind", "unexplained")
            name = _CAUSE_NAMES.get(kind, f"cache miss: {kind}")
            causes[name] = causes.get(name, 0.0) + new_prompt
            if kind != "first_request":
                misses.append(
                    {
                        "turn": prompts.get(uuid, ""),
                        "cost_usd": cost,
                        "causes": missed,
                        "message": record.get("messageUuid"),
                    }
                )
        else:
            chars = int(record.get("newChars") or 0)
            shared = 0.0
            for _, name, size in record.get("newResults") or []:
                share = new_prompt * size / chars if chars else 0.0
                shared += share
                _add(tools, name, share)["requests"] += 1
                key = f"tool results added to the prompt: {name}"
                causes[key] = causes.get(key, 0.0) + share
            causes["new prompt text"] = causes.get("new prompt text", 0.0) + new_prompt - shared
        causes["answers (output)"] = causes.get("answers (output)", 0.0) + float(parts.get("output") or 0.0)
        causes["context re-read from the cache"] = causes.get("context re-read from the cache", 0.0) + float(
            parts.get("cacheRead") or 0.0
        )
    ranked = sorted(((name, cost) for name, cost in causes.items() if cost > 0), key=lambda kv: -kv[1])
    return {
        "id": path.stem,
        "total_cost_usd": total,
        "recorded_total_usd": turn_total,
        "turns": [{"uuid": k, **v} for k, v in turns.items()],
        "tools": dict(sorted(tools.items(), key=lambda kv: -kv[1]["cost_usd"])),
        "subagents": dict(sorted(agents.items(), key=lambda kv: -kv[1]["cost_usd"])),
        "why": [{"cause": name, "cost_usd": cost} for name, cost in ranked],
        "cache_misses": misses,
    }


def drill_text(data: dict[str, Any]) -> str:
    """The drill-down as terminal lines."""
    lines = [
        f"Session {data['id']}: ${data['total_cost_usd']:.4f} over {len(data['turns'])} turn(s)"
        + (f" (its result lines say ${data['recorded_total_usd']:.4f})" if data["recorded_total_usd"] else "")
    ]
    lines.append("Turns by cost:")
    for turn in sorted(data["turns"], key=lambda t: -t["cost_usd"]):
        lines.append(
            f"  ${turn['cost_usd']:.4f}  {turn['requests']:>3} req  [{turn['cause']}]  {turn['prompt'] or turn['uuid'][:8]}"
        )
    if data["tools"]:
        lines.append("Tools (the results they added to the prompt):")
        lines += [f"  ${row['cost_usd']:.4f}  {name}" for name, row in data["tools"].items()]
    if data["subagents"]:
        lines.append("Sub-agents:")
        lines += [
            f"  ${row['cost_usd']:.4f}  {row['type']} ({agent})" for agent, row in data["subagents"].items()
        ]
    lines.append("Why was this expensive:")
    lines += [f"  ${row['cost_usd']:.4f}  {row['cause']}" for row in data["why"]]
    for miss in data["cache_misses"]:
        detail = "; ".join(f"{c['kind']}: {c['detail']}" for c in miss["causes"])
        lines.append(f"  cache miss in “{miss['turn']}”: {detail}")
    return "\n".join(lines)
