"""Path globs, one translation for every part of Yoke that matches paths (permission rules, memory-file
rules, the pure-Python file walk): `**` spans folders, `*` and `?` stay within one, `[...]` classes (with
`!` negation), `\\x` escapes and, where the caller allows, `{a,b}` alternatives."""

from __future__ import annotations

import re
from functools import lru_cache


def glob_to_regex(pattern: str, *, braces: bool = True) -> str:
    """A glob as a regex (without anchors) over '/'-separated paths."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and (close := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : close]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = close + 1
        elif c == "{" and braces and (close := pattern.find("}", i)) != -1:
            options = pattern[i + 1 : close].split(",")
            out.append("(?:" + "|".join(glob_to_regex(o, braces=braces) for o in options) + ")")
            i = close + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


@lru_cache(maxsize=2048)
def compile_glob(pattern: str, *, braces: bool = True) -> re.Pattern[str]:
    """The glob as a compiled regex, for `fullmatch` (paths may hold any character, newlines included)."""
    return re.compile(glob_to_regex(pattern, braces=braces), re.DOTALL)
