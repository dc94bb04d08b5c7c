"""Read: a file's lines numbered as `cat -n` numbers them, or an image, a notebook, or PDF pages."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from yoke.tools.base import FileState, Tool, ToolContext, ToolError, ToolResult
from yoke.tools.files import (
    decode_text,
    display_lines,
    file_state,
    looks_binary,
    not_found_message,
    number_lines,
    read_bytes,
    remember,
    resolve_path,
)
from yoke.tools.light import InputModel
from yoke.tools.workspace import WorkspaceFiles, fetch_text, reader, text_state

if TYPE_CHECKING:
    from yoke.tools.builtin.inputs import ReadInput

DEFAULT_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 100_000  # about 25k tokens: beyond this a read returns a first page and says so
STREAM_ABOVE_BYTES = 1024 * 1024  # larger text files are read in one streaming pass, only the window kept
MAX_IMAGE_BYTES = 3_750_000  # the API's 5 MB base64 ceiling
MAX_PDF_BYTES = 32 * 1024 * 1024
PDF_PAGES_WITHOUT_RANGE = 10
PDF_PAGES_PER_CALL = 20
IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
NOT_TEXT_EXTENSIONS = IMAGE_EXTENSIONS | {".pdf", ".ipynb"}  # read by their own readers, not as text
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
EMPTY_FILE_NOTE = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"

DESCRIPTION = """\
Read a file from the local filesystem and return its contents.

- file_path should be an absolute path (a relative one is taken from the working directory).
- By default up to 2000 lines are returned from the start of the file. For long files pass offset (the line \
number to start at, counting from 1) and limit (how many lines) to read a part; reading the whole file is \
usually best when it is not huge.
- Lines longer than 2000 characters are cut short and marked.
- The output is numbered like `cat -n`: the line number, a tab, then the line. The number and tab are not \
part of the file: never include them in an Edit's old_string.
- Images (PNG, JPEG, GIF, WebP) are shown to you as images.
- Jupyter notebooks (.ipynb) come back as their cells with outputs.
- PDFs come back as extracted text; for more than 10 pages pass pages (e.g. "1-5"), at most 20 pages a call.
- Read files, not directories: list a directory with Glob or `ls` in Bash.
- You can call Read on several files in parallel; prefer that to reading them one by one.
- Reading a file is what allows Write and Edit to change it afterwards."""


class ReadTool(Tool):
    name = "Read"
    kind = "read"
    path_fields = ("file_path",)
    description = DESCRIPTION
    input_model = InputModel("ReadInput")  # type: ignore[assignment]  # pydantic, imported when needed
    read_only = True
    concurrency_safe = True
    max_result_chars: ClassVar[int] = 10_000_000  # Read bounds its own output; images must never be spilled

    def summary(self, input: Any) -> str:
        return f"Read {input.file_path}"

    async def run(self, input: ReadInput, ctx: ToolContext) -> ToolResult:
        path = resolve_path(input.file_path, ctx)
        files = reader(ctx, path)
        if files is not None and await asyncio.to_thread(_plain_text, path, input, ctx):
            return await _read_through(files, path, input, ctx)  # the editor's buffer, saved or not
        if files is None and _small_text_file(path):
            return self._read(path, input, ctx)  # sooner read than handed to a thread and back
        return await asyncio.to_thread(self._read, path, input, ctx)

    def _read(self, path: Path, input: ReadInput, ctx: ToolContext) -> ToolResult:
        _check_target(path, input, ctx)
        suffix = path.suffix.lower()
        if suffix in IMAGE_EXTENSIONS:
            return _read_image(path, ctx)
        if suffix == ".pdf":
            return _read_pdf(path, input.pages, ctx)
        if suffix == ".ipynb":
            from yoke.tools.builtin.notebook import read_notebook

            return read_notebook(path, ctx)
        return _read_text(path, input, ctx)


INLINE_READ_BYTES = 64 * 1024


def _small_text_file(path: Path) -> bool:
    """A regular file small enough to read without leaving the event loop (and not an image, PDF or
    notebook, whose handling takes longer)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    return (
        stat.S_ISREG(info.st_mode)
        and info.st_size <= INLINE_READ_BYTES
        and path.suffix.lower() not in NOT_TEXT_EXTENSIONS
    )


def _check_target(path: Path, input: ReadInput, ctx: ToolContext) -> None:
    if not path.exists():
        raise ToolError(not_found_message(path, ctx))
    if path.is_dir():
        raise ToolError(f"{path} is a directory, not a file. List its contents with Glob or `ls` in Bash.")
    if not path.is_file():
        raise ToolError(f"{path} is not a regular file (a device, socket or pipe); Read cannot show it.")
    if input.pages is not None and path.suffix.lower() != ".pdf":
        raise ToolError("pages applies only to PDF files; use offset and limit for other files.")


def _plain_text(path: Path, input: ReadInput, ctx: ToolContext) -> bool:
    """Whether this read is of a text file (what an editor's buffer can stand for), checked on the disk."""
    _check_target(path, input, ctx)
    if path.suffix.lower() in NOT_TEXT_EXTENSIONS:
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(8192)
    except PermissionError:
        raise ToolError(f"Permission denied reading {path}.") from None
    _refuse_binary(path, head)
    return True


async def _read_through(files: WorkspaceFiles, path: Path, input: ReadInput, ctx: ToolContext) -> ToolResult:
    text = await fetch_text(files, path)
    return await asyncio.to_thread(_text_window, path, text, input, ctx)


def _text_window(path: Path, text: str, input: ReadInput, ctx: ToolContext) -> ToolResult:
    start = max(input.offset or 1, 1)
    lines = display_lines(text)
    window = lines[start - 1 : start - 1 + (input.limit or DEFAULT_LINES)]
    return _text_result(path, start, window, len(lines), text_state(text), ctx)


def _read_text(path: Path, input: ReadInput, ctx: ToolContext) -> ToolResult:
    start = max(input.offset or 1, 1)
    limit = input.limit or DEFAULT_LINES
    loader = _stream_window if path.stat().st_size > STREAM_ABOVE_BYTES else _load_window
    window, total, st, digest = loader(path, start, limit)
    return _text_result(path, start, window, total, FileState(st.st_mtime_ns, st.st_size, digest), ctx)


def _text_result(
    path: Path, start: int, window: list[str], total: int, state: FileState, ctx: ToolContext
) -> ToolResult:
    """The numbered window the model sees; remembers what it saw (partial when not the whole file)."""
    shown, cut_by_budget = _fit_budget(window)
    state.partial = start > 1 or start - 1 + len(shown) < total
    remember(ctx, path, state)
    file_data = {
        "filePath": str(path),
        "content": "\n".join(window[: len(shown)]),
        "numLines": len(shown),
        "startLine": start,
        "totalLines": total,
    }
    if cut_by_budget:
        file_data["truncatedByTokenCap"] = True
    result = {"type": "text", "file": file_data}
    if not total:
        return ToolResult(EMPTY_FILE_NOTE, data=result)
    if not window:
        return ToolResult(
            f"<system-reminder>Warning: the file exists but is shorter than the provided offset ({start}). "
            f"The file has {total} lines.</system-reminder>",
            data=result,
        )
    text_out = number_lines(shown, start)
    end = start - 1 + len(shown)
    if cut_by_budget:
        text_out += (
            f"\n\n<system-reminder>PARTIAL view: this output was cut at line {end} of {total} to stay "
            f"within the size limit. Read on with offset={end + 1} and a limit.</system-reminder>"
        )
    elif end < total:
        text_out += (
            f"\n\n<system-reminder>Showing lines {start}-{end} of {total}. "
            f"Read on with offset={end + 1}.</system-reminder>"
        )
    return ToolResult(text_out, data=result)


def _refuse_binary(path: Path, head: bytes) -> None:
    if looks_binary(path, head):
        raise ToolError(
            f"{path.name} looks like a binary file ({path.suffix or 'no extension'}), which Read cannot show. "
            "Inspect it with a suitable command in Bash (e.g. `file`, `xxd | head`)."
        )


def _load_window(path: Path, start: int, limit: int) -> tuple[list[str], int, os.stat_result, str]:
    """The requested lines, the file's line count, its stat and content hash."""
    data, st = read_bytes(path)
    _refuse_binary(path, data[:8192])
    lines = display_lines(decode_text(data)[0])
    return lines[start - 1 : start - 1 + limit], len(lines), st, hashlib.sha256(data).hexdigest()


def _stream_window(path: Path, start: int, limit: int) -> tuple[list[str], int, os.stat_result, str]:
    """As _load_window for very large files (logs, dumps): one pass, only the window kept in memory."""
    digest, window, total = hashlib.sha256(), [], 0
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed by the with below; opened here to report permissions
    except PermissionError:
        raise ToolError(f"Permission denied reading {path}.") from None
    with f:
        _refuse_binary(path, f.read(8192))
        f.seek(0)
        for raw in f:
            digest.update(raw)
            total += 1
            if start <= total < start + limit:
                window.append(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        st = os.fstat(f.fileno())
    return window, total, st, digest.hexdigest()


def _fit_budget(window: list[str]) -> tuple[list[str], bool]:
    """The window's lines with over-long ones cut, stopping before the output budget is exceeded."""
    shown: list[str] = []
    used = 0
    for line in window:
        if len(line) > MAX_LINE_CHARS:
            line = f"{line[:MAX_LINE_CHARS]}… [line truncated: {len(line) - MAX_LINE_CHARS} more characters]"
        used += len(line) + 8
        if used > MAX_OUTPUT_CHARS and shown:
            return shown, True
        shown.append(line)
    return shown, False


def _read_image(path: Path, ctx: ToolContext) -> ToolResult:
    data, st = read_bytes(path)
    if not data:
        return ToolResult(EMPTY_FILE_NOTE)
    media_type = _image_type(data)
    if media_type is None:
        raise ToolError(f"{path.name} does not contain a PNG, JPEG, GIF or WebP image.")
    if len(data) > MAX_IMAGE_BYTES:
        raise ToolError(
            f"The image is {len(data) / 1e6:.1f} MB; images up to {MAX_IMAGE_BYTES / 1e6:.2f} MB can be shown. "
            "Make a smaller copy (e.g. `convert in.png -resize 50% out.png`) and read that."
        )
    remember(ctx, path, file_state(st, data))
    encoded = base64.b64encode(data).decode("ascii")
    block = {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": encoded}}
    file_data = {"base64": encoded, "type": media_type, "originalSize": len(data)}
    return ToolResult([block], data={"type": "image", "file": file_data})


def _image_type(data: bytes) -> str | None:
    for magic, media_type in _IMAGE_MAGIC:
        if data.startswith(magic):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _read_pdf(path: Path, pages: str | None, ctx: ToolContext) -> ToolResult:
    size = os.path.getsize(path)
    if size > MAX_PDF_BYTES:
        raise ToolError(f"The PDF is {size / 2**20:.0f} MB; PDFs up to 32 MB can be read.")
    try:
        from pypdf import PdfReader
    except ImportError:
        raise ToolError(
            "Reading PDFs needs the pypdf package, which is not installed here (pip install pypdf). "
            "Alternatively extract the text with `pdftotext` in Bash."
        ) from None
    data, st = read_bytes(path)
    try:
        reader = PdfReader(io.BytesIO(data))
        total = len(reader.pages)
    except Exception as e:  # pypdf raises many kinds of errors for damaged files
        raise ToolError(f"Could not read {path.name} as a PDF: {e}") from None
    if pages is None:
        if total > PDF_PAGES_WITHOUT_RANGE:
            raise ToolError(
                f'This PDF has {total} pages; read it in parts with pages (e.g. pages="1-10"), '
                f"at most {PDF_PAGES_PER_CALL} pages per call."
            )
        numbers = list(range(1, total + 1))
    else:
        numbers = parse_pages(pages, total)
    parts = []
    for number in numbers:
        try:
            text = reader.pages[number - 1].extract_text() or ""
        except Exception as e:
            text = f"[text extraction failed: {e}]"
        parts.append(
            f"--- Page {number} of {total} ---\n{text.strip() or '[no extractable text on this page]'}"
        )
    remember(ctx, path, file_state(st, data, partial=len(numbers) < total))
    file_data = {"filePath": str(path), "originalSize": size, "numPages": total, "pages": numbers}
    return ToolResult("\n\n".join(parts), data={"type": "pdf", "file": file_data})


def parse_pages(spec: str, total: int) -> list[int]:
    """'3', '1-5', '1,4-6' -> page numbers (1-based), checked against the document's page count."""
    numbers: list[int] = []
    for part in spec.replace(" ", "").split(","):
        first, _, last = part.partition("-")
        try:
            lo, hi = int(first), int(last or first)
        except ValueError:
            raise ToolError(
                f'Invalid pages value "{spec}": use a page or a range such as "3" or "1-5".'
            ) from None
        if lo < 1 or hi < lo:
            raise ToolError(f'Invalid page range "{part}": pages count from 1 and ranges go upwards.')
        if lo > total:
            raise ToolError(f"The PDF has {total} pages; page {lo} does not exist.")
        numbers.extend(n for n in range(lo, min(hi, total) + 1) if n not in numbers)
    if len(numbers) > PDF_PAGES_PER_CALL:
        raise ToolError(f"{len(numbers)} pages requested; read at most {PDF_PAGES_PER_CALL} pages per call.")
    return numbers


def __getattr__(name: str) -> object:
    if name == "ReadInput":  # the input model lives with the others, so this module imports without pydantic
        from yoke.tools.builtin.inputs import ReadInput

        return ReadInput
    raise AttributeError(name)
