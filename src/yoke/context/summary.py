"""What the summarizing model is asked, and the message that stands in for what it summarized.

Every summary message carries, next to the model's summary, the user's own messages verbatim (the first
one always, then the latest that fit), in a `<user-messages>` JSON list. They are carried from summary to
summary, so the user's goal and explicit instructions survive any number of compactions even when a
summary is poor.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yoke.jsonsafe import loads as safe_json
from yoke.messages import Message, blocks_of
from yoke.providers.tokens import estimate_text
from yoke.regex import lazy_compile

FULL_SUMMARY_INSTRUCTION = """\
Your task now is to write a summary of the conversation so far. It will replace the conversation, so \
whoever continues the work (you, with no other memory of it) must be able to pick up exactly where it \
stopped. Do not call any tools. Be specific: exact file paths, function names, commands, error messages \
and values beat general descriptions.

Use exactly these sections:

1. Goal and the user's explicit instructions: what the user wants, in their words where it matters, and \
every instruction or constraint they gave (including corrections of your earlier work).
2. Decisions and technical context: approaches chosen or rejected and why; conventions, libraries and \
commands that matter for this project.
3. Files touched and why: each file read, created or changed, what changed and why; include short code \
excerpts where the details matter.
4. Errors and fixes: problems met, their causes, how they were fixed, and anything still failing.
5. Pending work: what remains, and the very next step, quoting the most recent request.
6. Todo list: the current todo items and their status, if there is a todo list.

Reply with the summary inside <summary></summary> tags."""

COLLAPSE_INSTRUCTION = """\
Your task now is to condense the conversation so far into a short record that will replace it; newer \
messages follow it verbatim. Do not call any tools. Keep what later work depends on: the user's requests \
and instructions, decisions made, files changed and why, errors and their fixes, and unfinished items. \
Leave out file contents and command output that were only looked at. Reply inside <summary></summary> tags."""

SUMMARY_HEAD = (
    "This session continues an earlier conversation that was compacted to fit the context window. "
    "The summary below stands in for the earlier messages."
)
COLLAPSE_HEAD = "Earlier messages of this conversation were folded into this summary to save context."
DROPPED_HEAD = (
    "Earlier messages of this conversation were dropped to fit the context window (summarizing them "
    "failed). The user's messages are kept below."
)
CONTINUE_LINE = (
    "Continue the work from where it stopped; do not ask the user to repeat anything. The user's most recent "
    "request is still in force."
)
USER_MESSAGES_BUDGET_TOKENS = 6_000
USER_MESSAGE_MAX_CHARS = 4_000

_USER_MESSAGES = lazy_compile(r"<user-messages>\n(.*?)\n</user-messages>", re.DOTALL)
_SUMMARY_TAGS = lazy_compile(r"<summary>(.*?)(?:</summary>|\Z)", re.DOTALL)
_ANALYSIS = lazy_compile(r"<analysis>.*?</analysis>", re.DOTALL)


def summary_instruction(base: str, custom: str | None) -> str:
    if custom and custom.strip():
        return base + "\n\nThe user asked this summary to pay particular attention to:\n" + custom.strip()
    return base


def clean_summary(text: str) -> str:
    """The summary text from the model's reply (the part inside <summary> tags when present)."""
    match = _SUMMARY_TAGS.search(text)
    body = match.group(1) if match else _ANALYSIS.sub("", text)
    return body.strip()


def _shorten(text: str) -> str:
    if len(text) <= USER_MESSAGE_MAX_CHARS:
        return text
    half = USER_MESSAGE_MAX_CHARS // 2
    return text[:half] + f"\n[... {len(text) - 2 * half} characters omitted ...]\n" + text[-half:]


def user_prompts(messages: Sequence[Message]) -> list[str]:
    """The user's own messages in order: those carried by earlier summaries, then the real prompts (text a
    person typed, not tool results and not <system-reminder> context)."""
    prompts: list[str] = []
    for message in messages:
        if message["role"] != "user":
            continue
        texts = [b.get("text", "") for b in blocks_of(message) if b.get("type") == "text"]
        joined = "\n".join(texts)
        carried = _USER_MESSAGES.search(joined)
        if carried:
            try:
                items = safe_json(carried.group(1))
            except ValueError:
                items = []
            prompts.extend(str(item) for item in items if isinstance(item, str))
            continue
        if any(b.get("type") == "tool_result" for b in blocks_of(message)):
            continue
        own = [t for t in texts if t.strip() and not t.lstrip().startswith("<system-reminder>")]
        if own:
            prompts.append("\n".join(own))
    return prompts


def select_prompts(prompts: list[str], budget_tokens: int = USER_MESSAGES_BUDGET_TOKENS) -> list[str]:
    """The first prompt (usually the goal) and the latest ones that fit the budget."""
    if not prompts:
        return []
    first = _shorten(prompts[0])
    used = estimate_text(first)
    latest: list[str] = []
    for prompt in reversed(prompts[1:]):
        if prompt.startswith("[... ") and prompt.endswith(" omitted ...]"):
            continue
        short = _shorten(prompt)
        cost = estimate_text(short)
        if used + cost > budget_tokens:
            break
        latest.append(short)
        used += cost
    latest.reverse()
    skipped = len(prompts) - 1 - len(latest)
    middle = [f"[... {skipped} earlier user messages omitted ...]"] if skipped > 0 else []
    return [first, *middle, *latest]


def summary_text(head: str, summary: str | None, prompts: list[str], continue_line: bool = True) -> str:
    parts = [head]
    if summary:
        parts.append(f"<summary>\n{summary}\n</summary>")
    if prompts:
        parts.append(
            "The user's messages so far, verbatim (oldest first):\n<user-messages>\n"
            + json.dumps(prompts, ensure_ascii=False, indent=0)
            + "\n</user-messages>"
        )
    if continue_line:
        parts.append(CONTINUE_LINE)
    return "\n\n".join(parts)


REINJECT_FILES = 5
REINJECT_FILE_TOKENS = 5_000
REINJECT_BUDGET_TOKENS = 50_000


def reinjection_blocks(
    recent_files: Sequence[Path], memory_files: Sequence[Any], todos: list[Any] | None, extra: str | None
) -> list[dict[str, Any]]:
    """Text blocks re-attaching what the work depends on after a full compaction: up to 5 recently read
    files (5K tokens each, 50K in all, most recent first), lazily loaded memory files, the todo list, and
    what a SessionStart(compact) hook returned."""
    blocks: list[dict[str, Any]] = []
    budget = REINJECT_BUDGET_TOKENS
    for path in list(recent_files)[:REINJECT_FILES]:
        content = _read_for_reinjection(Path(path))
        if content is None or estimate_text(content) > budget:
            continue
        budget -= estimate_text(content)
        blocks.append(
            _reminder(
                f"Contents of {path}, which you read before the conversation was compacted (it may have "
                f"changed since):\n{content}"
            )
        )
    if memory_files:
        from yoke.memory.files import format_memory

        memory_text = format_memory(memory_files)
        if memory_text:
            blocks.append(_reminder(memory_text))
    if todos:
        lines = [
            f"- [{item.get('status', 'pending')}] {item.get('content', '')}"
            if isinstance(item, dict)
            else f"- {item}"
            for item in todos
        ]
        blocks.append(_reminder("The current todo list:\n" + "\n".join(lines)))
    if extra and extra.strip():
        blocks.append(_reminder(extra.strip()))
    return blocks


def _reminder(text: str) -> dict[str, Any]:
    return {"type": "text", "text": f"<system-reminder>\n{text}\n</system-reminder>"}


def _read_for_reinjection(path: Path) -> str | None:
    """A recently read file's current text, cut to the per-file budget; None for missing or binary files."""
    limit = REINJECT_FILE_TOKENS * 4
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError:
        return None
    if b"\x00" in data[:8192]:
        return None
    text = data[:limit].decode("utf-8", errors="replace")
    if len(data) > limit:
        text += f"\n[... truncated after {limit} bytes; read the file again for the rest]"
    return text
