"""System prompt assembly.

The prompt is a list of text blocks: the static part first (identical for every session with the same
tools), then the dynamic sections for this session (environment, git snapshot, memory files, auto memory,
output style),
then `--append-system-prompt`. Build it once per session and reuse it for every request: nothing in it
changes per turn, so it stays inside the prompt-cache prefix.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from yoke.context.git import format_git, git_context
from yoke.context.static_prompt import static_prompt
from yoke.memory.files import MemoryIndex, format_memory
from yoke.messages import Block, text_block

if TYPE_CHECKING:
    from datetime import date


async def build_system_prompt(
    *,
    cwd: Path,
    model: str,
    tool_names: list[str],
    override: str | None = None,
    append: str | None = None,
    memory: bool = True,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    memory_index: MemoryIndex | None = None,
    output_style: str | None = None,
    keep_coding_instructions: bool = True,
    additional_dirs: Sequence[Path] = (),
    today: date | None = None,
    git_pending: asyncio.Future | None = None,
    auto_memory: str | None = None,
) -> list[Block]:
    """The system prompt blocks for a session.

    override: `--system-prompt` (replaces the static part and the environment sections; memory files still
    follow unless `memory=False`). append: `--append-system-prompt`. home: the user's home directory (for
    `~/.claude/CLAUDE.md` and `~` imports). memory_index: the session's index, when the caller keeps one for
    loading nested memory files later (otherwise one is built here). git_pending: `git_context(cwd)` already
    started by a caller that had other start-up work to overlap with git's subprocesses. auto_memory: the
    auto-memory section (guidance plus the MEMORY.md index; `yoke.memory.section`), placed after the memory
    files; it follows `memory` like they do.
    """
    env = os.environ if env is None else env
    cwd = Path(cwd)
    if env.get("YOKE_SIMPLE") or env.get("CLAUDE_CODE_SIMPLE"):
        return [text_block(f"Working directory: {cwd}\nToday's date: {_iso_day(today)}")]

    git_task = None
    if override is None:
        git_task = git_pending if git_pending is not None else asyncio.ensure_future(git_context(cwd))
    elif git_pending is not None:
        git_pending.cancel()
    if memory and memory_index is None:
        memory_index = await asyncio.to_thread(MemoryIndex, cwd, home=home, env=env)
    git = await git_task if git_task is not None else None

    blocks: list[Block] = []
    if override is None:
        blocks.append(text_block(static_prompt(tool_names, coding=keep_coding_instructions)))
        environment = environment_section(cwd, model, env, additional_dirs, today, is_git=git is not None)
        blocks.append(text_block(environment + ("\n\n" + format_git(git) if git else "")))
    elif override.strip():
        blocks.append(text_block(override))
    if memory and memory_index is not None:
        memory_text = format_memory(memory_index.files)
        if memory_text:
            blocks.append(text_block(memory_text))
    if memory and auto_memory and auto_memory.strip():
        blocks.append(text_block(auto_memory))
    if output_style and output_style.strip():
        blocks.append(text_block("# Output style\n" + output_style.strip()))
    if append and append.strip():
        blocks.append(text_block(append))
    return blocks


def environment_section(
    cwd: Path,
    model: str,
    env: Mapping[str, str],
    additional_dirs: Sequence[Path] = (),
    today: date | None = None,
    is_git: bool = False,
) -> str:
    shell = os.path.basename(env.get("SHELL", "")) or ("cmd" if os.name == "nt" else "sh")
    lines = [
        "# Environment",
        f"Working directory: {cwd}",
    ]
    if additional_dirs:
        lines.append("Additional working directories: " + ", ".join(str(d) for d in additional_dirs))
    lines += [
        f"Git repository: {'yes' if is_git else 'no'}",
        f"Platform: {_platform()}",
        f"Shell: {shell}",
        f"Today's date: {_iso_day(today)}",
        f"Model: {model}",
    ]
    return "\n".join(lines)


def system_prompt_text(blocks: Sequence[Block]) -> str:
    """The blocks joined, for providers whose system prompt is one string."""
    return "\n\n".join(b.get("text", "") for b in blocks if b.get("text"))


def _platform() -> str:
    """`linux 6.1.0`: the kernel's name and release (os.uname; `platform` costs an import and regexes)."""
    if hasattr(os, "uname"):
        system, _, release, _, _ = os.uname()
        return f"{system.lower()} {release}"
    import platform

    return f"{platform.system().lower() or os.name} {platform.release()}".rstrip()


def _iso_day(today: date | None) -> str:
    """`today`, or the local date, as YYYY-MM-DD (time.strftime: a run need not import datetime)."""
    return today.isoformat() if today is not None else time.strftime("%Y-%m-%d")
