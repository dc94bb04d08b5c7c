"""The parts of a skill body that run or read something before the model sees it.

`` !`command` `` (and fenced blocks opened with ```` ```! ````) run through the session's permission
pipeline and are replaced by their output; `@path` references (outside code) bring the file's text in. Both
go through a `Permit` the session provides, so a command that is not allowed, or a file the session may not
read, is never run or read: with nobody to approve (headless), a question is a no.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from yoke.memory.markdown import find_imports
from yoke.records import Record
from yoke.regex import lazy_compile

# `!` right before a backtick span, at the start of a line or after whitespace
_INLINE = lazy_compile(r"(?:(?<=\s)|^)!`([^`\n]+)`", re.M)
_FENCED = lazy_compile(r"^```!\s*\n(.*?)\n```\s*$", re.M | re.S)
MAX_INLINE_FILE_CHARS = 100_000


class InlineError(Exception):
    """A block that may not run (or failed to): the message says which and why."""


class Verdict(Record):
    __slots__ = ("allowed", "reason", "updated_input", "confinement")

    allowed: bool
    reason: str
    updated_input: dict | None  # a hook or the person rewrote the call: run this instead
    # The gate's `Decision.confinement` (a fast path allowed it: it runs held to what was judged), or None
    confinement: Any

    def __init__(
        self, allowed: bool, reason: str = "", updated_input: dict | None = None, confinement: Any = None
    ) -> None:
        self.allowed = allowed
        self.reason = reason
        self.updated_input = updated_input
        self.confinement = confinement


# (tool name, tool input) -> may it run; the session asks its gate (and asker) with the skill's grants.
Permit = Callable[[str, dict], Awaitable[Verdict]]
# (command, the verdict's confinement) -> its output (stdout and stderr), run as the Bash tool runs a call
# the gate allowed with that confinement
RunShell = Callable[[str, Any], Awaitable[str]]


def has_shell_blocks(body: str) -> bool:
    return bool(_INLINE.search(body) or _FENCED.search(body))


async def run_shell_blocks(body: str, permit: Permit | None, run: RunShell | None) -> str:
    """The body with every `` !`cmd` `` block replaced by the command's output. Raises InlineError when a
    command is not allowed (nothing runs after it)."""
    if not has_shell_blocks(body):
        return body
    if permit is None or run is None:
        raise InlineError("it runs shell commands (!`…`), and this session cannot run them")

    async def output_of(command: str) -> str:
        verdict = await permit("Bash", {"command": command})
        if not verdict.allowed:
            reason = f": {verdict.reason}" if verdict.reason else ""
            raise InlineError(f"the command !`{command}` was not allowed{reason}")
        if verdict.updated_input and isinstance(verdict.updated_input.get("command"), str):
            command = verdict.updated_input["command"]
        return (await run(command, verdict.confinement)).rstrip("\n")

    out: list[str] = []
    position = 0
    for match in _FENCED.finditer(body):
        out.append(await _replace_inline(body[position : match.start()], output_of))
        out.append(await output_of(match.group(1)))
        position = match.end()
    out.append(await _replace_inline(body[position:], output_of))
    return "".join(out)


async def _replace_inline(text: str, output_of: Callable[[str], Awaitable[str]]) -> str:
    parts: list[str] = []
    position = 0
    for match in _INLINE.finditer(text):
        parts.append(text[position : match.start()])
        parts.append(await output_of(match.group(1)))
        position = match.end()
    parts.append(text[position:])
    return "".join(parts)


async def inline_files(body: str, base: Path, permit: Permit | None) -> str:
    """`@path` references outside code: the files' text appended after the body, each one the session may
    read (relative paths from `base`, the working directory). Missing or refused files are left as text."""
    refs = [r for r in dict.fromkeys(find_imports(body)) if r and not r.startswith("@")]
    if not refs or permit is None:
        return body
    sections = []
    for ref in refs:
        path = Path(ref.replace("\\ ", " ")).expanduser()
        path = path if path.is_absolute() else base / path
        if not path.is_file():
            continue
        verdict = await permit("Read", {"file_path": str(path)})
        if not verdict.allowed:
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if len(text) > MAX_INLINE_FILE_CHARS:
            text = text[:MAX_INLINE_FILE_CHARS] + "\n… (cut: the file is longer; Read it for the rest)"
        sections.append(f'<file path="{path}">\n{text.rstrip()}\n</file>')
    if not sections:
        return body
    return body.rstrip() + "\n\n" + "\n\n".join(sections)
