"""What the corpus builder's case makers share: picking a block of lines and an intended edit."""

from __future__ import annotations

import random
import re


def block(
    rng: random.Random, text: str, min_indent: int = 0, size: tuple[int, int] = (3, 7)
) -> tuple[int, int] | None:
    """A run of whole lines (start, end) with at least two non-blank lines, all indented >= min_indent,
    whose text occurs once in the file."""
    lines = text.split("\n")[:-1]
    for _ in range(50):
        n = rng.randint(*size)
        i = rng.randrange(0, max(len(lines) - n, 1))
        chunk = lines[i : i + n]
        nonblank = [line for line in chunk if line.strip()]
        if len(nonblank) < 2 or not chunk[0].strip() or not chunk[-1].strip():
            continue
        if any(len(line) - len(line.lstrip(" ")) < min_indent for line in nonblank) or any(
            "\t" in line for line in chunk
        ):
            continue
        if text.count("\n".join(chunk)) == 1:
            return i, i + n
    return None


def intended_edit(rng: random.Random, chunk: list[str]) -> list[str] | None:
    """The edit the model means: rename a word in one line, insert a line, or delete one."""
    choice = rng.choice(["rename", "insert", "delete"])
    if choice == "delete" and len(chunk) > 2:
        k = rng.randrange(1, len(chunk) - 1)
        return chunk[:k] + chunk[k + 1 :]
    if choice == "insert":
        k = rng.choice([k for k, line in enumerate(chunk) if line.strip()])
        indent = chunk[k][: len(chunk[k]) - len(chunk[k].lstrip(" "))]
        return chunk[: k + 1] + [f"{indent}trace_step({k})"] + chunk[k + 1 :]
    for _ in range(10):
        k = rng.randrange(0, len(chunk))
        words = [
            m for m in re.finditer(r"\b[a-z_][a-z_0-9]{2,}\b", chunk[k]) if m.group() not in ("def", "self")
        ]
        if words:
            m = rng.choice(words)
            return (
                chunk[:k] + [chunk[k][: m.start()] + m.group() + "_v2" + chunk[k][m.end() :]] + chunk[k + 1 :]
            )
    return None


def applied(file: str, intended_old: str, intended_new: str, old: str, new: str, slip: str) -> dict:
    return {
        "slip": slip,
        "file": file,
        "old_string": old,
        "new_string": new,
        "expect": "applied",
        "intended_old": intended_old,
        "intended_new": intended_new,
    }


def refused(file: str, old: str, new: str, why: str) -> dict:
    return {"slip": why, "file": file, "old_string": old, "new_string": new, "expect": "refused"}


def shift(lines: list[str], delta: int) -> list[str]:
    if delta >= 0:
        return [(" " * delta + line) if line.strip() else line for line in lines]
    return [line[-delta:] if line.strip() else line for line in lines]
