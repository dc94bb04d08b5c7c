"""The memory directory's files, read and written in Claude Code's layout.

One Markdown file per memory with frontmatter `name`, `description`, `type` (user, feedback, project,
reference) and, as Yoke's optional additions, `expiresAt` (an ISO date or time after which it is no
longer loaded) and `confidence` (0..1). `MEMORY.md` is the index: one `- [Title](file.md) — hook` line
per memory, loaded into every session up to 200 lines and 25,000 bytes.

Every write is atomic (a temporary file renamed over the target), so a crash leaves the old file or the
new one, never half of either; the full-text index is derived from the files and catches up by mtime.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from yoke.fsutil import append_line, replace_file
from yoke.memory.markdown import parse_frontmatter
from yoke.records import Record, dataclass

if TYPE_CHECKING:  # datetime is imported where a memory's date is read: most runs read none
    from datetime import datetime

INDEX_NAME = "MEMORY.md"
MAX_INDEX_LINES = 200
MAX_INDEX_BYTES = 25_000
TYPES = ("user", "feedback", "project", "reference")
_LINK = re.compile(r"\]\(([^)\s]+\.md)\)")


@dataclass(frozen=True, slots=True)
class Memory:
    path: Path
    name: str
    description: str
    type: str
    body: str
    expires_at: datetime | None = None
    confidence: float | None = None

    def expired(self, now: datetime | None = None) -> bool:
        from datetime import UTC, datetime

        return self.expires_at is not None and self.expires_at <= (now or datetime.now(UTC))


def parse_time(value: object) -> datetime | None:
    """`2026-12-31`, `2026-12-31T18:00`, `...Z` or with an offset; a date means the end of that day (UTC)."""
    from datetime import UTC, datetime

    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        if len(text) == 10:
            return datetime.fromisoformat(text).replace(hour=23, minute=59, second=59, tzinfo=UTC)
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def parse_memory(path: Path, text: str) -> Memory:
    meta, body = parse_frontmatter(text)
    name = meta.get("name")
    confidence: float | None
    try:
        raw = meta.get("confidence")
        confidence = float(raw) if isinstance(raw, str) else None
    except ValueError:
        confidence = None
    kind = meta.get("type")
    description = meta.get("description")
    return Memory(
        path=path,
        name=name if isinstance(name, str) and name else path.stem,
        description=description if isinstance(description, str) else "",
        type=kind if isinstance(kind, str) and kind in TYPES else "",
        body=body.strip(),
        expires_at=parse_time(meta.get("expiresAt")),
        confidence=confidence,
    )


def read_memory(path: Path) -> Memory | None:
    try:
        return parse_memory(path, path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None


def memory_paths(directory: Path) -> list[Path]:
    """Every memory file: `*.md` below the directory except the index, hidden files (a crashed write's
    temporary file among them) and hidden folders."""
    found: list[Path] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if (
                name.endswith(".md")
                and not name.startswith(".")
                and not (root == str(directory) and name == INDEX_NAME)
            ):
                found.append(Path(root) / name)
    return found


def list_memories(directory: Path, include_expired: bool = True) -> list[Memory]:
    memories = [m for m in (read_memory(p) for p in memory_paths(directory)) if m is not None]
    return memories if include_expired else [m for m in memories if not m.expired()]


# ---- the index --------------------------------------------------------------------------------------


class IndexText(Record):
    __slots__ = ("text", "total_lines", "loaded_lines", "truncated")

    def __init__(self, text: str, total_lines: int, loaded_lines: int, truncated: bool) -> None:
        self.text = text  # what the session loads
        self.total_lines = total_lines  # lines in the file (after dropping expired entries)
        self.loaded_lines = loaded_lines
        self.truncated = truncated


def load_index(directory: Path, now: datetime | None = None) -> IndexText:
    """MEMORY.md as a session loads it: lines pointing at expired memories dropped, then cut at a line
    boundary to 200 lines and 25,000 bytes, with a note saying how much was left out."""
    try:
        raw = (directory / INDEX_NAME).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return IndexText("", 0, 0, False)
    lines = [line for line in raw.splitlines() if not _points_at_expired(line, directory, now)]
    kept: list[str] = []
    size = 0
    for line in lines:
        cost = len(line.encode("utf-8")) + 1
        if len(kept) >= MAX_INDEX_LINES or size + cost > MAX_INDEX_BYTES:
            break
        kept.append(line)
        size += cost
    text = "\n".join(kept).rstrip()
    truncated = len(kept) < len(lines)
    if truncated:
        text += (
            f"\n\n[MEMORY.md has {len(lines)} lines; only the first {len(kept)} were loaded (limits: "
            f"{MAX_INDEX_LINES} lines, {MAX_INDEX_BYTES:,} bytes). Keep it a short index: move detail into "
            "topic files and shorten or merge entries.]"
        )
    return IndexText(text, len(lines), len(kept), truncated)


def _points_at_expired(line: str, directory: Path, now: datetime | None) -> bool:
    match = _LINK.search(line)
    if not match or "://" in match.group(1):
        return False
    target = directory / match.group(1)
    if not target.is_file():
        return False
    memory = read_memory(target)
    return memory is not None and memory.expired(now)


# ---- writing ----------------------------------------------------------------------------------------


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:60] or "memory"


def render_memory(
    name: str,
    description: str,
    type: str,
    body: str,
    expires_at: str | None = None,
    confidence: float | None = None,
) -> str:
    lines = ["---", f"name: {_one_line(name)}", f"description: {_one_line(description)}", f"type: {type}"]
    if expires_at:
        lines.append(f"expiresAt: {_one_line(expires_at)}")
    if confidence is not None:
        lines.append(f"confidence: {confidence:g}")
    return "\n".join([*lines, "---", "", body.strip(), ""])


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def write_memory(directory: Path, filename: str, content: str, index_line: str | None = None) -> Path:
    """Write one memory file, then (if given) its index line, each atomically. The memory file goes first:
    a crash in between leaves a memory without an index line (still recalled), never a dangling line."""
    path = directory / filename
    replace_file(path, content.encode("utf-8"))
    if index_line:
        add_index_line(directory, index_line)
    return path


def add_index_line(directory: Path, line: str) -> None:
    append_line(directory / INDEX_NAME, line)  # two sessions' extractions at once both keep theirs


def index_line(title: str, filename: str, hook: str) -> str:
    return f"- [{_one_line(title)}]({filename}) — {_one_line(hook)}"


def forget(directory: Path, path: Path) -> bool:
    """Delete a memory file and its index lines. The index goes first: a crash in between leaves an
    unlisted file (still a memory), never a line pointing nowhere."""
    index = directory / INDEX_NAME
    rel = path.relative_to(directory).as_posix()
    try:
        lines = index.read_text(encoding="utf-8").splitlines(keepends=True)
    except FileNotFoundError:
        lines = []
    kept = [line for line in lines if f"]({rel})" not in line]
    if len(kept) != len(lines):
        replace_file(index, "".join(kept).encode("utf-8"))
    try:
        path.unlink()
    except FileNotFoundError:
        return len(kept) != len(lines)
    return True
