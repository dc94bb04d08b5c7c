"""Reading command output from its file with a cap: head and tail kept, the middle elided."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAX_OUTPUT_CHARS = 30_000
MAX_OUTPUT_CEILING = 150_000  # BASH_MAX_OUTPUT_LENGTH may raise the cap up to here


# The `bashOutputMaxChars` setting, carried in the session's environment (session/build.py); it replaces
# BASH_MAX_OUTPUT_LENGTH and is clamped to 4,000-128,000 characters, as 2.1.330 documents the setting.
SETTING_ENV = "YOKE_BASH_OUTPUT_MAX_CHARS"
SETTING_RANGE = (4_000, 128_000)


def setting_limit(value: object) -> str | None:
    """The environment value for a `bashOutputMaxChars` setting (None when it is not a positive integer)."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return str(max(SETTING_RANGE[0], min(value, SETTING_RANGE[1])))


def max_output_chars(env: dict[str, str]) -> int:
    """The cap on model-facing output: the bashOutputMaxChars setting, else BASH_MAX_OUTPUT_LENGTH (as
    Claude Code reads it)."""
    if env.get(SETTING_ENV, "").isdigit():
        return int(env[SETTING_ENV])
    raw = env.get("BASH_MAX_OUTPUT_LENGTH", "")
    try:
        value = int(raw)
    except ValueError:
        return DEFAULT_MAX_OUTPUT_CHARS
    return max(1_000, min(value, MAX_OUTPUT_CEILING)) if value > 0 else DEFAULT_MAX_OUTPUT_CHARS


@dataclass(slots=True, frozen=True)
class OutputChunk:
    text: str  # what the model gets (possibly with the middle elided)
    end: int  # byte offset just past what was read: the next read starts here
    total_chars: int  # length of the full text read (estimated from bytes when very large)
    elided: bool


def read_capped(path: Path, start: int = 0, limit: int = DEFAULT_MAX_OUTPUT_CHARS) -> OutputChunk:
    """The file's text from byte `start` to its current end, keeping `limit` characters at most.

    Very large spans are never read whole: only a head and a tail slice come off the disk.
    """
    try:
        size = os.path.getsize(path)
    except OSError:
        return OutputChunk("", start, 0, False)
    span = max(0, size - start)
    with open(path, "rb") as f:
        f.seek(start)
        if span <= limit * 4:
            text = f.read(span).decode("utf-8", errors="replace")
            if len(text) <= limit:
                return OutputChunk(text, start + span, len(text), False)
            total = len(text)
            head, tail = text[: limit // 2], text[-(limit - limit // 2) :]
        else:
            head = f.read(limit * 2).decode("utf-8", errors="replace")[: limit // 2]
            f.seek(start + span - limit * 2)
            tail = f.read(limit * 2).decode("utf-8", errors="replace")[-(limit - limit // 2) :]
            total = span  # bytes: close enough for a note to the model
    omitted = max(0, total - len(head) - len(tail))
    text = f"{head}\n\n... [{omitted} characters omitted] ...\n\n{tail}"
    return OutputChunk(text, start + span, total, True)


def persisted_note(path: Path, chunk: OutputChunk) -> str:
    return (
        f"[Output was {chunk.total_chars} characters, so the middle was omitted. "
        f"The full output is saved at {path}; use Read or Grep on it to see the rest.]"
    )
