"""Write: create a file or replace its whole content, atomically, never over changes the model has not seen."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.tools.base import Tool, ToolContext, ToolError, ToolResult
from yoke.tools.files import (
    NOT_READ_MESSAGE,
    STALE_MESSAGE,
    TextCodec,
    decode_text,
    read_bytes,
    remember,
    require_fresh,
    resolve_path,
    structured_patch,
    write_text,
)
from yoke.tools.light import InputModel
from yoke.tools.workspace import fetch_text, put_text, reader, text_freshness, writer

if TYPE_CHECKING:
    from yoke.tools.builtin.inputs import WriteInput

DESCRIPTION = """\
Write a file to the local filesystem, replacing it if it exists.

- file_path should be an absolute path; missing parent folders are created.
- An existing file must have been Read in this conversation first, and must not have changed since; \
otherwise the write is refused (Read it again, then write).
- Prefer Edit for changing part of an existing file: it sends only the change. Use Write for new files or \
complete rewrites.
- Do not create documentation or README files unless asked to."""


class WriteTool(Tool):
    name = "Write"
    kind = "edit"
    path_fields = ("file_path",)
    description = DESCRIPTION
    input_model = InputModel("WriteInput")  # type: ignore[assignment]  # pydantic, imported when needed

    def summary(self, input: Any) -> str:
        return f"Write {input.file_path}"

    async def run(self, input: WriteInput, ctx: ToolContext) -> ToolResult:
        path = resolve_path(input.file_path, ctx)
        if writer(ctx, path) is not None:
            return await _write_through(path, input.content, ctx)
        return await asyncio.to_thread(_write, path, input.content, ctx)


def _write(path: Path, content: str, ctx: ToolContext) -> ToolResult:
    if path.is_dir():
        raise ToolError(f"{path} is a directory; give the path of a file inside it.")
    original: str | None = None
    codec = TextCodec()
    if path.exists():
        data, st = read_bytes(path)
        require_fresh(ctx, path, data, st)
        original, codec = decode_text(data)  # keep the file's encoding and byte-order mark
    remember(ctx, path, write_text(path, content, codec))
    return _written(path, original, content)


async def _write_through(path: Path, content: str, ctx: ToolContext) -> ToolResult:
    """Write through the front-end (an editor shows the change in its buffer); the file it replaces is
    read through it too when it can, so the freshness check compares what the model saw with the buffer."""
    files = writer(ctx, path)
    assert files is not None
    if path.is_dir():
        raise ToolError(f"{path} is a directory; give the path of a file inside it.")
    original: str | None = None
    if path.exists():
        source = reader(ctx, path)
        if source is None:
            original = await asyncio.to_thread(_current_local, path, ctx)
        else:
            original = await fetch_text(source, path)
            freshness = text_freshness(ctx, path, original)
            if freshness != "fresh":
                raise ToolError(NOT_READ_MESSAGE if freshness == "unread" else STALE_MESSAGE)
    remember(ctx, path, await put_text(files, path, content))
    return _written(path, original, content)


def _current_local(path: Path, ctx: ToolContext) -> str:
    data, st = read_bytes(path)
    require_fresh(ctx, path, data, st)
    return decode_text(data)[0]


def _written(path: Path, original: str | None, content: str) -> ToolResult:
    result = {
        "type": "create" if original is None else "update",
        "filePath": str(path),
        "content": content,
        "structuredPatch": structured_patch(original or "", content),
        "originalFile": original,
        "userModified": False,  # Claude Code: true when the user edited the proposed content before accepting
    }
    if original is None:
        return ToolResult(f"File created successfully at: {path}", data=result)
    return ToolResult(f"The file {path} has been updated successfully.", data=result)


def __getattr__(name: str) -> object:
    if name == "WriteInput":  # the input model lives with the others, so this module imports without pydantic
        from yoke.tools.builtin.inputs import WriteInput

        return WriteInput
    raise AttributeError(name)
