"""Shell words: what a word's literal value is once quotes and escapes are removed, and which expansions
the shell will still apply to it."""

from __future__ import annotations

from dataclasses import dataclass

_ANSI_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f"}
_ANSI_ESCAPES |= {"v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


@dataclass(slots=True)
class Word:
    """One shell word: its literal value (dynamic parts kept as source text) and how the shell treats it."""

    text: str
    static: bool = True  # no parameter, command or arithmetic expansion
    glob: bool = False  # an unquoted *, ? or [ (pathname expansion may apply)
    brace: bool = False  # an unquoted brace expansion
    tilde: bool = False  # an unquoted leading ~ (tilde expansion applies)
    procsub: bool = False  # a process substitution: a /dev/fd path at run time
    # not static, but dynamic only through the line's own command substitutions and line locals
    # (bash_values): unknown text, harmless where text is all a command takes
    derived: bool = False


def plain_word(text: str) -> Word:
    """An unquoted word: backslash escapes removed, glob, brace and tilde expansion noted."""
    out: list[str] = []
    glob = brace = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            if i + 1 < len(text) and text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        if ch in "*?[":
            glob = True
        elif ch == "{":
            brace = True
        out.append(ch)
        i += 1
    literal = "".join(out)
    return Word(literal, glob=glob, brace=brace and "}" in text, tilde=text.startswith("~"))


def unescape_double(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def ansi_c(body: str) -> str:
    return ansi_c_word(body).text


def ansi_c_word(body: str) -> Word:
    """A `$'…'` string. Escapes whose bytes depend on the locale (non-ASCII code points, raw bytes above
    0x7F, `\\c` control forms) make the word one the analyser does not fully understand: it keeps a text for
    deny rules but is not static. Never raises (`$'\\UFFFFFFFF'` included)."""
    out: list[str] = []
    exact = True
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ANSI_ESCAPES:
            out.append(_ANSI_ESCAPES[nxt])
            i += 2
        elif nxt in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[nxt]
            digits = ""
            j = i + 2
            while j < len(body) and len(digits) < width and body[j] in "0123456789abcdefABCDEF":
                digits += body[j]
                j += 1
            code = int(digits, 16) if digits else -1
            exact = exact and 0 <= code < 0x80
            out.append(_char(code) if digits else "\\" + nxt)
            i = j
        elif nxt in "01234567":
            digits = ""
            j = i + 1
            while j < len(body) and len(digits) < 3 and body[j] in "01234567":
                digits += body[j]
                j += 1
            code = int(digits, 8) & 0xFF
            exact = exact and code < 0x80
            out.append(_char(code))
            i = j
        elif nxt == "c":
            exact = False
            out.append(chr(ord(body[i + 2]) & 0x1F) if i + 2 < len(body) else "\\c")
            i += 3
        else:
            out.append("\\" + nxt)
            i += 2
    text = "".join(out)
    return Word(text, static=exact and "\0" not in text)


def _char(code: int) -> str:
    """bash emits nothing useful for a code point Unicode does not have (or a surrogate); never raise."""
    if code < 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return ""
    return chr(code)
