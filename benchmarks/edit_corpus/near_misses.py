"""Case makers for near-misses that must be applied: each returns a case or None (try another excerpt)."""

from __future__ import annotations

import difflib
import re

from common import applied, block, intended_edit, shift


def indent_less(rng, text):
    return _indent_case(rng, text, -4)


def indent_more(rng, text):
    return _indent_case(rng, text, 4)


def _indent_case(rng, text, delta):
    span = block(rng, text, min_indent=8 if delta < 0 else 0)
    if span is None:
        return None
    lines = text.split("\n")
    chunk = lines[span[0] : span[1]]
    new_chunk = intended_edit(rng, chunk)
    if new_chunk is None:
        return None
    old, new = "\n".join(shift(chunk, delta)), "\n".join(shift(new_chunk, delta))
    return applied(
        text, "\n".join(chunk), "\n".join(new_chunk), old, new, f"indentation shifted by {delta:+d}"
    )


def crlf(rng, text):
    span = block(rng, text)
    if span is None:
        return None
    chunk = text.split("\n")[span[0] : span[1]]
    new_chunk = intended_edit(rng, chunk)
    if new_chunk is None:
        return None
    file = text.replace("\n", "\r\n")
    return applied(
        file,
        "\r\n".join(chunk),
        "\r\n".join(new_chunk),
        "\n".join(chunk),
        "\n".join(new_chunk),
        "LF old_string in a CRLF file",
    )


def crlf_and_indent(rng, text):
    case = _indent_case(rng, text, -4)
    if case is None:
        return None
    case["file"] = case["file"].replace("\n", "\r\n")
    case["intended_old"] = case["intended_old"].replace("\n", "\r\n")
    case["intended_new"] = case["intended_new"].replace("\n", "\r\n")
    case["slip"] = "LF old_string in a CRLF file, indentation shifted by -4"
    return case


def _with_trailing_spaces(rng, lines: list[str], span: tuple[int, int]) -> list[str]:
    out = list(lines)
    for k in range(span[0], span[1] - 1):  # every line of the block but the last gets trailing blanks
        if out[k].strip():
            out[k] += rng.choice(["  ", " ", "\t", "    "])
    return out


def trailing_in_file(rng, text, delta: int = 0):
    span = block(rng, text, min_indent=8 if delta < 0 else 0)
    if span is None:
        return None
    lines = _with_trailing_spaces(rng, text.split("\n"), span)
    file = "\n".join(lines)
    chunk = lines[span[0] : span[1]]
    model_chunk = [line.rstrip() for line in chunk]
    model_new = intended_edit(rng, model_chunk)
    if model_new is None:
        return None
    # Intended result: lines the model kept stay as the file has them (trailing blanks included).
    intended_new = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, model_chunk, model_new, autojunk=False
    ).get_opcodes():
        intended_new += chunk[i1:i2] if tag == "equal" else model_new[j1:j2]
    old, new = "\n".join(shift(model_chunk, delta)), "\n".join(shift(model_new, delta))
    slip = "trailing blanks in the file, none in old_string" + (
        f", indentation shifted by {delta:+d}" if delta else ""
    )
    return applied(file, "\n".join(chunk), "\n".join(intended_new), old, new, slip)


def trailing_and_indent(rng, text):
    return trailing_in_file(rng, text, -4)


def trailing_in_old(rng, text):
    span = block(rng, text)
    if span is None:
        return None
    chunk = text.split("\n")[span[0] : span[1]]
    new_chunk = intended_edit(rng, chunk)
    if new_chunk is None:
        return None
    old = "\n".join(line + "  " if k % 2 == 0 and line.strip() else line for k, line in enumerate(chunk))
    return applied(
        text,
        "\n".join(chunk),
        "\n".join(new_chunk),
        old,
        "\n".join(new_chunk),
        "trailing blanks added in old_string",
    )


def mid_line_ends(rng, text):
    """old_string starts and ends mid-line (as exact substrings do) and misses the file's trailing blanks."""
    case = trailing_in_file(rng, text)
    if case is None:
        return None
    first_cut = len(case["old_string"].split("\n")[0]) - len(case["old_string"].split("\n")[0].lstrip()) + 1
    last_line = case["old_string"].split("\n")[-1]
    last_cut = len(last_line) - 1
    if last_cut <= 0 or not case["old_string"].split("\n")[0][first_cut:].strip():
        return None
    if (
        case["new_string"].split("\n")[-1] != last_line
        or case["new_string"][:first_cut] != case["old_string"][:first_cut]
    ):
        return None  # the intended edit touched the cut-off parts; pick another
    trim = len(last_line) - last_cut
    case["old_string"] = case["old_string"][first_cut:-trim]
    case["new_string"] = case["new_string"][first_cut:-trim]
    case["intended_old"] = case["intended_old"][first_cut:-trim]
    case["intended_new"] = case["intended_new"][first_cut:-trim]
    case["slip"] = "starts and ends mid-line, trailing blanks in the file"
    return case


def typographic(rng, text):
    """The file has typographic quotes/dashes in comments and docstrings; the model writes ASCII."""
    lines = text.split("\n")
    styled = []
    for line in lines:
        if line.strip().startswith("#") or (line.strip() and not any(c in line for c in "=()[]:")):
            line = re.sub(r"(?<=\w)'(?=\w)", "\u2019", line)
            line = re.sub(r'"([^"\n]+)"', "\u201c\\1\u201d", line)
            line = line.replace(" - ", " \u2014 " if len(line) % 2 else " \u2013 ")
        styled.append(line)
    file = "\n".join(styled)
    if file == text:
        return None
    changed = [k for k, (a, b) in enumerate(zip(lines, styled, strict=True)) if a != b]
    k0 = rng.choice(changed)
    start = max(k0 - rng.randint(0, 2), 0)
    end = min(k0 + rng.randint(1, 3), len(lines) - 1)
    chunk_ascii, chunk_file = lines[start:end], styled[start:end]
    if sum(1 for line in chunk_ascii if line.strip()) < 2 or file.count("\n".join(chunk_file)) != 1:
        return None
    new_ascii = intended_edit(rng, chunk_ascii)
    if new_ascii is None or new_ascii == chunk_ascii:
        return None
    intended_new = _restyle(chunk_ascii, chunk_file, new_ascii)
    if intended_new is None:
        return None
    return applied(
        file,
        "\n".join(chunk_file),
        "\n".join(intended_new),
        "\n".join(chunk_ascii),
        "\n".join(new_ascii),
        "ASCII quotes/dashes for the file's typographic ones",
    )


def _restyle(ascii_lines: list[str], file_lines: list[str], new_ascii: list[str]) -> list[str] | None:
    """What the edit should produce: unchanged lines as the file has them; a renamed line keeps its style."""
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, ascii_lines, new_ascii, autojunk=False
    ).get_opcodes():
        if tag == "equal":
            out += file_lines[i1:i2]
        elif tag == "replace" and i2 - i1 == 1 and j2 - j1 == 1:
            a, f, n = ascii_lines[i1], file_lines[i1], new_ascii[j1]
            if len(a) != len(f):
                return None  # a dash replacement changed the length; keep the corpus to 1:1 styles
            m = re.search(r"(\w+)_v2", n)
            if not m:
                return None
            pos = m.end(1)
            out.append(f[:pos] + "_v2" + f[pos:])
        else:
            out += new_ascii[j1:j2]
    return out


def line_numbers(rng, text):
    span = block(rng, text)
    if span is None:
        return None
    chunk = text.split("\n")[span[0] : span[1]]
    new_chunk = intended_edit(rng, chunk)
    if new_chunk is None:
        return None
    first = span[0] + 1
    old = "\n".join(f"{first + k}\t{line}" for k, line in enumerate(chunk))
    new = "\n".join(f"{first + k}\t{line}" for k, line in enumerate(new_chunk))
    return applied(
        text, "\n".join(chunk), "\n".join(new_chunk), old, new, "Read's line-number prefixes pasted in"
    )


def similar_blocks(rng, text):
    """A near-twin of the block sits elsewhere (one word differs); the file's block has trailing blanks the
    model left out. Only the true block fits, so the edit goes there and not to the twin."""
    span = block(rng, text, size=(2, 4))
    if span is None:
        return None
    lines = text.split("\n")
    chunk = lines[span[0] : span[1]]
    k = rng.randrange(0, len(chunk))
    words = list(re.finditer(r"\b[a-z_]{3,}\b", chunk[k]))
    if not words:
        return None
    m = rng.choice(words)
    twin = chunk[:k] + [chunk[k][: m.start()] + m.group() + "2" + chunk[k][m.end() :]] + chunk[k + 1 :]
    spaced = [line + "  " if line.strip() else line for line in chunk]
    at = min(span[1] + rng.randint(1, 6), len(lines) - 1)
    file = "\n".join(lines[: span[0]] + spaced + lines[span[1] : at] + twin + lines[at:])
    model_new = intended_edit(rng, chunk)
    if model_new is None or "\n".join(chunk) in file:
        return None  # the twin must not contain old_string verbatim (then exact matching rightly picks it)
    intended_new = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, chunk, model_new, autojunk=False).get_opcodes():
        intended_new += spaced[i1:i2] if tag == "equal" else model_new[j1:j2]
    return applied(
        file,
        "\n".join(spaced),
        "\n".join(intended_new),
        "\n".join(chunk),
        "\n".join(model_new),
        "trailing blanks in the file; a near-twin block elsewhere",
    )
