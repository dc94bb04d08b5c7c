"""Built-in slash commands that make sense without a terminal: `/cost`, `/context`, `/memory` answer
locally (no model call); `/init` asks the model, with read-only tools, to study the repository and write a
CLAUDE.md, which Yoke then saves (an existing one is kept next to it as CLAUDE.md.bak, and the result says
so). `/compact` is the session's own."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from yoke import events as ev

INIT_PROMPT = """\
Study this repository and write a CLAUDE.md file for it: the instructions a coding agent will read at the \
start of every future session here.

Use the read-only tools to look at the README, the build and package files, CI configuration, the layout of \
the source and tests, and any existing agent instructions (CLAUDE.md, AGENTS.md, .cursor/rules, \
.cursorrules, .github/copilot-instructions.md). Then include:
- the commands to build, lint and test (and how to run a single test);
- the high-level architecture: the big picture that takes reading several files to see;
- conventions that are specific to this project and not obvious.
Leave out generic advice and anything easily found by listing files. Be concise.
{existing}
Answer with the complete content of the file only, in Markdown starting with "# CLAUDE.md", with no \
remarks before or after it."""

EXISTING = """
There is already a CLAUDE.md; improve it rather than starting over, keeping what is still right:
<existing-claude-md>
{content}
</existing-claude-md>
"""


def local_answer(text: str) -> ev.AssistantMessage:
    """A local command's output as an assistant message no model wrote (`<synthetic>`)."""
    from yoke.ids import new_uuid
    from yoke.messages import text_block
    from yoke.providers.base import Usage

    message: Any = {"role": "assistant", "content": [text_block(text)]}
    return ev.AssistantMessage(message, new_uuid(), "<synthetic>", "end_turn", Usage(), new_uuid())


def local_result(agent: Any, text: str, started: float, is_error: bool = False) -> ev.Result:
    from yoke.providers.base import Usage

    return ev.Result(
        reason="completed" if not is_error else "model_error",
        is_error=is_error,
        text=text,
        num_turns=0,
        duration_ms=int((time.monotonic() - started) * 1000),
        duration_api_ms=0,
        total_cost_usd=agent.ledger.total_cost_usd,
        usage=Usage(),
        model_usage=agent.ledger.model_usage(),
        permission_denials=[],
        errors=[text] if is_error else [],
    )


def cost_text(agent: Any) -> str:
    usage = agent.ledger.model_usage()
    lines = [f"Total cost:            ${agent.ledger.total_cost_usd:.4f}"]
    if not usage:
        lines.append("Usage:                 no model requests yet in this session")
        return "\n".join(lines)
    lines.append("Usage by model:")
    for model, u in usage.items():
        lines.append(
            f"  {model}: {u.input_tokens:,} input, {u.output_tokens:,} output, "
            f"{u.cache_read_input_tokens:,} cache read, {u.cache_creation_input_tokens:,} cache write "
            f"(${u.cost_usd:.4f})"
        )
    return "\n".join(lines)


async def context_text(session: Any) -> str:
    return await session.context_report()


def memory_text(session: Any) -> str:
    from yoke.memory import MemoryIndex

    index = MemoryIndex(session.cwd)
    if not index.files:
        return (
            f"No memory files are loaded for {session.cwd}. Create ./CLAUDE.md (or run /init) for project "
            "instructions, ~/.claude/CLAUDE.md for your own."
        )
    lines = ["Memory files loaded at start-up (edit them with your editor):"]
    lines += [f"  {f.path}  ({f.label}, ~{f.tokens:,} tokens)" for f in index.files]
    return "\n".join(lines)


def init_prompt(cwd: Path) -> str:
    target = cwd / "CLAUDE.md"
    existing = ""
    if target.is_file():
        try:
            existing = EXISTING.format(content=target.read_text(encoding="utf-8").strip())
        except (OSError, UnicodeDecodeError):
            existing = ""
    return INIT_PROMPT.format(existing=existing)


def write_claude_md(cwd: Path, answer: str) -> str:
    """Save the model's CLAUDE.md; an existing file is kept as CLAUDE.md.bak. Returns what was done."""
    from yoke.fsutil import replace_file

    content = _strip_fence(answer).strip()
    if not content:
        raise ValueError("the model gave no CLAUDE.md content; nothing was written")
    target = cwd / "CLAUDE.md"
    note = ""
    if target.exists():
        backup = _free_name(cwd / "CLAUDE.md.bak")
        replace_file(backup, target.read_bytes())
        note = f" The previous CLAUDE.md was replaced; its content is kept in {backup.name}."
    replace_file(target, (content + "\n").encode("utf-8"))
    lines = content.count("\n") + 1
    return f"Wrote {target} ({lines} lines).{note}"


def _free_name(path: Path) -> Path:
    if not path.exists():
        return path
    n = 1
    while path.with_name(f"{path.name}.{n}").exists():
        n += 1
    return path.with_name(f"{path.name}.{n}")


def _strip_fence(text: str) -> str:
    match = re.fullmatch(r"\s*```(?:markdown|md)?\s*\n(.*?)\n```\s*", text, re.S)
    return match.group(1) if match else text
