"""Where the file tools read and write text: the local disk, or a front-end that holds the newer truth.

An editor keeps unsaved buffers the disk has not seen yet, and wants to see the agent's writes as they
happen (ACP's `fs/read_text_file` and `fs/write_text_file`). Such a front-end hands in a `WorkspaceFiles`
(`SessionOptions.workspace_files`); it reaches every tool call as `ToolContext.files`. When it is None (the
default) the tools use the local disk byte-exactly, keeping each file's encoding and byte-order mark.

Only text files inside the session's working directories go through it: Read's images, PDFs and
notebooks, binary files, files elsewhere, NotebookEdit and everything the shell does stay on the disk.
Permission checks, hooks and checkpoints happen around the tool call and are the same either way; the
read-before-edit record of text read through it is a hash of that text.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from yoke.paths import changed_since_judged
from yoke.tools.base import FileState, ToolContext, ToolError


@runtime_checkable
class WorkspaceFiles(Protocol):
    """A front-end's view of the workspace's text files (e.g. an editor with open buffers)."""

    reads_text: bool  # read_text may be called (else reads go to the disk)
    writes_text: bool  # write_text may be called (else writes go to the disk)

    async def read_text(self, path: Path) -> str:
        """The file's current text as the front-end holds it; raise if it cannot be read."""
        ...

    async def write_text(self, path: Path, text: str) -> None:
        """Replace the file's whole text (creating it); raise if it cannot be written."""
        ...


def reader(ctx: ToolContext, path: Path) -> WorkspaceFiles | None:
    """The front-end to read this file's text through, if any."""
    files = ctx.files
    ok = files is not None and getattr(files, "reads_text", False) and in_workspace(ctx, path)
    return files if ok else None


def writer(ctx: ToolContext, path: Path) -> WorkspaceFiles | None:
    """The front-end to write this file's text through, if any."""
    files = ctx.files
    ok = files is not None and getattr(files, "writes_text", False) and in_workspace(ctx, path)
    return files if ok else None


def in_workspace(ctx: ToolContext, path: Path) -> bool:
    """Inside one of the session's working directories. Files elsewhere (Yoke's own memory and plan files,
    a temporary file) are not the editor's business: they stay on the disk."""
    real = os.path.realpath(path)
    for folder in ctx.all_dirs():
        root = os.path.realpath(folder)
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return True
    return False


def text_state(text: str, partial: bool = False) -> FileState:
    """What the model knows of a file it saw as text from the front-end: no mtime, the text's hash."""
    data = text.encode("utf-8")
    return FileState(-1, len(data), hashlib.sha256(data).hexdigest(), partial)


def text_freshness(ctx: ToolContext, path: Path, text: str) -> Literal["unread", "fresh", "stale"]:
    """As `files.freshness`, for text the front-end gave: fresh when it is the text the model last saw."""
    seen = ctx.session.read_files.get(os.path.realpath(path))
    if seen is None:
        return "unread"
    return "fresh" if seen.sha256 == text_state(text).sha256 else "stale"


async def fetch_text(files: WorkspaceFiles, path: Path) -> str:
    """The text through the front-end, refusing a path swapped for a symlink since the gate judged it."""
    if path.exists():
        changed = changed_since_judged(str(path), os.stat(path))
        if changed:
            raise ToolError(changed)
    try:
        text = await files.read_text(path)
    except ToolError:
        raise
    except Exception as exc:  # the front-end's own failure, reported as it gave it
        raise ToolError(f"Reading {path} through the editor failed: {_reason(exc)}") from None
    if not isinstance(text, str):
        raise ToolError(f"Reading {path} through the editor failed: it returned no text.")
    return text


async def put_text(files: WorkspaceFiles, path: Path, text: str) -> FileState:
    """Write through the front-end (after the same symlink check a local write makes); the new state."""
    changed = changed_since_judged(str(path), os.path.realpath(path))
    if changed:
        raise ToolError(changed)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # Write promises missing folders are created
    except OSError as e:
        raise ToolError(f"Cannot create the folder {path.parent}: {e.strerror}.") from None
    try:
        await files.write_text(path, text)
    except ToolError:
        raise
    except Exception as exc:
        raise ToolError(f"Writing {path} through the editor failed: {_reason(exc)}") from None
    return text_state(text)


def _reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
