"""What `yoke sessions list --from <agent>` and the `/resume` picker show of another agent's session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path


@dataclass(frozen=True)
class ForeignInfo:
    source: str  # "codex", "gemini", "opencode"
    id: str  # what `yoke --resume <source>:<id>` takes
    path: Path
    cwd: str
    modified: datetime
    first_prompt: str
    messages: int

    @property
    def ref(self) -> str:
        return f"{self.source}:{self.id}"


def one_match(matches: list[Path], agent: str, ref: str, where: Path) -> Path:
    """The one file `ref` names, or a one-line error: none, or several (a prefix too short)."""
    from yoke.session.foreign.history import ForeignFormatError

    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise ForeignFormatError(f"{agent} session id {ref!r} is ambiguous; give more characters.")
    raise ForeignFormatError(f"No {agent} session {ref!r} under {where}.")


def mtime(path: Path) -> float:
    """When a file was last written (0 when it cannot be read): what lists sort by."""
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def one_line(text: str, limit: int = 120) -> str:
    return " ".join(text.split())[:limit]
