"""`# note`: a one-line prompt starting with `#` saves the note to a memory file instead of asking the model.

Claude Code's terminal had this shortcut (it asked which file; version 2.0.70 removed it in favour of
asking Claude to edit CLAUDE.md). Yoke keeps it for headless runs: `--memory-target` picks the file,
`project` (`./CLAUDE.md`, the default), `user` (`~/.claude/CLAUDE.md`) or `local` (`./CLAUDE.local.md`).
Only a single-line prompt of the form `# text` counts; a Markdown document that opens with a heading
(more lines, or `## ...`) goes to the model as always. The note is appended as a `- text` line; the
write is atomic, and notes saved at once are all kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from yoke.fsutil import append_line
from yoke.memory.files import config_dir

TARGETS = ("project", "user", "local")


def note_text(prompt: str) -> str | None:
    """The note in a `# note` prompt, or None when the prompt is an ordinary one."""
    text = prompt.strip()
    if "\n" in text or not text.startswith("#") or text.startswith("##"):
        return None
    note = text[1:].strip()
    return note or None


def target_path(target: str, cwd: Path, env: Mapping[str, str], home: Path | None = None) -> Path:
    if target == "user":
        return config_dir(env, home) / "CLAUDE.md"
    if target == "local":
        return cwd / "CLAUDE.local.md"
    existing = [p for p in (cwd / "CLAUDE.md", cwd / ".claude" / "CLAUDE.md") if p.is_file()]
    return existing[0] if existing else cwd / "CLAUDE.md"


def save_note(note: str, path: Path) -> None:
    """Append `- note` atomically; notes saved at once (20 `yoke -p "# ..."` in parallel) are all kept."""
    append_line(path, f"- {note}")
