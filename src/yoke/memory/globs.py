"""Path globs as Claude Code's rules use them: `**` spans directories, `*` and `?` stay inside one, and
`{a,b}` alternates."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache


def expand_braces(pattern: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [
        expanded for option in match.group(1).split(",") for expanded in expand_braces(head + option + tail)
    ]


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_matches(patterns: Iterable[str], path: str) -> bool:
    """Whether the posix `path` matches any pattern (a pattern without `/` matches the file name anywhere,
    like `*.ts`)."""
    for pattern in patterns:
        pattern = pattern.strip()
        if pattern.startswith("./"):
            pattern = pattern[2:]
        for expanded in expand_braces(pattern):
            if "/" not in expanded and glob_regex("**/" + expanded).match(path):
                return True
            if glob_regex(expanded).match(path):
                return True
    return False
