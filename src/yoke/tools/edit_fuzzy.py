"""The near-miss finders behind Edit's cascade (see `yoke.tools.edit_match` for the order and the rules).

Each finder takes the file text, old_string, new_string and the file's dominant line ending, and returns
every place old_string could mean under its tolerance, each with the replacement adapted to the file:
unchanged lines are copied from the file verbatim, new lines take the file's line endings and the same
indentation shift, and unchanged characters inside edited lines keep the file's quotes and dashes.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

LOOKALIKES = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u00a0\u2007\u202f", " "),
    }
)
LOOKALIKE_NOTE = "treating typographic quotes, dashes and non-breaking spaces as their ASCII look-alikes"


@dataclass(frozen=True, slots=True)
class Match:
    start: int
    end: int
    replacement: str
    detail: str = ""  # how a near-miss was matched, told to the model ("" for an exact match)


def find_all(text: str, needle: str) -> list[int]:
    """Start offsets of the non-overlapping occurrences of needle."""
    if not needle:
        return []
    spans, pos = [], text.find(needle)
    while pos != -1:
        spans.append(pos)
        pos = text.find(needle, pos + len(needle))
    return spans


def to_newline(s: str, nl: str) -> str:
    return s.replace("\r\n", "\n").replace("\n", nl) if "\n" in s else s


def by_line_endings(text: str, old: str, new: str, nl: str) -> list[Match]:
    converted = to_newline(old, nl)
    if converted == old:
        return []
    note = f"after converting its line endings to the file's {'CRLF' if nl == chr(13) + chr(10) else 'LF'}"
    return [Match(s, s + len(converted), to_newline(new, nl), note) for s in find_all(text, converted)]


def by_lookalike_chars(text: str, old: str, new: str, nl: str) -> list[Match]:
    old_c, new_c = to_newline(old, nl), to_newline(new, nl)
    norm_text, norm_old = text.translate(LOOKALIKES), old_c.translate(LOOKALIKES)
    if norm_text == text and norm_old == old_c:
        return []
    # The translation maps one character to one, so offsets in the normalised text are offsets in the file.
    return [
        Match(s, s + len(old_c), carry_chars(old_c, text[s : s + len(old_c)], new_c), LOOKALIKE_NOTE)
        for s in find_all(norm_text, norm_old)
    ]


def carry_chars(old: str, region: str, new: str) -> str:
    """`new`, with the characters it shares with `old` taken from the file's region (which equals `old` up
    to look-alikes and trailing blanks), so an edit keeps the file's quote and dash style where it did not
    change them."""
    limit = len(region.rstrip())
    if len(old.rstrip()) != limit:
        return new
    out = []
    for tag, a1, a2, b1, b2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        out.append(region[a1:a2] if tag == "equal" and a2 <= limit else new[b1:b2])
    return "".join(out)


# ---- whole-line comparisons ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Lines:
    """Text split into lines, each with its own ending and its offset in the text."""

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
        return cls(lead, s[1 if lead else 0 : -1 if trail else None].split("\n"), trail)


@dataclass(frozen=True, slots=True)
class _Fit:
    """How a window of file lines fits old_string's lines.

    prefix/sign: one indentation shift for every line (`prefix` added when sign is +1, removed when -1).
    first_col: old_string's first line matched the end of the file's line from this column (None: whole).
    last_len: old_string's last line matched the start of the file's line up to here (None: whole).
    """

    prefix: str = ""
    sign: int = 0
    first_col: int | None = None
    last_len: int | None = None

    def shift(self, line: str) -> str:
        if not line.strip() or self.sign == 0:
            return line
        if self.sign > 0:
            return self.prefix + line
        return line[len(self.prefix) :] if line.startswith(self.prefix) else line.lstrip(" \t")

    def describe(self) -> str:
        if self.sign == 0:
            return "ignoring trailing whitespace"
        chars = set(self.prefix)
        unit = "tab" if chars == {"\t"} else "space" if chars == {" "} else "character"
        count = len(self.prefix)
        return f"after shifting its indentation by {'+' if self.sign > 0 else '-'}{count} {unit}{'s' * (count != 1)}"


@dataclass(frozen=True, slots=True)
class LineRule:
    lookalikes: bool
    indentation: bool

    def norm(self, line: str) -> str:
        return line.translate(LOOKALIKES) if self.lookalikes else line

    def __call__(self, text: str, old: str, new: str, nl: str) -> list[Match]:
        shape = _Shape.of(old)
        if not any(line.strip() for line in shape.lines):
            return []  # a whitespace-only old_string is too vague to match loosely
        file = _Lines.of(text)
        norm_file = [self.norm(line) for line in file.content]
        pattern = [self.norm(line) for line in shape.lines]
        new_shape = _Shape.of(new)
        n, found = len(pattern), []
        for i in range(1 if shape.lead else 0, len(norm_file) - n + 1):
            if shape.trail and not file.endings[i + n - 1]:
                continue  # old_string ends with a line break; this window ends the file without one
            fit = self._fit(norm_file[i : i + n], pattern, shape)
            if fit is not None:
                found.append(self._replace(file, i, shape, new_shape, fit, nl))
        return found

    def _line_shift(self, have: str, want: str) -> tuple[str, int] | None:
        """The indentation shift making two whole lines equal (trailing blanks ignored), or None."""
        have, want = have.rstrip(), want.rstrip()
        if not want or not have:
            return ("", 0) if not want and not have else None
        if not self.indentation:
            return ("", 0) if have == want else None
        hi, wi = len(have) - len(have.lstrip()), len(want) - len(want.lstrip())
        if have[hi:] != want[wi:]:
            return None
        if have[:hi].endswith(want[:wi]):
            return (have[: hi - wi], 1 if hi > wi else 0)
        if want[:wi].endswith(have[:hi]):
            return (want[: wi - hi], -1)
        return None

    def _fit(self, window: list[str], pattern: list[str], shape: _Shape) -> _Fit | None:
        inner: tuple[str, int] | None = None
        for k in range(1, len(pattern) - 1):  # inner lines must match whole, all with one shift
            s = self._line_shift(window[k], pattern[k])
            if s is None:
                return None
            if pattern[k].strip():
                if inner is not None and s != inner:
                    return None
                inner = s
        first = self._line_shift(window[0], pattern[0])
        last = self._line_shift(window[-1], pattern[-1]) if len(pattern) > 1 else None
        options = [inner] if inner is not None else [s for s in (first, last, ("", 0)) if s is not None]
        for shift in dict.fromkeys(options):
            fit = self._fit_ends(window, pattern, shape, shift, first, last)
            if fit is not None:
                return fit
        return None

    @staticmethod
    def _fit_ends(
        window: list[str],
        pattern: list[str],
        shape: _Shape,
        shift: tuple[str, int],
        first: tuple[str, int] | None,
        last: tuple[str, int] | None,
    ) -> _Fit | None:
        """The first and last lines under one shift: whole, or (as an exact substring may) starting or ending
        mid-line."""
        n, first_col, last_len = len(pattern), None, None
        if not (first is not None and (first == shift or not pattern[0].strip())):
            want = pattern[0].strip()
            if n == 1 or shape.lead or not want or not window[0].rstrip().endswith(want):
                return None
            first_col = len(window[0].rstrip()) - len(want)
        if n > 1 and not (last is not None and (last == shift or not pattern[-1].strip())):
            tail = _Fit(*shift).shift(pattern[-1])
            if shape.trail or not tail.strip() or not window[-1].startswith(tail):
                return None
            last_len = len(tail)
        return _Fit(shift[0], shift[1], first_col, last_len)

    def _replace(self, file: _Lines, i: int, shape: _Shape, new_shape: _Shape, fit: _Fit, nl: str) -> Match:
        j = i + len(shape.lines) - 1
        region = list(file.content[i : j + 1])
        start = file.offsets[i] - (len(file.endings[i - 1]) if shape.lead else 0)
        end = file.offsets[j] + len(file.content[j]) + (len(file.endings[j]) if shape.trail else 0)
        if fit.last_len is not None:
            end = file.offsets[j] + fit.last_len
            region[-1] = region[-1][: fit.last_len]
        if fit.first_col is not None:
            start += fit.first_col
            region[0] = region[0][fit.first_col :]
        old_lines, new_lines = list(shape.lines), list(new_shape.lines)
        if fit.first_col is not None and new_lines:
            lead_ws = old_lines[0][: len(old_lines[0]) - len(old_lines[0].lstrip())]
            old_lines[0] = old_lines[0].lstrip()
            new_lines[0] = (
                new_lines[0].removeprefix(lead_ws)
                if new_lines[0].startswith(lead_ws)
                else new_lines[0].lstrip()
            )
        line_nl = file.endings[i] or nl
        body = _carry_lines(old_lines, region, new_lines, fit)
        replacement = (
            (line_nl if new_shape.lead else "") + line_nl.join(body) + (line_nl if new_shape.trail else "")
        )
        detail = fit.describe()
        if self.lookalikes:
            detail = LOOKALIKE_NOTE + ("" if fit.sign == 0 else f", and {detail}")
        return Match(start, end, replacement, detail)


def _carry_lines(old_lines: list[str], region: list[str], new_lines: list[str], fit: _Fit) -> list[str]:
    """New lines for the region: lines kept from old_string are the file's own; the others are shifted
    (except a first line that starts mid-line)."""

    def shifted(line: str, index: int) -> str:
        return line if fit.first_col is not None and index == 0 else fit.shift(line)

    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(region[i1:i2])
        elif tag == "replace" and i2 - i1 == j2 - j1:
            for t in range(i2 - i1):
                old_line, new_line = shifted(old_lines[i1 + t], i1 + t), shifted(new_lines[j1 + t], j1 + t)
                out.append(carry_chars(old_line, region[i1 + t], new_line))
        else:
            out.extend(shifted(line, j1 + t) for t, line in enumerate(new_lines[j1:j2]))
    return out
