"""Case makers for edits that must be refused: several places fit (exactly or loosely), or none does."""

from __future__ import annotations

import re

from common import block, refused, shift


def duplicate_numbered(rng, text):
    """Read's line-number prefixes pasted in, for a block that occurs twice: not guessed from the numbers."""
    span = block(rng, text, size=(2, 3))
    if span is None:
        return None
    lines = text.split("\n")
    chunk = lines[span[0] : span[1]]
    at = min(span[1] + rng.randint(1, 6), len(lines) - 1)
    file_lines = lines[:at] + chunk + lines[at:]
    old = "\n".join(f"{span[0] + 1 + k}\t{line}" for k, line in enumerate(chunk))
    return refused(
        "\n".join(file_lines),
        old,
        old + " # edited",
        "line-number prefixes pasted in; the block occurs twice",
    )


def duplicate_exact(rng, text):
    lines = text.split("\n")
    repeated = [
        line for line in set(lines) if line.strip() and len(line.strip()) > 3 and lines.count(line) > 1
    ]
    if not repeated:
        return None
    line = rng.choice(sorted(repeated))
    return refused(text, line.strip(), line.strip() + "  # edited", "exact old_string occurs more than once")


def duplicate_block_indent(rng, text, shift_copy: int = 4, model_shift: int = -4):
    """A block repeated elsewhere at another indentation (similar code in two methods); the model's
    old_string has a third indentation, so a loose match fits both places."""
    span = block(rng, text, min_indent=8, size=(2, 4))
    if span is None:
        return None
    lines = text.split("\n")
    chunk = lines[span[0] : span[1]]
    copy = shift(chunk, shift_copy)
    at = rng.randrange(0, len(lines) - 1)
    if span[0] <= at <= span[1]:
        return None
    file_lines = lines[:at] + copy + lines[at:]
    file = "\n".join(file_lines)
    old = "\n".join(shift(chunk, model_shift))
    if old in file:
        return None
    new = old + "\n" + old.split("\n")[-1]
    return refused(file, old, new, "wrong indentation; the block occurs twice at different indentations")


def duplicate_block_trailing(rng, text):
    """Two identical copies with trailing blanks; old_string without them fits both."""
    span = block(rng, text, size=(2, 4))
    if span is None:
        return None
    lines = text.split("\n")
    chunk = [line + "  " if line.strip() else line for line in lines[span[0] : span[1]]]
    file_lines = lines[: span[0]] + chunk + lines[span[1] :]
    at = min(span[1] + rng.randint(2, 8), len(file_lines) - 1)
    file_lines = file_lines[:at] + chunk + file_lines[at:]
    old = "\n".join(line.rstrip() for line in chunk)
    return refused(
        "\n".join(file_lines),
        old,
        old.replace("(", "( ", 1) if "(" in old else old + " ",
        "missing trailing blanks; the block occurs twice",
    )


def duplicate_typographic(rng, text):
    """A commented phrase with typographic quotes occurs twice; the ASCII old_string fits both."""
    lines = text.split("\n")
    at = rng.randrange(1, len(lines) - 2)
    indent = " " * rng.choice([4, 8])
    phrase = f"{indent}# the \u201cfast\u201d path isn\u2019t used here"
    file_lines = lines[:at] + [phrase] + lines[at : at + 10] + [phrase] + lines[at + 10 :]
    old = phrase.translate(str.maketrans("\u201c\u201d\u2019", '""\''))
    return refused(
        "\n".join(file_lines), old, old.replace("fast", "slow"), "ASCII quotes; the phrase occurs twice"
    )


def not_in_file(rng, text):
    """A line the model misremembers (a word that is not there): nothing fits, must not be guessed."""
    span = block(rng, text)
    if span is None:
        return None
    chunk = text.split("\n")[span[0] : span[1]]
    k = rng.randrange(0, len(chunk))
    words = list(re.finditer(r"\b[a-z_]{4,}\b", chunk[k]))
    if not words:
        return None
    m = rng.choice(words)
    chunk[k] = chunk[k][: m.start()] + m.group()[::-1] + "x" + chunk[k][m.end() :]
    old = "\n".join(
        shift(chunk, -4) if all(len(x) - len(x.lstrip()) >= 4 for x in chunk if x.strip()) else chunk
    )
    return refused(text, old, old + "\npass", "a misremembered word: no place fits")
