"""The pydantic input models of the built-in tools whose modules import without pydantic: imported only
when a call does not plainly fit (see `yoke.tools.light`), or for the manifest and the tests."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from yoke.tools.schema import ToolInput


class ReadInput(ToolInput):
    file_path: str = Field(description="The absolute path of the file to read")
    offset: int | None = Field(
        None, ge=0, description="The line number to start reading from (1 = first line). Use for long files"
    )
    limit: int | None = Field(None, gt=0, description="The number of lines to read. Use for long files")
    pages: str | None = Field(
        None, description='Page range for PDF files, e.g. "1-5", "3" or "1,4-6"; at most 20 pages per call'
    )


class WriteInput(ToolInput):
    file_path: str = Field(
        description="The absolute path of the file to write (must be absolute, not relative)"
    )
    content: str = Field(description="The content to write to the file")


class GlobInput(ToolInput):
    pattern: str = Field(description="The glob pattern to match files against")
    path: str | None = Field(
        None,
        description="The folder to search in (default: the working directory). Omit it to use the default; "
        'never pass "undefined" or "null"',
    )


class GrepInput(ToolInput):
    pattern: str = Field(description="The regular expression to search file contents for")
    path: str | None = Field(
        None, description="File or folder to search (rg PATH); default: the working directory"
    )
    glob: str | None = Field(
        None, description='Glob to filter files (e.g. "*.js", "*.{ts,tsx}"), as rg --glob'
    )
    output_mode: Literal["content", "files_with_matches", "count"] | None = Field(
        None,
        description='"content" shows matching lines, "files_with_matches" (default) file paths, "count" match '
        "counts per file",
    )
    before: int | None = Field(
        None, alias="-B", ge=0, description="Lines of context before each match (content)"
    )
    after: int | None = Field(
        None, alias="-A", ge=0, description="Lines of context after each match (content)"
    )
    around: int | None = Field(
        None, alias="-C", ge=0, description="Lines of context around each match (content)"
    )
    context: int | None = Field(None, ge=0, description="Same as -C")
    line_numbers: bool | None = Field(
        None, alias="-n", description="Show line numbers (content; default true)"
    )
    ignore_case: bool | None = Field(None, alias="-i", description="Case-insensitive search")
    only_matching: bool | None = Field(None, alias="-o", description="Show only the matched parts (content)")
    type: str | None = Field(None, description='File type to search, as rg --type (e.g. "py", "js", "rust")')
    head_limit: int | None = Field(
        None, ge=0, description="Show only the first N lines or entries (default 250; 0 for no limit)"
    )
    offset: int | None = Field(None, ge=0, description="Skip the first N lines or entries (default 0)")
    multiline: bool | None = Field(
        None, description="Let patterns span lines; . matches newlines (default false)"
    )


class BashInput(ToolInput):
    command: str = Field(description="The command to run")
    timeout: float | None = Field(default=None, description="Optional timeout in milliseconds (max 600000)")
    description: str | None = Field(
        default=None, description="What the command does, in 5-10 words, active voice (e.g. 'List files')"
    )
    run_in_background: bool | None = Field(
        default=None, description="Run the command in the background; read it later with TaskOutput"
    )
    dangerouslyDisableSandbox: bool | None = Field(default=None, description="Run outside the sandbox")


class EditInput(ToolInput):
    file_path: str = Field(description="The absolute path of the file to modify")
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(description="The text to replace it with (must be different from old_string)")
    replace_all: bool = Field(False, description="Replace all occurrences of old_string (default false)")


class EditItem(ToolInput):
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(description="The text to replace it with")
    replace_all: bool = Field(False, description="Replace all occurrences of old_string (default false)")


class MultiEditInput(ToolInput):
    file_path: str = Field(description="The absolute path of the file to modify")
    edits: list[EditItem] = Field(min_length=1, description="Edits to apply in order, all or none")
