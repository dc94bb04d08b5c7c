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
import sysconfig
from collections.abc import Callable
from pathlib import Path

import near_misses
import refusals

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


KINDS: dict[str, Callable] = {
    "indent-less": near_misses.indent_less,
    "indent-more": near_misses.indent_more,
    "crlf": near_misses.crlf,
    "crlf-indent": near_misses.crlf_and_indent,
    "trailing-file": near_misses.trailing_in_file,
    "trailing-old": near_misses.trailing_in_old,
    "trailing-indent": near_misses.trailing_and_indent,
    "mid-line": near_misses.mid_line_ends,
    "typographic": near_misses.typographic,
    "line-numbers": near_misses.line_numbers,
    "similar-blocks": near_misses.similar_blocks,
    "dup-exact": refusals.duplicate_exact,
    "dup-indent": refusals.duplicate_block_indent,
    "dup-trailing": refusals.duplicate_block_trailing,
    "dup-typographic": refusals.duplicate_typographic,
    "dup-numbered": refusals.duplicate_numbered,
    "not-in-file": refusals.not_in_file,
}


if __name__ == "__main__":
    main()
