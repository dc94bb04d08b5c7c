"""Path globs as Claude Code's rules use them: `**` spans directories, `*` and `?` stay inside one, and
`{a,b}` alternates."""

from __future__ import annotations

import re
from collections.abc import Iterable

from yoke.globs import compile_glob


def expand_braces(pattern: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [
        expanded for option in match.group(1).split(",") for expanded in expand_braces(head + option + tail)
    ]


def glob_regex(pattern: str) -> re.Pattern[str]:
    return compile_glob(pattern)


def glob_matches(patterns: Iterable[str], path: str) -> bool:
    """Whether the posix `path` matches any pattern (a pattern without `/` matches the file name anywhere,
    like `*.ts`)."""
    for pattern in patterns:
        pattern = pattern.strip()
        if pattern.startswith("./"):
            pattern = pattern[2:]
        for expanded in expand_braces(pattern):
            if "/" not in expanded and glob_regex("**/" + expanded).fullmatch(path):
                return True
            if glob_regex(expanded).fullmatch(path):
                return True
    return False
