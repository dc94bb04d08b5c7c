"""Placing an Edit's `old_string` in a file, forgiving the near-misses models make and never guessing.

The cascade, stopping at the first step that finds anything:

1. exact: `old_string` occurs verbatim;
2. line endings: `old_string` with its line breaks converted to the file's (CRLF vs LF);
3. trailing whitespace: whole lines equal once trailing blanks are ignored;
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
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from yoke.tools.files import dominant_newline

LOOKALIKES = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u00a0\u2007\u202f", " "),
    }
)
_LINE_NUMBER = re.compile(r"^ *(\d+)\t")
_TOKEN = re.compile(r"\w+|[^\w\s]")
_LOOKALIKE_NOTE = "treating typographic quotes, dashes and non-breaking spaces as their ASCII look-alikes"


@dataclass(frozen=True, slots=True)
class Match:
    start: int
    end: int
    replacement: str
    detail: str = ""  # how a near-miss was matched, told to the model ("" for an exact match)


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
    spans = _find_all(text, old)
    if spans:
        # New lines follow the matched region's line endings (or the file's, for a one-line match).
        region_nl = "\r\n" if "\r\n" in old else "\n" if "\n" in old else nl
        return _settle(
            [Match(s, s + len(old), _to_newline(new, region_nl)) for s in spans], text, replace_all, ""
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


# ---- steps 2 and 5a: whole-text searches ----------------------------------------------------------------


def _find_all(text: str, needle: str) -> list[int]:
    if not needle:
        return []
    spans, pos = [], text.find(needle)
    while pos != -1:
        spans.append(pos)
        pos = text.find(needle, pos + len(needle))
    return spans


def _to_newline(s: str, nl: str) -> str:
    return s.replace("\r\n", "\n").replace("\n", nl) if "\n" in s else s


def _by_line_endings(text: str, old: str, new: str, nl: str) -> list[Match]:
    converted = _to_newline(old, nl)
    if converted == old:
        return []
    name = "CRLF" if nl == "\r\n" else "LF"
    note = f"after converting its line endings to the file's {name}"
    return [Match(s, s + len(converted), _to_newline(new, nl), note) for s in _find_all(text, converted)]


def _by_lookalike_chars(text: str, old: str, new: str, nl: str) -> list[Match]:
    old_c, new_c = _to_newline(old, nl), _to_newline(new, nl)
    norm_text, norm_old = text.translate(LOOKALIKES), old_c.translate(LOOKALIKES)
    if norm_text == text and norm_old == old_c:
        return []
    note = _LOOKALIKE_NOTE
    # The translation maps one character to one, so offsets in the normalised text are offsets in the file.
    return [
        Match(s, s + len(old_c), _carry_chars(old_c, text[s : s + len(old_c)], new_c), note)
        for s in _find_all(norm_text, norm_old)
    ]


def _carry_chars(old: str, region: str, new: str) -> str:
    """`new`, with the characters it shares with `old` taken from the file's region (same length as `old`
    up to trailing blanks), so an edit keeps the file's quote and dash style where it did not change them."""
    limit = len(region.rstrip())
    if len(old.rstrip()) != limit:
        return new
    out = []
    for tag, a1, a2, b1, b2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        out.append(region[a1:a2] if tag == "equal" and a2 <= limit else new[b1:b2])
    return "".join(out)


# ---- steps 3 to 5b: whole-line comparisons -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Lines:
    """The file split into lines, each with its own ending and its offset in the text."""

    content: list[str]
    endings: list[str]
    offsets: list[int]

    @classmethod
    def of(cls, text: str) -> _Lines:
        content, endings, offsets, pos = [], [], [], 0
        parts = text.split("\n")
        for k, part in enumerate(parts):
            ending = "" if k == len(parts) - 1 else "\n"
            if ending and part.endswith("\r"):
                part, ending = part[:-1], "\r\n"
            content.append(part)
            endings.append(ending)
            offsets.append(pos)
            pos += len(part) + len(ending)
        return cls(content, endings, offsets)


@dataclass(frozen=True, slots=True)
class _Shape:
    """A string as lines: whether it starts or ends with a line break, and the lines in between."""

    lead: bool
    lines: list[str]
    trail: bool

    @classmethod
    def of(cls, s: str) -> _Shape:
        s = s.replace("\r\n", "\n")
        if not s:
            return cls(False, [], False)
        lead, trail = s.startswith("\n"), s.endswith("\n") and len(s) > 1
        body = s[1 if lead else 0 : -1 if trail else None]
        return cls(lead, body.split("\n"), trail)


@dataclass(frozen=True, slots=True)
class _Fit:
    """How a window of file lines fits the pattern: `prefix` added to (sign +1) or removed from (sign -1)
    the pattern's indentation; `first_partial` when the pattern's first line starts after the file line's
    indentation (as an exact substring would)."""

    prefix: str = ""
    sign: int = 0
    first_partial: bool = False

    def shift(self, line: str) -> str:
        if not line.strip() or self.sign == 0:
            return line
        if self.sign > 0:
            return self.prefix + line
        return line[len(self.prefix) :] if line.startswith(self.prefix) else line.lstrip(" \t")

    def describe(self) -> str:
        if self.sign == 0:
            return "ignoring trailing whitespace"
        unit = "tab" if set(self.prefix) == {"\t"} else "space" if set(self.prefix) == {" "} else "character"
        count = len(self.prefix)
        return f"after shifting its indentation by {'+' if self.sign > 0 else '-'}{count} {unit}{'s' * (count != 1)}"


@dataclass(frozen=True, slots=True)
class _Rule:
    lookalikes: bool
    indentation: bool

    def key(self, line: str) -> str:
        return (line.translate(LOOKALIKES) if self.lookalikes else line).rstrip()


def _by_lines(rule: _Rule):
    def finder(text: str, old: str, new: str, nl: str) -> list[Match]:
        shape = _Shape.of(old)
        if not any(line.strip() for line in shape.lines):
            return []  # a whitespace-only old_string is too vague to match loosely
        file = _Lines.of(text)
        keys = [rule.key(line) for line in file.content]
        pattern = [rule.key(line) for line in shape.lines]
        new_shape = _Shape.of(new)
        found = []
        for i in _candidate_starts(keys, pattern, rule, shape):
            if shape.trail and not file.endings[i + len(pattern) - 1]:
                continue  # old_string ends with a line break but this window ends the file without one
            fit = _fit_window(keys, i, pattern, rule)
            if fit is not None:
                found.append(_replace_window(file, i, shape, new_shape, fit, rule, nl))
        return found

    return finder


def _candidate_starts(keys: list[str], pattern: list[str], rule: _Rule, shape: _Shape) -> list[int]:
    n = len(pattern)
    anchor = next(k for k, line in enumerate(pattern) if line.strip())
    want = pattern[anchor].lstrip() if rule.indentation else pattern[anchor]
    starts = []
    for i in range(1 if shape.lead else 0, len(keys) - n + 1):
        key = keys[i + anchor]
        if (key.lstrip() if rule.indentation else key) == want:
            starts.append(i)
    return starts


def _fit_window(keys: list[str], i: int, pattern: list[str], rule: _Rule) -> _Fit | None:
    fit: tuple[str, int] | None = None
    first_shift: tuple[str, int] | None = None
    for k, want in enumerate(pattern):
        have = keys[i + k]
        if not want.strip() or not have.strip():
            if want.strip() or have.strip():
                return None
            continue
        if not rule.indentation:
            if have != want:
                return None
            continue
        hi, wi = len(have) - len(have.lstrip()), len(want) - len(want.lstrip())
        if have[hi:] != want[wi:]:
            return None
        if have[:hi].endswith(want[:wi]):
            shift = (have[: hi - wi], 1 if hi > wi else 0)
        elif want[:wi].endswith(have[:hi]):
            shift = (want[: wi - hi], -1)
        else:
            return None
        if k == 0 and wi == 0 and hi > 0:
            first_shift = shift  # may instead be a line copied from after its indentation; decided below
        elif fit is None:
            fit = shift
        elif fit != shift:
            return None
    if first_shift is None or fit is None or first_shift == fit:
        prefix, sign = fit or first_shift or ("", 0)
        return _Fit(prefix, sign)
    return _Fit(fit[0], fit[1], first_partial=True)


def _replace_window(
    file: _Lines, i: int, shape: _Shape, new_shape: _Shape, fit: _Fit, rule: _Rule, nl: str
) -> Match:
    j = i + len(shape.lines) - 1
    region_lines = list(file.content[i : j + 1])
    start = file.offsets[i]
    if shape.lead:
        start -= len(file.endings[i - 1])
    elif fit.first_partial:
        indent = len(region_lines[0]) - len(region_lines[0].lstrip())
        start += indent
        region_lines[0] = region_lines[0][indent:]
    end = file.offsets[j] + len(file.content[j])
    if shape.trail:
        end += len(file.endings[j])
    line_nl = file.endings[i] or nl
    body = _carry_lines(shape.lines, region_lines, new_shape.lines, fit)
    replacement = (
        (line_nl if new_shape.lead else "") + line_nl.join(body) + (line_nl if new_shape.trail else "")
    )
    detail = fit.describe()
    if rule.lookalikes:
        detail = _LOOKALIKE_NOTE + ("" if fit.sign == 0 else f", and {detail}")
    return Match(start, end, replacement, detail)


def _carry_lines(old_lines: list[str], region: list[str], new_lines: list[str], fit: _Fit) -> list[str]:
    """New lines for the region: lines kept from old_string are the file's own; others are shifted."""

    def shifted(line: str, index: int) -> str:
        return line if fit.first_partial and index == 0 else fit.shift(line)

    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(region[i1:i2])
        elif tag == "replace" and i2 - i1 == j2 - j1:
            for t in range(i2 - i1):
                old_line, new_line = shifted(old_lines[i1 + t], i1 + t), shifted(new_lines[j1 + t], j1 + t)
                out.append(_carry_chars(old_line, region[i1 + t], new_line))
        else:
            out.extend(shifted(line, j1 + t) for t, line in enumerate(new_lines[j1:j2]))
    return out


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
    ("after converting line endings", _by_line_endings),
    ("ignoring trailing whitespace", _by_lines(_Rule(lookalikes=False, indentation=False))),
    ("ignoring indentation and trailing whitespace", _by_lines(_Rule(lookalikes=False, indentation=True))),
    ("treating look-alike quotes and dashes as ASCII", _by_lookalike_chars),
    (
        "treating look-alike quotes and dashes as ASCII and ignoring indentation",
        _by_lines(_Rule(lookalikes=True, indentation=True)),
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
    message = f"The most similar part of the file is lines {start + 1}-{end}:\n{region}"
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
