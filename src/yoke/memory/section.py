"""The system prompt's auto-memory section: where memory lives, what is worth keeping, how to write it,
and the MEMORY.md index as loaded for this session."""

from __future__ import annotations

from pathlib import Path

from yoke.memory.store import INDEX_NAME, IndexText

GUIDE = """\
# Auto memory
You have a persistent memory directory at `{dir}`. What you write there is still there in later \
conversations in this repository (all its worktrees share it). Writing files in it needs no permission; \
use the ordinary file tools (Write, Edit, Read).

## What to remember
Only what cannot be derived later from the code, the git history or the CLAUDE.md files, and that will \
still matter in a future conversation:
- `user`: who the user is: role, expertise, how they like to work.
- `feedback`: how the user wants you to work: corrections ("don't do X") and confirmed choices.
- `project`: decisions, constraints, deadlines and context about the work that the code does not show.
- `reference`: where things live outside the repository: dashboards, trackers, documents, contacts.
Do not save code structure, file paths, how something was fixed, the task at hand, or anything a quick \
look at the repository answers. Never save secrets.

## How to write a memory
1. Check the index below (and the file, if one looks related): update an existing memory rather than \
adding a second one on the same topic; fix or delete one that turned out wrong.
2. Write one file per memory in the directory, named for its topic (e.g. `feedback_code_review.md`):
```
---
name: short title
description: one line saying what it is and when it matters (used to find it later)
type: user | feedback | project | reference
expiresAt: 2026-12-31   # optional: the date it stops being true (a freeze, a temporary workaround)
confidence: 0.7         # optional, 0..1: how sure you are; omit when the user said it outright
---
The memory itself. For feedback and project memories add:
**Why:** the reason or the incident behind it.
**How to apply:** when and how it changes what you do.
```
3. Add one line to `{index}` in that directory: `- [Title](file.md) — one-line hook`. The index is loaded \
into every conversation and cut after {lines} lines, so keep it to one short line per memory.

## Using memory
Memories relevant to a request may be attached to the user's message in a <system-reminder>. A memory \
says what was true when it was written: before acting on or recommending something from memory that \
concerns the code (a file, a function, a flag), check that it still holds. If the user asks you to \
ignore memory, behave as if {index} were empty: do not apply, cite or mention remembered content."""


def memory_section(directory: Path, index: IndexText) -> str:
    from yoke.memory.store import MAX_INDEX_LINES

    guide = GUIDE.format(dir=directory, index=INDEX_NAME, lines=MAX_INDEX_LINES)
    body = index.text.strip() or "(empty: no memories saved yet for this repository)"
    return f"{guide}\n\n## {INDEX_NAME}\n{body}"


IGNORE_NOTICE = (
    "The user asked to ignore memory for this request: behave as if MEMORY.md were empty. Do not apply, "
    "cite or mention anything from the memory directory."
)
