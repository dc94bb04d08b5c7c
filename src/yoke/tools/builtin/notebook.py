"""Jupyter notebooks: NotebookEdit (replace, insert or delete one cell) and how Read shows a notebook."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import secrets
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from yoke.jsonsafe import loads as safe_json
from yoke.tools.base import Tool, ToolContext, ToolError, ToolResult
from yoke.tools.files import (
    atomic_write,
    file_state,
    not_found_message,
    read_bytes,
    remember,
    require_fresh,
    resolve_path,
)
from yoke.tools.schema import ToolInput

MAX_OUTPUT_CHARS = 10_000  # per cell output shown by Read
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_INDEX_ID = re.compile(r"(?:cell-)?(\d+)")

DESCRIPTION = """\
Edit one cell of a Jupyter notebook (.ipynb): replace its source, insert a new cell, or delete it.

- notebook_path should be an absolute path; Read the notebook first, which shows each cell's id.
- cell_id names the cell (its id as Read shows it; "cell-N" or a bare number N picks the cell at 0-based \
position N in notebooks without ids).
- edit_mode "replace" (default) sets the cell's source to new_source and clears its outputs; "insert" adds a \
new cell after cell_id (at the start when cell_id is omitted) and needs cell_type; "delete" removes the cell.
- cell_type ("code" or "markdown") may also change a replaced cell's type.
- To edit other kinds of file use Edit."""


class NotebookEditInput(ToolInput):
    notebook_path: str = Field(description="The absolute path of the Jupyter notebook to edit")
    cell_id: str | None = Field(
        None,
        description="The id of the cell to edit; for insert, the new cell goes after it (or first if omitted)",
    )
    new_source: str = Field(description="The new source of the cell")
    cell_type: Literal["code", "markdown"] | None = Field(
        None, description="The cell's type; required for insert, optional for replace"
    )
    edit_mode: Literal["replace", "insert", "delete"] | None = Field(
        None, description="replace (default), insert or delete"
    )


class NotebookEditTool(Tool):
    name = "NotebookEdit"
    kind = "edit"
    path_fields = ("notebook_path",)
    description = DESCRIPTION
    input_model = NotebookEditInput

    def summary(self, input: Any) -> str:
        return f"NotebookEdit {input.notebook_path}"

    async def run(self, input: NotebookEditInput, ctx: ToolContext) -> ToolResult:
        path = resolve_path(input.notebook_path, ctx)
        return await asyncio.to_thread(_edit, path, input, ctx)


def _edit(path: Path, input: NotebookEditInput, ctx: ToolContext) -> ToolResult:
    if path.suffix.lower() != ".ipynb":
        raise ToolError("File must be a Jupyter notebook (.ipynb file). To edit other files use Edit.")
    if not path.exists():
        raise ToolError(not_found_message(path, ctx))
    data, st = read_bytes(path)
    require_fresh(ctx, path, data, st)
    original = data.decode("utf-8", errors="replace")
    nb = load_notebook(original, path)
    mode = input.edit_mode or "replace"
    cell_id, cell, message = _change_cells(nb["cells"], nb, input, mode)
    updated = json.dumps(nb, indent=_indent_of(original), ensure_ascii=False) + "\n"
    encoded = updated.encode("utf-8")
    atomic_write(path, encoded)
    remember(ctx, path, file_state(path.stat(), encoded))
    echo = input.new_source if len(input.new_source) <= 500 else input.new_source[:500] + "…"
    result = {
        "new_source": input.new_source,
        "cell_id": cell_id,
        "cell_type": cell.get("cell_type", "code"),
        "language": notebook_language(nb),
        "edit_mode": mode,
        "error": "",
        "notebook_path": str(path),
        "original_file": original,
        "updated_file": updated,
    }
    return ToolResult(message.format(id=cell_id, source=echo), data=result)


def _change_cells(
    cells: list[dict[str, Any]], nb: dict[str, Any], input: NotebookEditInput, mode: str
) -> tuple[str, dict[str, Any], str]:
    """Apply the edit to the cell list; returns the cell's id, the cell, and the message template."""
    if mode == "insert":
        if input.cell_type is None:
            raise ToolError("cell_type is required when inserting a cell (edit_mode=insert).")
        at = 0 if input.cell_id is None else _find_cell(cells, input.cell_id) + 1
        cell = _new_cell(nb, input.cell_type, input.new_source)
        cells.insert(at, cell)
        return cell_id_of(cell, at), cell, "Inserted cell {id} with {source}"
    if input.cell_id is None:
        raise ToolError(f"cell_id is required to {mode} a cell.")
    index = _find_cell(cells, input.cell_id)
    cell = cells[index]
    if mode == "delete":
        del cells[index]
        return cell_id_of(cell, index), cell, "Deleted cell {id}"
    _replace(cell, input.new_source, input.cell_type)
    return cell_id_of(cell, index), cell, "Updated cell {id} with {source}"


def load_notebook(text: str, path: Path) -> dict[str, Any]:
    try:
        nb = safe_json(text)
    except json.JSONDecodeError as e:
        raise ToolError(f"{path.name} is not valid notebook JSON ({e.msg} at line {e.lineno}).") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ToolError(f"{path.name} is not a Jupyter notebook: it has no list of cells.")
    return nb


def cell_id_of(cell: dict[str, Any], index: int) -> str:
    return str(cell.get("id") or f"cell-{index}")


def notebook_language(nb: dict[str, Any]) -> str:
    meta = nb.get("metadata") or {}
    return (
        (meta.get("language_info") or {}).get("name")
        or (meta.get("kernelspec") or {}).get("language")
        or "python"
    )


def _find_cell(cells: list[dict[str, Any]], wanted: str) -> int:
    for index, cell in enumerate(cells):
        if cell.get("id") == wanted:
            return index
    by_index = _INDEX_ID.fullmatch(wanted.strip())
    if by_index and int(by_index.group(1)) < len(cells):
        return int(by_index.group(1))
    raise ToolError(
        f'Cell with ID "{wanted}" not found in notebook ({len(cells)} cells). Read it to see the ids.'
    )


def _source_lines(source: str) -> list[str]:
    return source.splitlines(keepends=True)


def _new_cell(nb: dict[str, Any], cell_type: str, source: str) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": cell_type}
    if (nb.get("nbformat", 4), nb.get("nbformat_minor", 0)) >= (4, 5):
        cell["id"] = secrets.token_hex(4)  # ids are required from nbformat 4.5 on
    cell["metadata"] = {}
    if cell_type == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    cell["source"] = _source_lines(source)
    return cell


def _replace(cell: dict[str, Any], source: str, cell_type: str | None) -> None:
    cell["source"] = source if isinstance(cell.get("source"), str) else _source_lines(source)
    if cell_type is not None:
        cell["cell_type"] = cell_type
    if cell.get("cell_type") == "code":
        cell["execution_count"] = None  # the old outputs no longer describe this source
        cell["outputs"] = []
    else:
        cell.pop("execution_count", None)
        cell.pop("outputs", None)


def _indent_of(text: str) -> int:
    second = text.split("\n", 2)[1] if text.count("\n") >= 1 else ""
    return (len(second) - len(second.lstrip(" "))) or 1


# ---- how Read shows a notebook -------------------------------------------------------------------------


def read_notebook(path: Path, ctx: ToolContext) -> ToolResult:
    data, st = read_bytes(path)
    nb = load_notebook(data.decode("utf-8", errors="replace"), path)
    remember(ctx, path, file_state(st, data))
    language = notebook_language(nb)
    blocks: list[dict[str, Any]] = []
    cells_data = []
    for index, cell in enumerate(nb["cells"]):
        cell_id = cell_id_of(cell, index)
        cell_type = cell.get("cell_type", "code")
        source = _joined(cell.get("source", ""))
        outputs = [_render_output(o) for o in cell.get("outputs") or []]
        head = f'<cell id="{cell_id}" type="{cell_type}"'
        if cell.get("execution_count") is not None:
            head += f' execution_count="{cell["execution_count"]}"'
        text = f"{head}>\n{source}\n</cell>"
        texts = [o["text"] for o in outputs if o.get("text")]
        if texts:
            text += f'\n<outputs cell="{cell_id}">\n' + "\n".join(texts) + "\n</outputs>"
        blocks.append({"type": "text", "text": text})
        for o in outputs:
            if o.get("image"):
                image = o["image"]
                source_block = {"type": "base64", "media_type": image["media_type"], "data": image["data"]}
                blocks.append({"type": "image", "source": source_block})
        cells_data.append(
            {
                "cellType": cell_type,
                "source": source,
                "execution_count": cell.get("execution_count"),
                "cell_id": cell_id,
                "language": language,
                "outputs": outputs,
            }
        )
    if not blocks:
        blocks.append(
            {"type": "text", "text": "<system-reminder>The notebook has no cells.</system-reminder>"}
        )
    has_images = any(b["type"] == "image" for b in blocks)
    content: str | list[dict[str, Any]] = blocks if has_images else "\n\n".join(b["text"] for b in blocks)
    return ToolResult(
        content, data={"type": "notebook", "file": {"filePath": str(path), "cells": cells_data}}
    )


def _joined(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def _render_output(output: dict[str, Any]) -> dict[str, Any]:
    kind = output.get("output_type", "")
    rendered: dict[str, Any] = {"output_type": kind}
    if kind == "stream":
        text = _joined(output.get("text", ""))
    elif kind == "error":
        trace = "\n".join(output.get("traceback") or [])
        text = _ANSI.sub("", trace) or f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
    else:
        bundle = output.get("data") or {}
        text = _joined(bundle.get("text/plain", ""))
        for media_type in ("image/png", "image/jpeg"):
            if media_type in bundle:
                encoded = _joined(bundle[media_type]).replace("\n", "")
                if _decodable(encoded):
                    rendered["image"] = {"media_type": media_type, "data": encoded}
                break
    if len(text) > MAX_OUTPUT_CHARS:
        text = (
            text[:MAX_OUTPUT_CHARS]
            + f"\n… [output truncated: {len(text) - MAX_OUTPUT_CHARS} more characters]"
        )
    rendered["text"] = text.rstrip("\n")
    return rendered


def _decodable(encoded: str) -> bool:
    try:
        base64.b64decode(encoded, validate=True)
        return True
    except ValueError:
        return False
