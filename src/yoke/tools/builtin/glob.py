"""Glob: find files by name pattern, newest first."""

from __future__ import annotations

import asyncio
import heapq
import os
import time
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from yoke.regex import lazy_compile
from yoke.tools.base import Tool, ToolContext, ToolError, ToolResult
from yoke.tools.files import display_path, resolve_path
from yoke.tools.light import InputModel
from yoke.tools.ripgrep import VCS_EXCLUDES, LineSink, rg_binary, run_rg

if TYPE_CHECKING:
    from yoke.tools.builtin.inputs import GlobInput

MAX_FILES = 100
_GLOB_CHARS = frozenset("*?[{")
_SLASH_IN_BRACES = lazy_compile(r"\{[^}]*/")

DESCRIPTION = """\
Find files by name with a glob pattern, in a codebase of any size.

- Patterns like "**/*.py", "src/**/*.ts" or "*.{json,yaml}"; a pattern without a slash matches file names at \
any depth, one with a slash is taken from the search folder.
- Results are file paths, the most recently modified first, at most 100 (narrow the pattern or path when \
the list is cut).
- path is the folder to search (default: the working directory); omit it rather than passing "null".
- Hidden files are included; .git and files ignored by .gitignore are skipped (ignored files are listed only \
when nothing else matches).
- Use Grep to search file contents. For open-ended searches that need several rounds, search in parallel."""


class GlobTool(Tool):
    name = "Glob"
    kind = "search"
    path_fields = ("path",)
    description = DESCRIPTION
    input_model = InputModel("GlobInput")  # type: ignore[assignment]  # pydantic, imported when needed
    read_only = True
    concurrency_safe = True

    def summary(self, input: Any) -> str:
        return f"Glob {input.pattern}" + (f" in {input.path}" if input.path else "")

    async def run(self, input: GlobInput, ctx: ToolContext) -> ToolResult:
        began = time.monotonic()
        root, pattern = _split_pattern(input.pattern, input.path, ctx)
        respect = not _env_true(ctx, "CLAUDE_CODE_GLOB_NO_IGNORE")
        walked = rg_binary() is not None  # ripgrep's walk follows no link below root
        mtimes = _Mtimes(str(root))
        files = await find_files(root, pattern, respect, ctx.cancel, mtimes.feed)
        ignored_only = False
        if not files and respect:
            files = await find_files(root, pattern, False, ctx.cancel, mtimes.feed)
            ignored_only = bool(files)
        denied = ctx.session.services.read_denied
        if (
            denied is not None and files
        ):  # a name a Read deny rule covers is not listed (a rule hides it everywhere)
            hidden = denied(files, str(root), os.path.realpath(root) if walked else None)
            files = [f for f in files if f not in hidden] if hidden else files
        shown = [root / name for name in await asyncio.to_thread(mtimes.newest, files, MAX_FILES)]
        names = [display_path(p, ctx) for p in shown]
        data = {
            "durationMs": int((time.monotonic() - began) * 1000),
            "numFiles": len(shown),
            "filenames": names,
            "truncated": len(files) > MAX_FILES,
        }
        if not names:
            return ToolResult("No files found", data=data)
        text = "\n".join(names)
        if ignored_only:
            text = "(Only files ignored by .gitignore match this pattern:)\n" + text
        if data["truncated"]:
            text += (
                f"\n(Results are truncated: showing {MAX_FILES} of {len(files)} files. "
                "Use a more specific path or pattern.)"
            )
        return ToolResult(text, data=data)


def _split_pattern(pattern: str, path: str | None, ctx: ToolContext) -> tuple[Path, str]:
    """The folder to search and a pattern relative to it. Leading folder names without wildcards move into
    the folder ("src/*.py" searches src for "/*.py"; an absolute pattern carries its own folder), keeping
    the pattern anchored so it still means what it meant."""
    pattern = os.path.expanduser(pattern.strip())
    if not pattern:
        raise ToolError("The pattern is empty.")
    root = ctx.cwd if path in (None, "", "undefined", "null") else resolve_path(path, ctx)
    if os.path.isabs(pattern):
        root, pattern = Path("/"), pattern.lstrip("/")
    parts = PurePosixPath(pattern).parts
    fixed = next((k for k, part in enumerate(parts) if _GLOB_CHARS & set(part)), len(parts) - 1)
    if fixed > 0:
        root = Path(os.path.normpath(root.joinpath(*parts[:fixed])))
        rest = "/".join(parts[fixed:])
        pattern = rest if "/" in rest else "/" + rest
    if not pattern.strip("/"):
        raise ToolError('The pattern names a folder, not files: add a file pattern such as "**/*".')
    if not root.exists():
        raise ToolError(f"Directory does not exist: {root}")
    if not root.is_dir():
        raise ToolError(f"Path is not a directory: {root}")
    return root, pattern


def _env_true(ctx: ToolContext, name: str) -> bool:
    value = (os.environ if ctx.env is None else ctx.env).get(name, "")
    return value.strip().lower() in ("1", "true", "yes", "on")


async def find_files(
    root: Path, pattern: str, respect_gitignore: bool, cancel: asyncio.Event, on_lines: LineSink | None = None
) -> list[str]:
    """Files under root matching the glob, as paths relative to it, via ripgrep when available, else a
    Python walk. `on_lines` sees them in batches while ripgrep still walks."""
    if rg_binary() is None:
        from yoke.tools.walk import compile_glob, iter_files

        def walk() -> list[str]:
            regex = compile_glob(pattern)
            return [rel for rel in iter_files(root, respect_gitignore) if regex.match(rel)]

        return await asyncio.to_thread(walk)
    args = ["--files", "--hidden", "--glob", pattern, *VCS_EXCLUDES]
    depth = max_depth(pattern)
    if depth is not None:
        args += ["--max-depth", str(depth)]
    if not respect_gitignore:
        args.append("--no-ignore")
    output = await run_rg(args, root, cancel, on_lines=on_lines)
    output.check()
    return [line for line in output.lines() if line]


def max_depth(pattern: str) -> int | None:
    """How deep below the folder a pattern can match: an anchored pattern without `**` ("/*.py",
    "/a*/*.md") names its depth, so the walk stops there instead of going through the whole tree; None
    for a pattern that matches at any depth (no slash but a trailing one, `**`, a slash inside braces)."""
    body = pattern.rstrip("/")
    if "/" not in body.lstrip("/") and not body.startswith("/"):
        return None  # a bare name pattern matches at any depth
    if "**" in body or _SLASH_IN_BRACES.search(body):
        return None
    return len([part for part in body.split("/") if part])


class _Mtimes:
    """Modification times of the files found, looked up by the thread draining ripgrep's output while it is
    still walking (ordering tens of thousands of files otherwise costs as much as the walk)."""

    def __init__(self, root: str):
        self._root = root.rstrip("/")
        self.table: dict[str, float] = {}

    def feed(self, names: list[str]) -> None:
        root, table, stat = self._root, self.table, os.stat
        for name in names:
            try:
                table[name] = stat(f"{root}/{name}").st_mtime
            except OSError:
                table[name] = 0.0

    def newest(self, names: list[str], count: int) -> list[str]:
        """The `count` most recently modified of `names`, newest first (by name among equals)."""
        self.feed([n for n in names if n not in self.table])  # the Python walk feeds nothing
        table = self.table
        return heapq.nsmallest(count, names, key=lambda n: (-table[n], n))


def __getattr__(name: str) -> object:
    if name == "GlobInput":  # the input model lives with the others, so this module imports without pydantic
        from yoke.tools.builtin.inputs import GlobInput

        return GlobInput
    raise AttributeError(name)
