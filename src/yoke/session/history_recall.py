"""`Recall`: after a compaction, the model can get the dropped turns back, word for word.

Claude Code 2.1.332 has no tool that searches a compacted conversation (its "recall" is auto memory's), so
the name is Yoke's own. The tool is read-only and searches only the dropped range: the conversation records
of this session's transcript written before its newest compaction that dropped turns. It reuses auto
memory's recall index (`memory/recall.py`: SQLite FTS5, BM25, Porter stemming) rather than a second search
engine: each dropped message is written once as a small file of that index's shape under the session's
folder (`recall/<uuid>.md`), and the index keeps up with the files as it does for memories. A hit is
answered with the original message read back from the transcript, not the indexed copy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import Field

from yoke.tools.base import Tool, ToolContext, ToolError, ToolResult
from yoke.tools.schema import ToolInput

MAX_RESULTS = 8
MAX_ANSWER_CHARS = 40_000

DESCRIPTION = """\
Get back, word for word, messages of this conversation that compaction summarized away.

- query: words to search the dropped messages for (a constraint, a decision, a file, a figure); the best \
matches come back as the original messages, with their ids.
- range: two message ids from the ledger in the compaction summary ([first, last]); every dropped message \
from the first to the last comes back, in order.
- Read-only; it searches only what compaction dropped (the rest is still in your context)."""


class RecallInput(ToolInput):
    query: str | None = Field(None, description="Words to search the compacted messages for")
    range: list[str] | None = Field(
        None, description="[first, last] message ids from the ledger: return that range in order"
    )
    limit: int = Field(5, description="At most this many messages for a query (1-8)")


def _records(path: Path) -> list[dict[str, Any]]:
    """The transcript's records (none when it cannot be read)."""
    from yoke.session.transcript import load_records

    try:
        return list(load_records(path))
    except OSError:
        return []


def dropped_records(path: Path) -> list[dict[str, Any]]:
    """The conversation records written before the newest compaction that dropped turns (none: none)."""
    records = _records(path)
    last = None
    for index, record in enumerate(records):
        if record.get("subtype") == "compact_boundary" and "keptMessages" in record:
            last = index
    if last is None:
        return []
    return [
        r
        for r in records[:last]
        if r.get("type") in ("user", "assistant")
        and isinstance(r.get("uuid"), str)
        and not r.get("isSidechain")
    ]


def message_text(record: dict[str, Any]) -> str:
    """A record's message as it was: text verbatim, tool calls and results in full."""
    message = record.get("message") or {}
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "tool_use":
            parts.append(
                f"[tool call {block.get('name')} {block.get('id')}: {json.dumps(block.get('input'))}]"
            )
        elif kind == "tool_result":
            inner = block.get("content")
            if isinstance(inner, list):
                inner = "\n".join(str(b.get("text", "")) for b in inner if isinstance(b, dict))
            parts.append(f"[tool result {block.get('tool_use_id')}]\n{inner}")
    return "\n".join(parts)


class DroppedIndex:
    """The dropped messages of one session, in auto memory's recall index."""

    def __init__(self, transcript: Path, session_dir: Path):
        self.transcript = transcript
        self.folder = session_dir / "recall"
        self._index: Any = None

    def sync(self) -> dict[str, dict[str, Any]]:
        """Write a file for every dropped message not written yet; the dropped records by uuid."""
        from yoke.memory.store import render_memory

        dropped = {r["uuid"]: r for r in dropped_records(self.transcript)}
        self.folder.mkdir(parents=True, exist_ok=True)
        for uuid, record in dropped.items():
            target = self.folder / f"{uuid}.md"
            if target.exists():
                continue
            role = (record.get("message") or {}).get("role") or record.get("type")
            about = f"{role} {record.get('timestamp') or ''}"
            target.write_text(render_memory(uuid, about, "", message_text(record)), encoding="utf-8")
        return dropped

    def search(self, query: str, limit: int) -> list[str]:
        if self._index is None:
            from yoke.memory.recall import RecallIndex

            self._index = RecallIndex(self.folder, self.folder.parent / "recall.db")
        return [hit.name for hit in self._index.search(query, limit=limit)]


class RecallTool(Tool):
    name = "Recall"
    kind = "search"
    description = DESCRIPTION
    input_model = RecallInput
    read_only = True
    concurrency_safe = True

    def __init__(self, transcript: Path, session_dir: Path):
        self.index = DroppedIndex(transcript, session_dir)

    def summary(self, input: Any) -> str:
        return f"Recall {input.query or ' .. '.join(input.range or [])}"

    async def run(self, input: RecallInput, ctx: ToolContext) -> ToolResult:
        dropped = self.index.sync()
        if not dropped:
            return ToolResult("Nothing has been compacted away in this conversation.", data={"messages": []})
        if input.range:
            ids = list(dropped)
            first, last = input.range[0], input.range[-1]
            if first not in dropped or last not in dropped:
                raise ToolError("That range is not among the compacted messages; use ids from the ledger.")
            chosen = ids[ids.index(first) : ids.index(last) + 1]
        elif input.query and input.query.strip():
            chosen = self.index.search(input.query, max(1, min(input.limit, MAX_RESULTS)))
            chosen.sort(key=list(dropped).index)  # in the order they were said
        else:
            raise ToolError("Give a query or a range.")
        if not chosen:
            return ToolResult("No compacted message matches that query.", data={"messages": []})
        parts: list[str] = []
        size = 0
        for uuid in chosen:
            record = dropped[uuid]
            role = (record.get("message") or {}).get("role") or record.get("type")
            part = f'<message id="{uuid}" role="{role}" time="{record.get("timestamp") or ""}">\n{message_text(record)}\n</message>'
            if size + len(part) > MAX_ANSWER_CHARS:
                parts.append(f"[{len(chosen) - len(parts)} more not shown: narrow the range or the query]")
                break
            parts.append(part)
            size += len(part)
        return ToolResult("\n\n".join(parts), data={"messages": chosen})


def offer_recall(registry: Any, transcript: Path, session_dir: Path) -> None:
    """Give the model the Recall tool (once): after a compaction, or on resuming a compacted session."""
    if registry.get("Recall") is None:
        registry.register(RecallTool(transcript, session_dir))
