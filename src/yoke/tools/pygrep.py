"""Grep without ripgrep: Python's `re` over the same files ripgrep would search, printing lines in the
shapes `rg` prints them (so the Grep tool formats both alike). Slower, and regex syntax is Python's."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from yoke.tools.base import ToolError
from yoke.tools.walk import compile_glob, iter_files

if TYPE_CHECKING:
    from yoke.tools.builtin.grep import GrepInput

# The common ripgrep types; ripgrep itself knows hundreds.
FILE_TYPES = {
    "py": "*.{py,pyi}",
    "js": "*.{js,jsx,mjs,cjs,vue}",
    "ts": "*.{ts,tsx,mts,cts}",
    "rust": "*.rs",
    "go": "*.go",
    "java": "*.{java,jsp}",
    "c": "*.{c,h}",
    "cpp": "*.{cpp,cc,cxx,hpp,hh,hxx,h,inl}",
    "rb": "*.{rb,gemspec}",
    "php": "*.{php,phtml}",
    "sh": "*.{sh,bash,zsh}",
    "md": "*.{md,markdown}",
    "markdown": "*.{md,markdown}",
    "json": "*.json",
    "yaml": "*.{yaml,yml}",
    "toml": "*.toml",
    "html": "*.{html,htm}",
    "css": "*.{css,scss,sass,less}",
    "sql": "*.sql",
    "txt": "*.txt",
}


def python_grep(input: GrepInput, mode: str, target: Path, cwd: Path) -> list[str]:
    # ^ and $ anchor at line ends, as in ripgrep, which matches line by line.
    flags = re.MULTILINE | (re.IGNORECASE if input.ignore_case else 0) | (re.DOTALL if input.multiline else 0)
    try:
        regex = re.compile(input.pattern, flags)
    except re.error as e:
        raise ToolError(f"Invalid regular expression: {e}") from None
    out: list[str] = []
    for path, shown in _files(input, target, cwd):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue
        text = data.decode("utf-8", errors="replace")
        spans = [(m.start(), m.end()) for m in regex.finditer(text)]
        if not input.multiline:
            spans = [s for s in spans if "\n" not in text[s[0] : s[1]]]
        if not spans:
            continue
        if mode == "files_with_matches":
            out.append(shown)
        elif mode == "count":
            out.append(f"{shown}:{len(spans)}")
        else:
            prefix = "" if target.is_file() else f"{shown}\0"
            out += _content_lines(input, text, spans, prefix)
    return out


def _files(input: GrepInput, target: Path, cwd: Path):
    def shown(path: Path) -> str:
        return str(path.relative_to(cwd)) if path.is_relative_to(cwd) else str(path)

    if target.is_file():
        yield target, shown(target)
        return
    filters = [compile_glob(g) for g in (input.glob or "").split()]
    if input.type:
        if input.type not in FILE_TYPES:
            raise ToolError(f"unrecognized file type: {input.type}")
        filters.append(compile_glob(FILE_TYPES[input.type]))
    for rel in iter_files(target):
        if all(f.match(rel) for f in filters):
            yield target / rel, shown(target / rel)


def _content_lines(input: GrepInput, text: str, spans: list[tuple[int, int]], prefix: str) -> list[str]:
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()

    def line_at(pos: int) -> int:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo

    matched: dict[int, list[str]] = {}
    for start, end in spans:
        first, last = line_at(start), line_at(max(start, end - 1))
        for n in range(first, last + 1):
            matched.setdefault(n, []).append(text[start:end])
    around = input.around if input.around is not None else input.context
    before, after = input.before or around or 0, input.after or around or 0
    wanted = sorted(
        {k for n in matched for k in range(max(n - before, 0), min(n + after, len(lines) - 1) + 1)}
    )
    numbered = input.line_numbers is not False
    out = []
    for n in wanted:
        sep = ":" if n in matched else "-"
        body = lines[n].rstrip("\r")
        if input.only_matching and n in matched:
            out += [f"{prefix}{n + 1}{sep}{part}" if numbered else f"{prefix}{part}" for part in matched[n]]
            continue
        out.append(f"{prefix}{n + 1}{sep}{body}" if numbered else f"{prefix}{body}")
    return out
