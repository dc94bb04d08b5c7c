"""Read against real files: numbering, windows, long lines, images, notebooks, PDFs, binaries, recorded state."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

import pytest

from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin.read import ReadInput, ReadTool, parse_pages

PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "work").mkdir()
    return ToolContext(cwd=tmp_path / "work", session=SessionState("s", tmp_path / "session"))


async def read(ctx: ToolContext, path: Path | str, **kw):
    return await ReadTool().run(ReadInput(file_path=str(path), **kw), ctx)


def test_schema_uses_claude_code_names():
    schema = ReadTool().input_schema()
    assert set(schema["properties"]) == {"file_path", "offset", "limit", "pages"}
    assert schema["required"] == ["file_path"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["offset"]["type"] == "integer"  # a plain type, not anyOf with null


async def test_numbered_lines_and_recorded_state(ctx):
    path = ctx.cwd / "a.txt"
    path.write_text("line one\n\tline two\nline three\n")
    result = await read(ctx, path)
    assert result.content == "1\tline one\n2\t\tline two\n3\tline three"
    state = ctx.session.read_files[os.path.realpath(path)]
    assert state.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert state.size == path.stat().st_size and state.mtime_ns == path.stat().st_mtime_ns
    assert state.partial is False
    assert result.data["type"] == "text"
    assert result.data["file"]["totalLines"] == 3 and result.data["file"]["content"].startswith("line one")


async def test_offset_and_limit_window(ctx):
    path = ctx.cwd / "b.txt"
    path.write_text("a\nb\nc\nd\n")
    result = await read(ctx, path, offset=2, limit=2)
    assert result.content.split("\n\n")[0] == "2\tb\n3\tc"
    assert "offset=4" in result.content  # tells the model how to read on
    assert ctx.session.read_files[os.path.realpath(path)].partial is True
    assert result.data["file"]["startLine"] == 2 and result.data["file"]["numLines"] == 2


async def test_relative_path_resolves_against_cwd(ctx):
    (ctx.cwd / "rel.txt").write_text("x\n")
    assert (await read(ctx, "rel.txt")).content == "1\tx"


async def test_default_limit_is_2000_lines(ctx):
    path = ctx.cwd / "long.txt"
    path.write_text("".join(f"{n}\n" for n in range(1, 2501)))
    result = await read(ctx, path)
    numbered = result.content.split("\n\n<system-reminder>")[0].split("\n")
    assert len(numbered) == 2000 and numbered[-1] == "2000\t2000"
    assert "Showing lines 1-2000 of 2500" in result.content


async def test_long_lines_are_cut_with_a_marker(ctx):
    path = ctx.cwd / "wide.txt"
    path.write_text("x" * 5000 + "\nshort\n")
    lines = (await read(ctx, path)).content.split("\n")
    assert lines[0].startswith("1\t" + "x" * 2000) and "3000 more characters" in lines[0]
    assert len(lines[0]) < 2100 and lines[1] == "2\tshort"


async def test_crlf_shown_without_carriage_returns(ctx):
    path = ctx.cwd / "dos.txt"
    path.write_bytes(b"one\r\ntwo\r\n")
    assert (await read(ctx, path)).content == "1\tone\n2\ttwo"


async def test_empty_file_warns(ctx):
    path = ctx.cwd / "empty.txt"
    path.write_text("")
    result = await read(ctx, path)
    assert "<system-reminder>" in result.content and "empty" in result.content
    assert os.path.realpath(path) in ctx.session.read_files


async def test_offset_past_end_warns(ctx):
    path = ctx.cwd / "short.txt"
    path.write_text("a\nb\n")
    result = await read(ctx, path, offset=10)
    assert "shorter than the provided offset (10)" in result.content and "2 lines" in result.content


async def test_missing_file_suggests_path_under_cwd(ctx):
    (ctx.cwd / "src").mkdir()
    (ctx.cwd / "src" / "app.py").write_text("pass\n")
    with pytest.raises(ToolError) as err:
        await read(ctx, "/src/app.py")
    assert "File does not exist" in str(err.value) and str(ctx.cwd / "src" / "app.py") in str(err.value)


async def test_directory_is_an_error(ctx):
    with pytest.raises(ToolError, match="directory"):
        await read(ctx, ctx.cwd)


async def test_binary_refused(ctx):
    path = ctx.cwd / "blob.dat"
    path.write_bytes(b"\x00\x01\x02binary\x00")
    with pytest.raises(ToolError, match="binary"):
        await read(ctx, path)


async def test_image_returned_as_image_block(ctx):
    path = ctx.cwd / "dot.png"
    path.write_bytes(PNG_1X1)
    result = await read(ctx, path)
    assert isinstance(result.content, list) and result.content[0]["type"] == "image"
    source = result.content[0]["source"]
    assert source["media_type"] == "image/png" and base64.b64decode(source["data"]) == PNG_1X1
    assert result.data["type"] == "image" and result.data["file"]["originalSize"] == len(PNG_1X1)


async def test_image_type_comes_from_content_not_extension(ctx):
    path = ctx.cwd / "really-jpeg.png"
    path.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 20)
    result = await read(ctx, path)
    assert result.content[0]["source"]["media_type"] == "image/jpeg"


async def test_notebook_shows_cells_and_outputs(ctx):
    nb = {
        "cells": [
            {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "text"]},
            {
                "cell_type": "code",
                "id": "calc",
                "execution_count": 1,
                "metadata": {},
                "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["42\n"]},
                    {
                        "output_type": "display_data",
                        "data": {"text/plain": ["<Figure>"], "image/png": base64.b64encode(PNG_1X1).decode()},
                        "metadata": {},
                    },
                ],
                "source": "print(6 * 7)",
            },
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = ctx.cwd / "n.ipynb"
    path.write_text(json.dumps(nb))
    result = await read(ctx, path)
    texts = [b["text"] for b in result.content if b["type"] == "text"]
    joined = "\n".join(texts)
    assert '<cell id="intro" type="markdown">' in joined and "# Title\ntext" in joined
    assert "print(6 * 7)" in joined and "42" in joined and "<Figure>" in joined
    assert any(b["type"] == "image" for b in result.content)
    cells = result.data["file"]["cells"]
    assert [c["cell_id"] for c in cells] == ["intro", "calc"] and result.data["type"] == "notebook"


def _minimal_pdf(text: str) -> bytes:
    """A one-page PDF with one line of text, built by hand (byte offsets computed for the xref table)."""
    stream = f"BT /F1 24 Tf 72 700 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


async def test_pdf_text_or_clear_error(ctx):
    path = ctx.cwd / "doc.pdf"
    path.write_bytes(_minimal_pdf("Hello Yoke"))
    try:
        import pypdf  # noqa: F401
    except ImportError:
        with pytest.raises(ToolError, match="pypdf"):
            await read(ctx, path)
        return
    result = await read(ctx, path, pages="1")
    assert "Hello Yoke" in result.content and "Page 1 of 1" in result.content
    assert result.data["type"] == "pdf"


async def test_pages_only_for_pdfs(ctx):
    path = ctx.cwd / "t.txt"
    path.write_text("x\n")
    with pytest.raises(ToolError, match="PDF"):
        await read(ctx, path, pages="1")


def test_parse_pages():
    assert parse_pages("3", 10) == [3]
    assert parse_pages("1-3,5", 10) == [1, 2, 3, 5]
    assert parse_pages("8-20", 10) == [8, 9, 10]
    for bad in ("0", "x", "5-2"):
        with pytest.raises(ToolError):
            parse_pages(bad, 10)
    with pytest.raises(ToolError, match="at most 20"):
        parse_pages("1-30", 40)


async def test_large_files_are_streamed_with_the_same_result(ctx, monkeypatch):
    path = ctx.cwd / "big.log"
    path.write_bytes(b"".join(b"entry %d\r\n" % n for n in range(1, 5001)))
    whole = await read(ctx, path, offset=4990, limit=5)
    state = ctx.session.read_files[os.path.realpath(path)]
    monkeypatch.setattr("yoke.tools.builtin.read.STREAM_ABOVE_BYTES", 0)
    streamed = await read(ctx, path, offset=4990, limit=5)
    assert streamed.content == whole.content and streamed.content.startswith("4990\tentry 4990\n")
    assert ctx.session.read_files[os.path.realpath(path)] == state
    assert streamed.data["file"]["totalLines"] == 5000


async def test_special_files_refused(ctx):
    fifo = ctx.cwd / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ToolError, match="not a regular file"):
        await read(ctx, fifo)
