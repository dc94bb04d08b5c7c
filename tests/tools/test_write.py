"""Write against real files: read-before-write, stale refusal, atomic replace, modes, parents, encodings."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin.read import ReadInput, ReadTool
from yoke.tools.builtin.write import WriteInput, WriteTool
from yoke.tools.files import NOT_READ_MESSAGE, STALE_MESSAGE


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "work").mkdir()
    return ToolContext(cwd=tmp_path / "work", session=SessionState("s", tmp_path / "session"))


async def read(ctx: ToolContext, path: Path) -> None:
    await ReadTool().run(ReadInput(file_path=str(path)), ctx)


async def write(ctx: ToolContext, path: Path | str, content: str):
    return await WriteTool().run(WriteInput(file_path=str(path), content=content), ctx)


def test_schema_names():
    schema = WriteTool().input_schema()
    assert set(schema["properties"]) == {"file_path", "content"} and schema["additionalProperties"] is False


async def test_creates_file_and_parents(ctx):
    path = ctx.cwd / "deep" / "er" / "new.txt"
    result = await write(ctx, path, "hello\n")
    assert path.read_text() == "hello\n"
    assert result.content == f"File created successfully at: {path}"
    assert result.data["type"] == "create" and result.data["originalFile"] is None
    assert result.data["structuredPatch"][0]["lines"] == ["+hello"]
    # The model now knows the file: a second write needs no Read.
    await write(ctx, path, "again\n")
    assert path.read_text() == "again\n"


async def test_existing_file_must_be_read_first(ctx):
    path = ctx.cwd / "exists.txt"
    path.write_text("original\n")
    with pytest.raises(ToolError) as err:
        await write(ctx, path, "clobber\n")
    assert str(err.value) == NOT_READ_MESSAGE
    assert path.read_text() == "original\n"


async def test_refused_when_changed_on_disk_since_read(ctx):
    path = ctx.cwd / "stale.txt"
    path.write_text("v1\n")
    await read(ctx, path)
    path.write_text("v2 written by the user\n")
    with pytest.raises(ToolError) as err:
        await write(ctx, path, "model's version\n")
    assert str(err.value) == STALE_MESSAGE
    assert path.read_text() == "v2 written by the user\n"
    await read(ctx, path)  # reading again clears the way
    result = await write(ctx, path, "model's version\n")
    assert result.data["type"] == "update" and result.data["originalFile"] == "v2 written by the user\n"


async def test_touch_without_change_is_not_stale(ctx):
    path = ctx.cwd / "touched.txt"
    path.write_text("same\n")
    await read(ctx, path)
    later = time.time() + 5
    os.utime(path, (later, later))  # mtime moves, content does not
    await write(ctx, path, "new\n")
    assert path.read_text() == "new\n"


async def test_update_keeps_mode_and_replaces_atomically(ctx):
    path = ctx.cwd / "script.sh"
    path.write_text("#!/bin/sh\necho old\n")
    path.chmod(0o751)
    inode_before = path.stat().st_ino
    await read(ctx, path)
    result = await write(ctx, path, "#!/bin/sh\necho new\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert path.stat().st_ino != inode_before  # a new file renamed over the old one
    assert [p.name for p in ctx.cwd.iterdir()] == ["script.sh"]  # no temporary file left behind
    assert result.content == f"The file {path} has been updated successfully."
    assert {"oldStart", "oldLines", "newStart", "newLines", "lines"} <= set(result.data["structuredPatch"][0])


async def test_write_through_symlink_keeps_the_link(ctx):
    target = ctx.cwd / "real.txt"
    target.write_text("real\n")
    link = ctx.cwd / "link.txt"
    link.symlink_to(target)
    await read(ctx, link)
    await write(ctx, link, "through the link\n")
    assert link.is_symlink() and target.read_text() == "through the link\n"


async def test_keeps_byte_order_mark(ctx):
    path = ctx.cwd / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfold\n")
    await read(ctx, path)
    await write(ctx, path, "new\n")
    assert path.read_bytes() == b"\xef\xbb\xbfnew\n"


async def test_directory_refused(ctx):
    with pytest.raises(ToolError, match="directory"):
        await write(ctx, ctx.cwd, "x")


async def test_special_file_refused_without_blocking(ctx):
    fifo = ctx.cwd / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ToolError, match="not a regular file"):
        await write(ctx, fifo, "x")
