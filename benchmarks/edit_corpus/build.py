"""Build the edit-robustness corpus from excerpts of the installed Python standard library.

Run: `python benchmarks/edit_corpus/build.py` (rewrites benchmarks/edit_corpus/cases/*.json). The committed
cases are the record; rebuilding on another Python version gives different excerpts of the same kinds.

Each case is a file excerpt, the old_string/new_string a model sent, and the expectation:
- "applied": the model meant `intended_old` -> `intended_new` (text that really is in the file, once), but
  its strings carry a realistic slip: wrong indentation, LF for CRLF, missing or extra trailing spaces,
  ASCII for typographic quotes or dashes, Read's line-number prefixes, or a mix. The file after the edit
  must equal the excerpt with intended_old replaced by intended_new.
- "refused": the strings fit several places (exactly, or after forgiving a slip) or none: the edit must be
  refused and the file left alone.
"""

from __future__ import annotations

import json
import random
import re
import sysconfig
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).parent
SOURCES = [
    "textwrap.py",
    "difflib.py",
    "argparse.py",
    "json/encoder.py",
    "shutil.py",
    "calendar.py",
    "csv.py",
    "pprint.py",
    "configparser.py",
    "logging/__init__.py",
    "http/client.py",
    "email/utils.py",
    "tempfile.py",
    "inspect.py",
    "dataclasses.py",
    "functools.py",
    "zipfile.py",
    "tarfile.py",
    "subprocess.py",
    "typing.py",
]
EXCERPT_LINES = 40
PER_KIND = 8


def main() -> None:
    rng = random.Random(20261122)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    excerpts = [e for name in SOURCES for e in _excerpts(stdlib / name, name)]
    out = HERE / "cases"
    out.mkdir(exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    number = 0
    for kind, make in KINDS.items():
        made, attempts = 0, 0
        while made < PER_KIND and attempts < 2000:
            attempts += 1
            source, text = rng.choice(excerpts)
            case = make(rng, text)
            if case is None or not _valid(case):
                continue
            number += 1
            made += 1
            case = {"id": f"{number:03d}-{kind}", "kind": kind, "source": source, **case}
            (out / f"{case['id']}.json").write_text(json.dumps(case, indent=1, ensure_ascii=False) + "\n")
        if made < PER_KIND:
            raise SystemExit(f"could only make {made} cases of kind {kind}")
    print(f"wrote {number} cases to {out}")


def _excerpts(path: Path, name: str) -> list[tuple[str, str]]:
    lines = path.read_text(encoding="utf-8").split("\n")
    found = []
    for start in range(0, len(lines) - EXCERPT_LINES, EXCERPT_LINES * 3):
        chunk = lines[start : start + EXCERPT_LINES]
        if sum(1 for line in chunk if line.startswith("        ")) >= 8:
            found.append((f"Lib/{name} lines {start + 1}-{start + EXCERPT_LINES}", "\n".join(chunk) + "\n"))
    return found


def _valid(case: dict) -> bool:
    file = case["file"]
    if case["expect"] == "refused":
        return True
    return file.count(case["intended_old"]) == 1 and case["intended_old"] != case["intended_new"]


# ---- picking a block and an intended edit -----------------------------------------------------------------


def _block(
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


def _intended_edit(rng: random.Random, chunk: list[str]) -> list[str] | None:
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


def _applied(file: str, intended_old: str, intended_new: str, old: str, new: str, slip: str) -> dict:
    return {
        "slip": slip,
        "file": file,
        "old_string": old,
        "new_string": new,
        "expect": "applied",
        "intended_old": intended_old,
        "intended_new": intended_new,
    }


def _refused(file: str, old: str, new: str, why: str) -> dict:
    return {"slip": why, "file": file, "old_string": old, "new_string": new, "expect": "refused"}


def _shift(lines: list[str], delta: int) -> list[str]:
    if delta >= 0:
        return [(" " * delta + line) if line.strip() else line for line in lines]
    return [line[-delta:] if line.strip() else line for line in lines]


# ---- kinds that must be applied ----------------------------------------------------------------------


def indent_less(rng, text):
    return _indent_case(rng, text, -4)


def indent_more(rng, text):
    return _indent_case(rng, text, 4)


def _indent_case(rng, text, delta):
    span = _block(rng, text, min_indent=8 if delta < 0 else 0)
    if span is None:
        return None
    lines = text.split("\n")
    chunk = lines[span[0] : span[1]]
    new_chunk = _intended_edit(rng, chunk)
    if new_chunk is None:
        return None
    old, new = "\n".join(_shift(chunk, delta)), "\n".join(_shift(new_chunk, delta))
    return _applied(
        text, "\n".join(chunk), "\n".join(new_chunk), old, new, f"indentation shifted by {delta:+d}"
    )


def crlf(rng, text):
    span = _block(rng, text)
    if span is None:
        return None
    chunk = text.split("\n")[span[0] : span[1]]
    new_chunk = _intended_edit(rng, chunk)
    if new_chunk is None:
        return None
    file = text.replace("\n", "\r\n")
    return _applied(
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
    span = _block(rng, text, min_indent=8 if delta < 0 else 0)
    if span is None:
        return None
    lines = _with_trailing_spaces(rng, text.split("\n"), span)
    file = "\n".join(lines)
    chunk = lines[span[0] : span[1]]
    model_chunk = [line.rstrip() for line in chunk]
    model_new = _intended_edit(rng, model_chunk)
    if model_new is None:
        return None
    # Intended result: lines the model kept stay as the file has them (trailing blanks included).
    import difflib

    intended_new = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, model_chunk, model_new, autojunk=False
    ).get_opcodes():
        intended_new += chunk[i1:i2] if tag == "equal" else model_new[j1:j2]
    old, new = "\n".join(_shift(model_chunk, delta)), "\n".join(_shift(model_new, delta))
    slip = "trailing blanks in the file, none in old_string" + (
        f", indentation shifted by {delta:+d}" if delta else ""
    )
    return _applied(file, "\n".join(chunk), "\n".join(intended_new), old, new, slip)


def trailing_and_indent(rng, text):
    return trailing_in_file(rng, text, -4)


def trailing_in_old(rng, text):
    span = _block(rng, text)
    if span is None:
        return None
    chunk = text.split("\n")[span[0] : span[1]]
    new_chunk = _intended_edit(rng, chunk)
    if new_chunk is None:
        return None
    old = "\n".join(line + "  " if k % 2 == 0 and line.strip() else line for k, line in enumerate(chunk))
    return _applied(
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
    new_ascii = _intended_edit(rng, chunk_ascii)
    if new_ascii is None or new_ascii == chunk_ascii:
        return None
    intended_new = _restyle(chunk_ascii, chunk_file, new_ascii)
    if intended_new is None:
        return None
    return _applied(
        file,
        "\n".join(chunk_file),
        "\n".join(intended_new),
        "\n".join(chunk_ascii),
        "\n".join(new_ascii),
        "ASCII quotes/dashes for the file's typographic ones",
    )


def _restyle(ascii_lines: list[str], file_lines: list[str], new_ascii: list[str]) -> list[str] | None:
    """What the edit should produce: unchanged lines as the file has them; a renamed line keeps its style."""
    import difflib

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
    span = _block(rng, text)
    if span is None:
        return None
    chunk = text.split("\n")[span[0] : span[1]]
    new_chunk = _intended_edit(rng, chunk)
    if new_chunk is None:
        return None
    first = span[0] + 1
    old = "\n".join(f"{first + k}\t{line}" for k, line in enumerate(chunk))
    new = "\n".join(f"{first + k}\t{line}" for k, line in enumerate(new_chunk))
    return _applied(
        text, "\n".join(chunk), "\n".join(new_chunk), old, new, "Read's line-number prefixes pasted in"
    )


def similar_blocks(rng, text):
    """A near-twin of the block sits elsewhere (one word differs); the file's block has trailing blanks the
    model left out. Only the true block fits, so the edit goes there and not to the twin."""
    span = _block(rng, text, size=(2, 4))
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
    model_new = _intended_edit(rng, chunk)
    if model_new is None or "\n".join(chunk) in file:
        return None  # the twin must not contain old_string verbatim (then exact matching rightly picks it)
    import difflib

    intended_new = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, chunk, model_new, autojunk=False).get_opcodes():
        intended_new += spaced[i1:i2] if tag == "equal" else model_new[j1:j2]
    return _applied(
        file,
        "\n".join(spaced),
        "\n".join(intended_new),
        "\n".join(chunk),
        "\n".join(model_new),
        "trailing blanks in the file; a near-twin block elsewhere",
    )


def duplicate_numbered(rng, text):
    """Read's line-number prefixes pasted in, for a block that occurs twice: not guessed from the numbers."""
    span = _block(rng, text, size=(2, 3))
    if span is None:
        return None
    lines = text.split("\n")
    chunk = lines[span[0] : span[1]]
    at = min(span[1] + rng.randint(1, 6), len(lines) - 1)
    file_lines = lines[:at] + chunk + lines[at:]
    old = "\n".join(f"{span[0] + 1 + k}\t{line}" for k, line in enumerate(chunk))
    return _refused(
        "\n".join(file_lines),
        old,
        old + " # edited",
        "line-number prefixes pasted in; the block occurs twice",
    )


# ---- kinds that must be refused ------------------------------------------------------------------------


def duplicate_exact(rng, text):
    lines = text.split("\n")
    repeated = [
        line for line in set(lines) if line.strip() and len(line.strip()) > 3 and lines.count(line) > 1
    ]
    if not repeated:
        return None
    line = rng.choice(sorted(repeated))
    return _refused(text, line.strip(), line.strip() + "  # edited", "exact old_string occurs more than once")


def duplicate_block_indent(rng, text, shift_copy: int = 4, model_shift: int = -4):
    """A block repeated elsewhere at another indentation (similar code in two methods); the model's
    old_string has a third indentation, so a loose match fits both places."""
    span = _block(rng, text, min_indent=8, size=(2, 4))
    if span is None:
        return None
    lines = text.split("\n")
    chunk = lines[span[0] : span[1]]
    copy = _shift(chunk, shift_copy)
    at = rng.randrange(0, len(lines) - 1)
    if span[0] <= at <= span[1]:
        return None
    file_lines = lines[:at] + copy + lines[at:]
    file = "\n".join(file_lines)
    old = "\n".join(_shift(chunk, model_shift))
    if old in file:
        return None
    new = old + "\n" + old.split("\n")[-1]
    return _refused(file, old, new, "wrong indentation; the block occurs twice at different indentations")


def duplicate_block_trailing(rng, text):
    """Two identical copies with trailing blanks; old_string without them fits both."""
    span = _block(rng, text, size=(2, 4))
    if span is None:
        return None
    lines = text.split("\n")
    chunk = [line + "  " if line.strip() else line for line in lines[span[0] : span[1]]]
    file_lines = lines[: span[0]] + chunk + lines[span[1] :]
    at = min(span[1] + rng.randint(2, 8), len(file_lines) - 1)
    file_lines = file_lines[:at] + chunk + file_lines[at:]
    old = "\n".join(line.rstrip() for line in chunk)
    return _refused(
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
    return _refused(
        "\n".join(file_lines), old, old.replace("fast", "slow"), "ASCII quotes; the phrase occurs twice"
    )


def not_in_file(rng, text):
    """A line the model misremembers (a word that is not there): nothing fits, must not be guessed."""
    span = _block(rng, text)
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
        _shift(chunk, -4) if all(len(x) - len(x.lstrip()) >= 4 for x in chunk if x.strip()) else chunk
    )
    return _refused(text, old, old + "\npass", "a misremembered word: no place fits")


KINDS: dict[str, Callable] = {
    "indent-less": indent_less,
    "indent-more": indent_more,
    "crlf": crlf,
    "crlf-indent": crlf_and_indent,
    "trailing-file": trailing_in_file,
    "trailing-old": trailing_in_old,
    "trailing-indent": trailing_and_indent,
    "mid-line": mid_line_ends,
    "typographic": typographic,
    "line-numbers": line_numbers,
    "similar-blocks": similar_blocks,
    "dup-exact": duplicate_exact,
    "dup-indent": duplicate_block_indent,
    "dup-trailing": duplicate_block_trailing,
    "dup-typographic": duplicate_typographic,
    "dup-numbered": duplicate_numbered,
    "not-in-file": not_in_file,
}


if __name__ == "__main__":
    main()
