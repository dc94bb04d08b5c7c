"""Placing an Edit's `old_string` in a file, forgiving the near-misses models make and never guessing.

The cascade, stopping at the first step that finds anything:

1. exact: `old_string` occurs verbatim;
2. line endings: `old_string` with its line breaks converted to the file's (CRLF vs LF);
3. trailing whitespace: lines equal once trailing blanks are ignored (the first and last lines may start
   and end mid-line, as in an exact substring);
4. indentation: whole lines equal up to one uniform indentation shift (plus step 3);
5. look-alikes: typographic quotes, dashes and non-breaking spaces read as their ASCII twins (plus 3 and 4);
6. Read's own `N<tab>` line-number prefixes pasted into the strings: stripped, and the cascade run again.

A step that finds exactly one place is applied; one that finds several is refused (unless `replace_all`),
never passed on to a looser step. A near-miss replacement keeps the file's conventions: unchanged lines are
copied from the file verbatim, new lines take the file's line endings and the same indentation shift, and
unchanged characters inside edited lines keep the file's quotes and dashes.
"""

from __future__ import annotations

import re
from typing import Literal

from yoke.tools.edit_fuzzy import (
    LOOKALIKES,
    LineRule,
    Match,
    by_line_endings,
    by_lookalike_chars,
    find_all,
    to_newline,
)
from yoke.tools.files import dominant_newline

__all__ = ["Match", "MatchError", "apply_matches", "line_of", "place_edit"]

_LINE_NUMBER = re.compile(r"^ *(\d+)\t")
_TOKEN = re.compile(r"\w+|[^\w\s]")


class MatchError(Exception):
    """`old_string` could not be placed; the message explains and shows the closest region of the file."""

    def __init__(self, message: str, kind: Literal["not_found", "ambiguous"]):
        super().__init__(message)
        self.kind = kind


def place_edit(
    text: str, old: str, new: str, *, replace_all: bool = False, exact_only: bool = False
) -> list[Match]:
    """Where `old` goes in `text` and what replaces it there. Raises MatchError when not exactly one place
    fits (or, with replace_all, none does)."""
    nl = dominant_newline(text)
    spans = find_all(text, old)
    if spans:
        # New lines follow the matched region's line endings (or the file's, for a one-line match).
        region_nl = "\r\n" if "\r\n" in old else "\n" if "\n" in old else nl
        return _settle(
            [Match(s, s + len(old), to_newline(new, region_nl)) for s in spans], text, replace_all, ""
        )
    if not exact_only:
        for how, finder in _CASCADE:
            found = finder(text, old, new, nl)
            if found:
                return _settle(found, text, replace_all, how)
        if not replace_all and (numbered := _without_line_numbers(text, old, new)):
            return numbered
    raise MatchError(not_found_message(text, old), "not_found")


def apply_matches(text: str, matches: list[Match]) -> str:
    parts, pos = [], 0
    for m in sorted(matches, key=lambda m: m.start):
        parts += [text[pos : m.start], m.replacement]
        pos = m.end
    parts.append(text[pos:])
    return "".join(parts)


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


# ---- the settling rule -------------------------------------------------------------------------------


def _settle(found: list[Match], text: str, replace_all: bool, how: str) -> list[Match]:
    if len(found) == 1:
        return found
    if not replace_all:
        raise MatchError(_ambiguous_message(text, found, how), "ambiguous")
    chosen, end = [], -1
    for m in sorted(found, key=lambda m: m.start):
        if m.start >= end:  # overlapping candidates: keep the first of each overlap
            chosen.append(m)
            end = m.end
    return chosen


def _ambiguous_message(text: str, found: list[Match], how: str) -> str:
    starts = [line_of(text, m.start) for m in found]
    where = ", ".join(str(n) for n in starts[:20]) + (", …" if len(starts) > 20 else "")
    if not how:
        return (
            f"Found {len(found)} matches of the string to replace, but replace_all is false. To replace all "
            "occurrences, set replace_all to true. To replace only one occurrence, please provide more context "
            f"to uniquely identify the instance. The matches start at lines {where}."
        )
    lines = text.split("\n")
    shown = []
    for m in found[:3]:
        first, last = line_of(text, m.start), line_of(text, m.end)
        region = [line.rstrip("\r") for line in lines[first - 1 : min(last, first + 3)]]
        shown.append("\n".join(f"{first + i}\t{line}" for i, line in enumerate(region)))
    return (
        f"String to replace not found in file exactly. {how[0].upper()}{how[1:]}, it matches {len(found)} places "
        f"(starting at lines {where}), so nothing was changed. Copy old_string exactly from the file and include "
        "enough surrounding lines to pick one place:\n" + "\n--\n".join(shown)
    )


def _without_line_numbers(text: str, old: str, new: str) -> list[Match] | None:
    """The edit with Read's `N<tab>` prefixes removed from old/new, when every line of old carries consecutive
    ones and the stripped old_string matches exactly where the first number says (so a tab-separated data
    line is never mistaken for a numbered one)."""
    lines = old.replace("\r\n", "\n").split("\n")
    numbers = [_LINE_NUMBER.match(line) for line in lines]
    if not all(numbers):
        return None
    values = [int(m.group(1)) for m in numbers if m]
    if values != list(range(values[0], values[0] + len(values))):
        return None

    def strip(s: str) -> str:
        return "\n".join(_LINE_NUMBER.sub("", line, count=1) for line in s.replace("\r\n", "\n").split("\n"))

    try:
        matches = place_edit(text, strip(old), strip(new))
    except MatchError:
        return None
    if line_of(text, matches[0].start) != values[0]:
        return None
    note = "after removing the Read line-number prefixes pasted into it"
    return [
        Match(m.start, m.end, m.replacement, f"{m.detail}, and {note}" if m.detail else note) for m in matches
    ]


_CASCADE = (
    ("after converting line endings", by_line_endings),
    ("ignoring trailing whitespace", LineRule(lookalikes=False, indentation=False)),
    ("ignoring indentation and trailing whitespace", LineRule(lookalikes=False, indentation=True)),
    ("treating look-alike quotes and dashes as ASCII", by_lookalike_chars),
    (
        "treating look-alike quotes and dashes as ASCII and ignoring indentation",
        LineRule(lookalikes=True, indentation=True),
    ),
)


# ---- the failure message --------------------------------------------------------------------------------


def not_found_message(text: str, old: str, max_echo: int = 2000) -> str:
    echo = old if len(old) <= max_echo else old[:max_echo] + "…"
    message = f"String to replace not found in file.\nString: {echo}"
    closest = closest_region(text, old)
    return f"{message}\n\n{closest}" if closest else message


def closest_region(text: str, old: str) -> str:
    """The part of the file most like `old`, numbered as Read numbers it, with the first differing line."""
    file_lines = [line.rstrip("\r") for line in text.split("\n")]
    old_lines = old.replace("\r\n", "\n").strip("\n").split("\n")
    start, score = _best_window(file_lines, old_lines)
    if start is None or score < 0.3:
        return "No similar lines were found; Read the file to see its current content."
    end = min(start + len(old_lines), len(file_lines))
    shown = file_lines[start : min(end, start + 30)]
    region = "\n".join(f"{start + 1 + k}\t{line}" for k, line in enumerate(shown))
    where = f"line {start + 1}" if end == start + 1 else f"lines {start + 1}-{end}"
    message = f"The most similar part of the file is {where}:\n{region}"
    for k, want in enumerate(old_lines[: end - start]):
        have = file_lines[start + k]
        if want != have:
            message += f"\nFirst difference: old_string line {k + 1} is {want!r}, file line {start + k + 1} is {have!r}."
            break
    return message


def _best_window(file_lines: list[str], old_lines: list[str]) -> tuple[int | None, float]:
    def tokens(line: str) -> frozenset[str]:
        return frozenset(_TOKEN.findall(line.translate(LOOKALIKES)))

    probes = [(k, tokens(line)) for k, line in enumerate(old_lines) if line.strip()][:30]
    if not probes:
        return None, 0.0
    file_tokens = [tokens(line) for line in file_lines]
    scores: dict[int, float] = {}
    for k, want in probes:
        for f, have in enumerate(file_tokens):
            if have and f >= k:
                common = len(want & have)
                if common:
                    scores[f - k] = scores.get(f - k, 0.0) + common / len(want | have)
    if not scores:
        return None, 0.0
    best = max(scores, key=lambda s: (scores[s], -s))
    return best, scores[best] / len(probes)
