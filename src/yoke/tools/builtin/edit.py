"""Edit and MultiEdit: string replacement in a file the model has read, tolerant of near-misses, never of
ambiguity. Where `old_string` goes is decided by `yoke.tools.edit_match`."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from yoke.tools.base import FileState, Tool, ToolContext, ToolError, ToolResult
from yoke.tools.files import (
    NOT_READ_MESSAGE,
    STALE_MESSAGE,
    TextCodec,
    decode_text,
    freshness,
    looks_binary,
    not_found_message,
    patch_snippet,
    read_bytes,
    remember,
    resolve_path,
    structured_patch,
    write_text,
)
from yoke.tools.light import InputModel
from yoke.tools.workspace import fetch_text, put_text, reader, text_freshness, writer

if TYPE_CHECKING:
    from yoke.tools.builtin.inputs import EditInput, MultiEditInput
    from yoke.tools.edit_match import MatchError

_RULES = """\
- Read the file first in this conversation; editing a file you have not read is refused.
- old_string must match the file's text, copied from Read output without the line-number prefix (the number \
and tab): keep the indentation exactly as it appears after the tab.
- old_string must identify exactly one place: include enough surrounding lines to make it unique, or set \
replace_all to change every occurrence (useful for renaming).
- Small slips (line endings, trailing spaces, a uniform indentation shift, typographic quotes or dashes) are \
forgiven when they still point at exactly one place, and the result says so; anything ambiguous is refused \
and the closest part of the file is shown.
- If the file changed on disk since you read it, only an exact, unique old_string is applied.
- An empty old_string creates a new file (or fills an empty one) with new_string."""

EDIT_DESCRIPTION = f"""\
Replace text in a file: old_string becomes new_string.

{_RULES}
- Prefer editing existing files to creating new ones."""

MULTI_EDIT_DESCRIPTION = f"""\
Make several replacements in one file in a single step: edits are applied in order, each to the result of \
the one before, and either all succeed or the file is left unchanged.

{_RULES}
- Later edits see the text produced by earlier ones; plan old_strings accordingly."""


class EditTool(Tool):
    name = "Edit"
    kind = "edit"
    path_fields = ("file_path",)
    description = EDIT_DESCRIPTION
    input_model = InputModel("EditInput")  # type: ignore[assignment]  # pydantic, imported when needed

    def summary(self, input: Any) -> str:
        return f"Edit {input.file_path}"

    async def run(self, input: EditInput, ctx: ToolContext) -> ToolResult:
        path = resolve_path(input.file_path, ctx)
        outcome = await _edit(path, [input], ctx)  # the input is itself one change
        data = {
            "filePath": str(path),
            "oldString": input.old_string,
            "newString": input.new_string,
            "originalFile": outcome.original,
            "structuredPatch": outcome.patch,
            "userModified": False,
            "replaceAll": input.replace_all,
        }
        return ToolResult(outcome.message(path), data=data)


class MultiEditTool(Tool):
    name = "MultiEdit"
    kind = "edit"
    path_fields = ("file_path",)
    description = MULTI_EDIT_DESCRIPTION
    input_model = InputModel("MultiEditInput")  # type: ignore[assignment]

    def summary(self, input: Any) -> str:
        return f"MultiEdit {input.file_path} ({len(input.edits)} edits)"

    def input_schema(self) -> dict[str, Any]:
        from yoke.tools.schema import inline_definitions  # with pydantic: for the manifest only

        return inline_definitions(super().input_schema())

    async def run(self, input: MultiEditInput, ctx: ToolContext) -> ToolResult:
        path = resolve_path(input.file_path, ctx)
        outcome = await _edit(path, input.edits, ctx)
        data = {
            "filePath": str(path),
            "edits": [e.model_dump() for e in input.edits],
            "originalFileContents": outcome.original,
            "structuredPatch": outcome.patch,
            "userModified": False,
        }
        return ToolResult(outcome.message(path), data=data)


@dataclass
class _Outcome:
    original: str | None
    new_text: str
    patch: list[dict[str, Any]]
    stale: bool = False
    notes: list[str] = field(default_factory=list)

    def message(self, path: Path) -> str:
        verb = "created" if self.original is None else "updated"
        parts = [f"The file {path} has been {verb} successfully."]
        if self.stale:
            parts.append(
                "Note: the file had changed on disk since you last read it (edited by the user or another "
                "process). The edit was applied because old_string matched the current content exactly once; "
                "Read the file again before further changes to see what else changed."
            )
        parts.extend(self.notes)
        snippet = patch_snippet(self.new_text, self.patch)
        if snippet:
            parts.append(f"Here is the edited region, numbered as Read numbers it:\n{snippet}")
        return "\n".join(parts)


@dataclass
class _Target:
    text: str
    codec: TextCodec
    original: str | None  # None: the file does not exist yet
    stale: bool


async def _edit(path: Path, edits: Sequence[Change], ctx: ToolContext) -> _Outcome:
    """The edits applied on the disk, or through the front-end when it writes (an editor's buffer)."""
    if writer(ctx, path) is None:
        return await asyncio.to_thread(_apply_edits, path, edits, ctx)
    _refuse_no_ops(edits)
    target = await _load_through(path, edits[0].old_string, ctx)
    text, notes = await asyncio.to_thread(_compute, target, edits)
    files = writer(ctx, path)
    assert files is not None
    state = await put_text(files, path, text)
    return _finish(path, target, text, notes, state, ctx)


def _apply_edits(path: Path, edits: Sequence[Change], ctx: ToolContext) -> _Outcome:
    _refuse_no_ops(edits)
    target = _load(path, edits[0].old_string, ctx)
    text, notes = _compute(target, edits)
    return _finish(path, target, text, notes, write_text(path, text, target.codec), ctx)


def _refuse_no_ops(edits: Sequence[Change]) -> None:
    many = len(edits) > 1
    for k, edit in enumerate(edits):
        if edit.old_string == edit.new_string:
            raise ToolError(
                _numbered("No changes to make: old_string and new_string are exactly the same.", k, many)
            )


def _compute(target: _Target, edits: Sequence[Change]) -> tuple[str, list[str]]:
    """The text after every edit in order, and notes on forgiven near-misses; ToolError when one fails."""
    from yoke.tools.edit_match import MatchError, apply_matches, line_of, place_edit  # only when editing

    many = len(edits) > 1
    text, notes = target.text, []
    for k, edit in enumerate(edits):
        if edit.old_string == "":
            if k > 0 or text:
                raise ToolError(_numbered("Cannot create new file - file already exists.", k, many))
            text = edit.new_string
            continue
        try:
            matches = place_edit(
                text, edit.old_string, edit.new_string, replace_all=edit.replace_all, exact_only=target.stale
            )
        except MatchError as e:
            raise ToolError(_failure(e, target.stale, k, len(edits))) from None
        if matches[0].detail:
            where = ", ".join(str(line_of(text, m.start)) for m in matches[:10])
            lines = "lines" if len(matches) > 1 else "line"
            prefix = f"Edit {k + 1}: " if many else ""
            notes.append(
                f"{prefix}Note: old_string did not match exactly; it was matched at {lines} {where} "
                f"{matches[0].detail}."
            )
        text = apply_matches(text, matches)
    if text == target.original:
        raise ToolError("Original and edited file match exactly. Failed to apply edit.")
    return text, notes


def _finish(
    path: Path, target: _Target, text: str, notes: list[str], state: FileState, ctx: ToolContext
) -> _Outcome:
    if not target.stale:
        # After an edit on a changed file the model still has not seen the other changes: leave the file
        # marked as changed so further edits stay exact-only and Write asks for a fresh Read.
        remember(ctx, path, state)
    patch = structured_patch(target.original or "", text)
    return _Outcome(target.original, text, patch, target.stale, notes)


def _check_kind(path: Path) -> None:
    if path.suffix.lower() == ".ipynb":
        raise ToolError("File is a Jupyter Notebook. Use the NotebookEdit to edit this file.")
    if path.is_dir():
        raise ToolError(f"{path} is a directory, not a file.")


def _load(path: Path, first_old: str, ctx: ToolContext) -> _Target:
    _check_kind(path)
    if not path.exists():
        if first_old != "":
            raise ToolError(not_found_message(path, ctx))
        return _Target("", TextCodec(), None, stale=False)
    data, st = read_bytes(path)
    if looks_binary(path, data[:8192]):
        raise ToolError(f"{path.name} is a binary file; Edit changes text files only.")
    state = freshness(ctx, path, data, st)
    if state == "unread":
        raise ToolError(NOT_READ_MESSAGE)
    text, codec = decode_text(data)
    return _Target(text, codec, text, stale=state == "stale")


async def _load_through(path: Path, first_old: str, ctx: ToolContext) -> _Target:
    """As `_load`, with the text read through the front-end when it reads (else from the disk)."""
    source = reader(ctx, path)
    if source is None or not path.exists():
        return await asyncio.to_thread(_load, path, first_old, ctx)
    _check_kind(path)
    try:
        with open(path, "rb") as f:
            head = f.read(8192)
    except PermissionError:
        raise ToolError(f"Permission denied reading {path}.") from None
    if looks_binary(path, head):
        raise ToolError(f"{path.name} is a binary file; Edit changes text files only.")
    text = await fetch_text(source, path)
    state = text_freshness(ctx, path, text)
    if state == "unread":
        raise ToolError(NOT_READ_MESSAGE)
    return _Target(text, TextCodec(), text, stale=state == "stale")


def _numbered(message: str, k: int, many: bool) -> str:
    return f"Edit {k + 1}: {message}" if many else message


def _failure(error: MatchError, stale: bool, k: int, count: int) -> str:
    message = str(error)
    if stale:
        why = "is not in it" if error.kind == "not_found" else "occurs more than once"
        message = (
            f"{STALE_MESSAGE} Only an exact, unique old_string can be applied to a file that changed since "
            f"you read it, and this one {why}.\n\n{message}"
        )
    if count > 1:
        message = f"Edit {k + 1} of {count} failed, so none of the edits were applied (the file is unchanged).\n{message}"
    return message


class Change(Protocol):
    """One replacement: an Edit call's input, or one of a MultiEdit call's edits."""

    old_string: str
    new_string: str
    replace_all: bool


def __getattr__(name: str) -> object:
    if name in ("EditInput", "EditItem", "MultiEditInput"):  # with the other input models (no pydantic here)
        from yoke.tools.builtin import inputs

        return getattr(inputs, name)
    raise AttributeError(name)
