"""Grep: search file contents with ripgrep (or a Python stand-in), in Claude Code's three output modes."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.tools.base import Tool, ToolContext, ToolError, ToolResult
from yoke.tools.files import resolve_path
from yoke.tools.light import InputModel
from yoke.tools.ripgrep import VCS_EXCLUDES, rg_binary, run_rg

if TYPE_CHECKING:
    from yoke.tools.builtin.inputs import GrepInput

DEFAULT_HEAD_LIMIT = 250
MAX_COLUMNS = 500

DESCRIPTION = """\
Search file contents with a regular expression (ripgrep).

- Always use Grep for searching contents; do not run grep or rg through Bash.
- pattern is a ripgrep (Rust) regex: "log.*Error", "def\\s+\\w+". Escape literal braces and the like \
("interface\\{\\}" finds interface{}).
- Narrow the files with glob ("*.py", "*.{ts,tsx}") or type ("py", "js", "rust"; faster than glob for \
standard types); path is a file or folder (default: the working directory).
- output_mode: "files_with_matches" (default) lists matching files, most recently modified first; \
"content" shows matching lines (with -n line numbers, on by default, and -A/-B/-C context lines); \
"count" shows matches per file.
- Patterns match within one line unless multiline is true (then . also matches newlines).
- Results are paged: head_limit entries (default 250; 0 for all) starting after offset entries.
- Hidden files are searched; .git and files ignored by .gitignore are not.
- For open-ended searches that need several rounds, run searches in parallel."""


class GrepTool(Tool):
    name = "Grep"
    kind = "search"
    path_fields = ("path",)
    description = DESCRIPTION
    input_model = InputModel("GrepInput")  # type: ignore[assignment]  # pydantic, imported when needed
    read_only = True
    concurrency_safe = True

    def summary(self, input: Any) -> str:
        return f"Grep {input.pattern}" + (f" in {input.path}" if input.path else "")

    async def run(self, input: GrepInput, ctx: ToolContext) -> ToolResult:
        target = ctx.cwd if input.path in (None, "", "undefined", "null") else resolve_path(input.path, ctx)
        if not target.exists():
            raise ToolError(f"Path does not exist: {input.path}. Current working directory: {ctx.cwd}")
        mode = input.output_mode or "files_with_matches"
        mtimes = _Mtimes(ctx.cwd) if mode == "files_with_matches" else None
        if rg_binary() is None:
            from yoke.tools.pygrep import python_grep

            lines = await asyncio.to_thread(python_grep, input, mode, target, ctx.cwd)
            truncated = False
        else:
            args = rg_args(input, mode, target, ctx.cwd)
            output = await run_rg(args, ctx.cwd, ctx.cancel, on_lines=mtimes.feed if mtimes else None)
            output.check()
            lines, truncated = output.lines(), output.truncated
        if not target.is_file():  # a file searched directly was judged itself; below a folder, each file is
            lines = _without_withheld(lines, mode, ctx, target, walked=rg_binary() is not None)
        limit = DEFAULT_HEAD_LIMIT if input.head_limit is None else input.head_limit
        skip = input.offset or 0
        if mtimes is not None:
            await mtimes.complete(lines)
            return _files_result(lines, mtimes.table, limit, skip)
        if mode == "count":
            return _count_result(lines, limit, skip)
        return _content_result(lines, target.is_file(), _context_of(input) > 0, limit, skip, truncated)


def _without_withheld(lines: list[str], mode: str, ctx: ToolContext, target: Path, walked: bool) -> list[str]:
    """The result lines of files Read would show (the session's `read_withheld`: deny rules, secrets).

    Each file is judged once. After ripgrep's walk (which follows no link below the folder it was given)
    a file's real path is the folder's real path and the rest of its name, so nothing is resolved per file.
    """
    withheld = ctx.session.services.read_withheld
    if withheld is None:
        return lines
    names = list(dict.fromkeys(name for name in map(_name_of[mode], lines) if name))
    if not names:
        return lines
    prefix = "" if target == ctx.cwd else _rg_path(target, ctx.cwd).rstrip("/") + "/"
    if walked and all(name.startswith(prefix) for name in names):
        below = withheld([name[len(prefix) :] for name in names], str(target), os.path.realpath(target))
        hidden = {prefix + name for name in below}
    else:
        hidden = withheld(names, str(ctx.cwd), None)
    if not hidden:
        return lines
    name_of = _name_of[mode]
    return [line for line in lines if name_of(line) not in hidden]


def _content_name(line: str) -> str:
    name, nul, _ = line.partition("\0")
    return name if nul else ""  # a group separator names no file


_name_of: dict[str, Callable[[str], str]] = {
    "files_with_matches": lambda line: line,
    "count": lambda line: line.rpartition(":")[0],
    "content": _content_name,
}


class _Mtimes:
    """Modification times of the files ripgrep lists, looked up by the thread draining its output while
    it is still searching, so ordering thousands of results adds next to nothing to the search time."""

    def __init__(self, cwd: Path):
        self._cwd = str(cwd)
        self.table: dict[str, int] = {}

    def feed(self, names: list[str]) -> None:
        for name in names:
            try:
                self.table[name] = os.stat(os.path.join(self._cwd, name)).st_mtime_ns
            except OSError:
                self.table[name] = 0

    async def complete(self, names: list[str]) -> None:
        missing = [n for n in names if n not in self.table]  # the Python fallback feeds nothing
        if missing:
            await asyncio.to_thread(self.feed, missing)


def _context_of(input: GrepInput) -> int:
    return max(input.around or input.context or 0, input.after or 0, input.before or 0)


def rg_args(input: GrepInput, mode: str, target: Path, cwd: Path) -> list[str]:
    args = ["--hidden", *VCS_EXCLUDES, "--color", "never"]
    if input.ignore_case:
        args.append("-i")
    if input.multiline:
        args += ["-U", "--multiline-dotall"]
    if input.type:
        args += ["--type", input.type]
    for pattern in (input.glob or "").split():
        args += ["--glob", pattern]
    if mode == "files_with_matches":
        args.append("--files-with-matches")
    elif mode == "count":
        args += ["--count-matches", "--with-filename"]
    else:
        args += ["--no-heading", "--null", "--max-columns", str(MAX_COLUMNS), "--max-columns-preview"]
        args.append("--line-number" if input.line_numbers is not False else "--no-line-number")
        if input.only_matching:
            args.append("--only-matching")
        around = input.around if input.around is not None else input.context
        for flag, value in (("-C", around), ("-A", input.after), ("-B", input.before)):
            if value:
                args += [flag, str(value)]
    args += ["--regexp", input.pattern, "--"]
    if target != cwd:
        args.append(_rg_path(target, cwd))
    return args


def _rg_path(target: Path, cwd: Path) -> str:
    """The folder as ripgrep is given it (and prints it before each file found below it)."""
    return str(target.relative_to(cwd)) if target.is_relative_to(cwd) else str(target)


def _page(items: list[str], limit: int, skip: int) -> tuple[list[str], str]:
    """The requested page and, when more remain, a note saying how to get them."""
    page = items[skip : skip + limit] if limit else items[skip:]
    end = skip + len(page)
    if end < len(items):
        return page, f"(Showing {skip + 1}-{end} of {len(items)}; pass offset={end} to see more.)"
    return page, ""


def _files_result(lines: list[str], mtimes: dict[str, int], limit: int, skip: int) -> ToolResult:
    files = sorted((line for line in lines if line), key=lambda n: (-mtimes.get(n, 0), n))
    page, note = _page(files, limit, skip)
    data = {"mode": "files_with_matches", "numFiles": len(page), "filenames": page}
    _note_paging(data, limit, skip, note)
    if not files:
        return ToolResult("No files found", data=data)
    noun = "file" if len(files) == 1 else "files"
    text = f"Found {len(files)} {noun}\n" + "\n".join(page)
    return ToolResult(text + (f"\n{note}" if note else ""), data=data)


def _count_result(lines: list[str], limit: int, skip: int) -> ToolResult:
    entries = sorted(line for line in lines if line)
    page, note = _page(entries, limit, skip)
    total = sum(int(line.rpartition(":")[2] or 0) for line in entries if line.rpartition(":")[2].isdigit())
    data = {
        "mode": "count",
        "numFiles": len(entries),
        "filenames": [],
        "content": "\n".join(page),
        "numMatches": total,
    }
    _note_paging(data, limit, skip, note)
    if not entries:
        return ToolResult("No matches found", data=data)
    files = "file" if len(entries) == 1 else "files"
    summary = f"Found {total} total occurrence{'s' * (total != 1)} across {len(entries)} {files}."
    return ToolResult("\n".join(page) + f"\n\n{summary}" + (f"\n{note}" if note else ""), data=data)


def _content_result(
    lines: list[str], single_file: bool, with_context: bool, limit: int, skip: int, truncated: bool
) -> ToolResult:
    """ripgrep prints files in the order its threads finish; group lines by file (the path ends at the NUL
    byte) and order files by path, so pages fetched with offset are consistent between calls."""
    groups: dict[str, list[str]] = {}
    for line in lines:
        if line == "--":
            continue  # separators are rebuilt per file from the line numbers below
        path, nul, rest = line.partition("\0")
        if not nul:
            path, rest = "", line
        group = groups.setdefault(path, [])
        if group and with_context and _gap(group[-1], rest):
            group.append("--")
        group.append(rest)
    rendered: list[str] = []
    for path in sorted(groups):
        body = groups[path]
        if rendered and with_context:
            rendered.append("--")
        rendered += body if single_file or not path else [_with_path(path, b) for b in body]
    page, note = _page(rendered, limit, skip)
    files = [p for p in sorted(groups) if p and groups[p]]
    data = {
        "mode": "content",
        "numFiles": len(files),
        "filenames": files,
        "content": "\n".join(page),
        "numLines": len(page),
    }
    _note_paging(data, limit, skip, note)
    if not rendered:
        return ToolResult("No matches found", data=data)
    if truncated:
        note = (note + "\n" if note else "") + "(The search produced too much output and was stopped early.)"
    return ToolResult("\n".join(page) + (f"\n\n{note}" if note else ""), data=data)


def _with_path(path: str, line: str) -> str:
    """ripgrep's shape: `path:N:text` for a match, `path-N-text` for a context line."""
    if line == "--":
        return line
    number = _line_number(line)
    context = number is not None and line[len(str(number)) : len(str(number)) + 1] == "-"
    return f"{path}{'-' if context else ':'}{line}"


def _gap(previous: str, rest: str) -> bool:
    """Whether two lines of one file are not adjacent, so a "--" goes between them as ripgrep would."""
    a, b = _line_number(previous), _line_number(rest)
    return a is not None and b is not None and b > a + 1


def _line_number(line: str) -> int | None:
    digits = ""
    for ch in line:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else None


def _note_paging(data: dict[str, Any], limit: int, skip: int, note: str) -> None:
    if note:
        data["appliedLimit"] = limit
    if skip:
        data["appliedOffset"] = skip


def __getattr__(name: str) -> object:
    if name == "GrepInput":  # the input model lives with the others, so this module imports without pydantic
        from yoke.tools.builtin.inputs import GrepInput

        return GrepInput
    raise AttributeError(name)
