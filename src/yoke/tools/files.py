"""Plumbing the file tools share: resolving paths, remembering what the model has seen, decoding text,
writing atomically, and describing changes as Claude Code's `structuredPatch` hunks."""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from yoke.fsutil import replace_file
from yoke.paths import changed_since_judged
from yoke.tools.base import FileState, ToolContext, ToolError

_BINARY_SUFFIXES = (
    ".exe .dll .so .dylib .o .a .lib .obj .bin .class .jar .war .pyc .pyo .whl .zip .gz .tgz .bz2 .xz "
    ".zst .7z .rar .tar .iso .dmg .img .mp3 .mp4 .m4a .mov .avi .mkv .wav .flac .ogg .webm .ico .bmp "
    ".tiff .psd .ttf .otf .woff .woff2 .eot .sqlite .db .pdb .wasm .parquet .npy .npz .pkl .pt .onnx "
)
BINARY_EXTENSIONS = frozenset(_BINARY_SUFFIXES.split())
NOT_READ_MESSAGE = "File has not been read yet. Read it first before writing to it."
STALE_MESSAGE = (
    "File has been modified since read, either by the user or by a linter. "
    "Read it again before attempting to write it."
)


def resolve_path(raw: str, ctx: ToolContext) -> Path:
    """An absolute, normalised path. Relative paths are taken from the session's cwd (models slip)."""
    text = raw.strip()
    if not text:
        raise ToolError("The path is empty. Pass an absolute file path.")
    path = Path(os.path.expanduser(text))
    if not path.is_absolute():
        path = ctx.cwd / path
    return Path(os.path.normpath(path))


def state_key(path: Path) -> str:
    return os.path.realpath(path)


def display_path(path: Path, ctx: ToolContext) -> str:
    """A path as listed to the model: relative to cwd when inside it (fewer tokens), else absolute."""
    try:
        return str(path.relative_to(ctx.cwd))
    except ValueError:
        return str(path)


def file_state(st: os.stat_result, data: bytes, partial: bool = False) -> FileState:
    return FileState(st.st_mtime_ns, st.st_size, hashlib.sha256(data).hexdigest(), partial)


def read_bytes(path: Path) -> tuple[bytes, os.stat_result]:
    """The file's bytes and the stat taken from the same open file."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or device would block or never end
            if path.is_dir():
                raise IsADirectoryError
            raise ToolError(f"{path} is not a regular file (a device, socket or pipe).")
        with open(path, "rb") as f:
            opened = os.fstat(f.fileno())
            changed = changed_since_judged(str(path), opened)
            if changed:
                raise ToolError(changed)
            data = f.read()
            return data, opened
    except IsADirectoryError:
        raise ToolError(f"{path} is a directory, not a file.") from None
    except PermissionError:
        raise ToolError(f"Permission denied reading {path}.") from None


def remember(ctx: ToolContext, path: Path, state: FileState) -> None:
    ctx.session.read_files[state_key(path)] = state


def freshness(
    ctx: ToolContext, path: Path, data: bytes, st: os.stat_result
) -> Literal["unread", "fresh", "stale"]:
    """Whether the file is as the model last saw it. Equal content counts as unchanged even when the mtime
    moved (a formatter rewriting identical bytes, a `touch`), so the check never cries wolf."""
    seen = ctx.session.read_files.get(state_key(path))
    if seen is None:
        return "unread"
    if seen.mtime_ns == st.st_mtime_ns and seen.size == st.st_size:
        return "fresh"
    if seen.sha256 == hashlib.sha256(data).hexdigest():
        return "fresh"
    return "stale"


def require_fresh(ctx: ToolContext, path: Path, data: bytes, st: os.stat_result) -> None:
    state = freshness(ctx, path, data, st)
    if state == "unread":
        raise ToolError(NOT_READ_MESSAGE)
    if state == "stale":
        raise ToolError(STALE_MESSAGE)


def not_found_message(path: Path, ctx: ToolContext) -> str:
    message = f"File does not exist. Current working directory: {ctx.cwd}"
    suggestion = _similar_path(path, ctx)
    return f"{message} Did you mean {suggestion}?" if suggestion else message


def _similar_path(path: Path, ctx: ToolContext) -> str | None:
    # The model often drops the cwd prefix ("/src/app.py" for "<cwd>/src/app.py") or the extension.
    under_cwd = ctx.cwd / str(path).lstrip("/")
    if under_cwd != path and under_cwd.exists():
        return str(under_cwd)
    try:
        siblings = [p for p in path.parent.iterdir() if p.stem == path.stem and p != path]
    except OSError:
        return None
    return str(sorted(siblings)[0]) if siblings else None


def looks_binary(path: Path, head: bytes) -> bool:
    if path.suffix.lower() in BINARY_EXTENSIONS:
        return True
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 text carries NULs
        return False
    return b"\0" in head[:8192]


@dataclass(frozen=True, slots=True)
class TextCodec:
    """How a text file is stored, so an edit writes it back the same way."""

    encoding: str = "utf-8"
    bom: bytes = b""

    def encode(self, text: str) -> bytes:
        try:
            return self.bom + text.encode(self.encoding)
        except UnicodeEncodeError:  # new text a legacy encoding cannot hold: UTF-8 is the safe choice
            return text.encode("utf-8")


def decode_text(data: bytes) -> tuple[str, TextCodec]:
    """Decode with the file's own encoding: a BOM if present, else UTF-8, else Latin-1 (which round-trips any
    bytes, so editing an ASCII region of a legacy-encoded file leaves the rest untouched)."""
    for bom, encoding in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom) :].decode(encoding, errors="replace"), TextCodec(encoding, bom)
    try:
        return data.decode("utf-8"), TextCodec()
    except UnicodeDecodeError:
        return data.decode("latin-1"), TextCodec("latin-1")


def dominant_newline(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def display_lines(text: str) -> list[str]:
    """The file's lines as Read shows them: split on LF, carriage returns dropped, no phantom last line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def number_lines(lines: list[str], first: int) -> str:
    return "\n".join(f"{first + i}\t{line}" for i, line in enumerate(lines))


def atomic_write(path: Path, data: bytes) -> None:
    """Replace the file's content in one step (see `yoke.fsutil.replace_file`): mode bits of an existing file
    are kept; a symlink keeps pointing at its (rewritten) target; parents are created."""
    target = Path(os.path.realpath(path))
    changed = changed_since_judged(str(path), str(target))
    if changed:
        raise ToolError(changed)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ToolError(f"Cannot create the folder {target.parent}: {e.strerror}.") from None
    try:
        replace_file(target, data)
    except PermissionError:
        _write_in_place(target, data)  # the folder is read-only but the file may still be writable


def _write_in_place(target: Path, data: bytes) -> None:
    try:
        with open(target, "wb") as f:
            f.write(data)
    except PermissionError:
        raise ToolError(f"Permission denied writing {target}.") from None


def write_text(path: Path, text: str, codec: TextCodec) -> FileState:
    """Write atomically and return the new state (what the model now knows the file to be)."""
    data = codec.encode(text)
    atomic_write(path, data)
    return file_state(os.stat(path), data)


def structured_patch(old: str, new: str, context: int = 3) -> list[dict[str, Any]]:
    """Unified-diff hunks as Claude Code reports them: {oldStart, oldLines, newStart, newLines, lines}."""
    import difflib

    a, b = display_lines(old), display_lines(new)
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(" " + line for line in a[i1:i2])
                continue
            lines.extend("-" + line for line in a[i1:i2])
            lines.extend("+" + line for line in b[j1:j2])
        first, last = group[0], group[-1]
        old_lines, new_lines = last[2] - first[1], last[4] - first[3]
        hunks.append(
            {
                "oldStart": first[1] + 1 if old_lines else first[1],
                "oldLines": old_lines,
                "newStart": first[3] + 1 if new_lines else first[3],
                "newLines": new_lines,
                "lines": lines,
            }
        )
    return hunks


def patch_snippet(new_text: str, hunks: list[dict[str, Any]], max_lines: int = 60) -> str:
    """The changed regions of the new text with Read-style line numbers (what an edit returns), at most
    max_lines of them; "…" marks the lines left out between and after regions."""
    lines = display_lines(new_text)
    parts: list[str] = []
    budget = max_lines
    for hunk in hunks:
        start = max(hunk["newStart"], 1)
        chunk = lines[start - 1 : start - 1 + max(hunk["newLines"], 1)]
        if not chunk:
            continue
        if len(chunk) > budget:
            if budget:
                parts.append(number_lines(chunk[:budget], start))
            parts.append("…")
            break
        parts.append(number_lines(chunk, start))
        budget -= len(chunk)
    return "\n…\n".join(p for p in parts if p != "…") + ("\n…" if parts and parts[-1] == "…" else "")
