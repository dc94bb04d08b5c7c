"""NotebookEdit on real .ipynb files: replace, insert, delete, ids, round trips, read-before-edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin.notebook import NotebookEditInput, NotebookEditTool
from yoke.tools.builtin.read import ReadInput, ReadTool

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "title", "metadata": {}, "source": ["# Analysis\n", "Ünïcode kept"]},
        {
            "cell_type": "code",
            "execution_count": 3,
            "id": "load",
            "metadata": {"tags": ["setup"]},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["loaded 10 rows\n"]}],
            "source": ["import csv\n", "rows = list(csv.reader(open('data.csv')))"],
        },
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "plot",
            "metadata": {},
            "outputs": [],
            "source": [],
        },
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "work").mkdir()
    return ToolContext(cwd=tmp_path / "work", session=SessionState("s", tmp_path / "session"))


async def notebook(ctx: ToolContext, content: dict = NOTEBOOK, read: bool = True) -> Path:
    path = ctx.cwd / "analysis.ipynb"
    # Jupyter's own layout: one-space indent, non-ASCII kept, trailing newline.
    path.write_text(json.dumps(content, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if read:
        await ReadTool().run(ReadInput(file_path=str(path)), ctx)
    return path


async def edit(ctx: ToolContext, path: Path, **kw):
    return await NotebookEditTool().run(NotebookEditInput(notebook_path=str(path), **kw), ctx)


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_schema_names():
    schema = NotebookEditTool().input_schema()
    assert list(schema["properties"]) == ["notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"]
    assert schema["required"] == ["notebook_path", "new_source"]
    assert schema["properties"]["edit_mode"]["enum"] == ["replace", "insert", "delete"]


async def test_replace_source_clears_outputs_and_keeps_the_rest(ctx):
    path = await notebook(ctx)
    result = await edit(
        ctx, path, cell_id="load", new_source="import pandas as pd\ndf = pd.read_csv('data.csv')"
    )
    nb = load(path)
    cell = nb["cells"][1]
    assert cell["source"] == ["import pandas as pd\n", "df = pd.read_csv('data.csv')"]
    assert (
        cell["outputs"] == [] and cell["execution_count"] is None and cell["metadata"] == {"tags": ["setup"]}
    )
    assert nb["cells"][0] == NOTEBOOK["cells"][0] and nb["metadata"] == NOTEBOOK["metadata"]
    assert result.content.startswith("Updated cell load with import pandas")
    assert result.data["edit_mode"] == "replace" and result.data["cell_id"] == "load"
    assert json.loads(result.data["original_file"]) == NOTEBOOK


async def test_insert_then_delete_round_trips_byte_for_byte(ctx):
    path = await notebook(ctx)
    original = path.read_bytes()
    inserted = await edit(
        ctx, path, cell_id="title", new_source="## Loading", cell_type="markdown", edit_mode="insert"
    )
    nb = load(path)
    new_id = inserted.data["cell_id"]
    assert [c.get("id") for c in nb["cells"]] == ["title", new_id, "load", "plot"]
    assert nb["cells"][1] == {"cell_type": "markdown", "id": new_id, "metadata": {}, "source": ["## Loading"]}
    await edit(ctx, path, cell_id=new_id, new_source="", edit_mode="delete")
    assert path.read_bytes() == original


async def test_insert_at_start_and_code_cell_shape(ctx):
    path = await notebook(ctx)
    await edit(ctx, path, new_source="x = 1", cell_type="code", edit_mode="insert")
    first = load(path)["cells"][0]
    assert first["cell_type"] == "code" and first["outputs"] == [] and first["execution_count"] is None
    assert first["source"] == ["x = 1"] and len(first["id"]) == 8


async def test_change_cell_type_on_replace(ctx):
    path = await notebook(ctx)
    await edit(ctx, path, cell_id="load", new_source="Now prose.", cell_type="markdown")
    cell = load(path)["cells"][1]
    assert cell["cell_type"] == "markdown" and "outputs" not in cell and "execution_count" not in cell


async def test_index_addressing_without_ids(ctx):
    old_style = json.loads(json.dumps(NOTEBOOK))
    old_style["nbformat_minor"] = 2
    for cell in old_style["cells"]:
        del cell["id"]
    path = await notebook(ctx, old_style)
    await edit(ctx, path, cell_id="cell-2", new_source="plot()")
    await edit(ctx, path, cell_id="0", new_source="# Renamed")
    cells = load(path)["cells"]
    assert cells[2]["source"] == ["plot()"] and cells[0]["source"] == ["# Renamed"]
    await edit(ctx, path, cell_id="cell-0", new_source="print('new')", cell_type="code", edit_mode="insert")
    cells = load(path)["cells"]
    assert "id" not in cells[1] and cells[1]["source"] == ["print('new')"]  # no ids before nbformat 4.5


async def test_errors(ctx):
    path = await notebook(ctx)
    with pytest.raises(ToolError, match="not found"):
        await edit(ctx, path, cell_id="nope", new_source="x")
    with pytest.raises(ToolError, match="cell_type is required"):
        await edit(ctx, path, cell_id="load", new_source="x", edit_mode="insert")
    with pytest.raises(ToolError, match="cell_id is required"):
        await edit(ctx, path, new_source="x")
    other = ctx.cwd / "plain.py"
    other.write_text("x = 1\n")
    with pytest.raises(ToolError, match="Jupyter notebook"):
        await edit(ctx, other, cell_id="0", new_source="x")


async def test_must_read_first_and_refuses_stale(ctx):
    path = await notebook(ctx, read=False)
    with pytest.raises(ToolError, match="has not been read yet"):
        await edit(ctx, path, cell_id="load", new_source="x")
    await ReadTool().run(ReadInput(file_path=str(path)), ctx)
    changed = json.loads(json.dumps(NOTEBOOK))
    changed["cells"][0]["source"] = ["# Changed by the user"]
    path.write_text(json.dumps(changed, indent=1) + "\n")
    with pytest.raises(ToolError, match="modified since read"):
        await edit(ctx, path, cell_id="load", new_source="x")
    assert load(path) == changed


async def test_invalid_json_is_a_clear_error(ctx):
    path = ctx.cwd / "broken.ipynb"
    path.write_text("{not json")
    with pytest.raises(ToolError, match="not valid notebook JSON"):
        await ReadTool().run(ReadInput(file_path=str(path)), ctx)
