"""How tool calls and their results look: `● Read(src/app.py)`, a few lines of output, coloured diffs."""

from __future__ import annotations

import os
from typing import Any

from rich.text import Text

PREVIEW_LINES = 4
MAX_DIFF_LINES = 40
BRIEF_KEYS = ("command", "file_path", "notebook_path", "path", "pattern", "url", "query", "description")
EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")


def short_path(value: str, cwd: str) -> str:
    if value.startswith(cwd.rstrip("/") + "/"):
        return os.path.relpath(value, cwd)
    return value


def brief(name: str, input: dict[str, Any], cwd: str, limit: int = 80) -> str:
    """The argument shown in `Name(argument)`."""
    text = ""
    for key in BRIEF_KEYS:
        if isinstance(input.get(key), str):
            text = short_path(input[key], cwd) if key.endswith("path") else input[key]
            break
    if name == "Grep" and isinstance(input.get("path"), str) and text == input.get("pattern"):
        text = f'pattern: "{text}", path: {short_path(input["path"], cwd)}'
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_line(name: str, input: dict[str, Any], cwd: str, nested: bool = False) -> Text:
    line = Text()
    line.append("  ⎿  " if nested else "● ", style="dim" if nested else "bold green")
    line.append(name, style="bold")
    arg = brief(name, input, cwd)
    if arg:
        line.append(f"({arg})")
    return line


def result_lines(
    name: str, input: dict[str, Any], content: Any, data: Any, is_error: bool, full: bool = False
) -> tuple[list[Text], bool]:
    """What to show under a call, and whether some output was left out (Ctrl+O shows it); `full` shows
    all of a command's output (Ctrl+O's expanded view)."""
    from yoke.messages import result_text

    text = result_text(content).rstrip() if not isinstance(content, str) else content.rstrip()
    if (
        name == "ExitPlanMode" and isinstance(data, dict) and "approved" in data
    ):  # not the model's instructions
        said = "User approved the plan" if data["approved"] else "The plan was not approved"
        return [_under(Text(said, style="red" if is_error else ""))], False
    if is_error:
        text = text.replace("<tool_use_error>", "").replace("</tool_use_error>", "").strip()
        lines = text.splitlines() or ["failed"]
        if full:
            return [_under(Text(line, style="red"), first=i == 0) for i, line in enumerate(lines)], False
        return [_under(Text(lines[0], style="red"))], len(lines) > 1
    if name in EDIT_TOOLS and isinstance(data, dict) and data.get("type") == "create":
        return created_lines(data, full), False
    if name in EDIT_TOOLS and isinstance(data, dict) and isinstance(data.get("structuredPatch"), list):
        return diff_lines(data["structuredPatch"], data.get("filePath") or input.get("file_path", "")), False
    if name == "Read":
        count = len(text.splitlines())
        return [_under(Text(f"Read {count} line{'s' if count != 1 else ''}"))], False
    if name == "TodoWrite":
        return [], False
    lines = text.splitlines() or ["(no output)"]
    keep = len(lines) if full else PREVIEW_LINES
    shown = [_under(Text(line), first=i == 0) for i, line in enumerate(lines[:keep])]
    more = len(lines) - keep
    if more > 0:
        shown.append(Text(f"     … +{more} lines (ctrl+o to expand)", style="dim"))
    return shown, more > 0


def _under(text: Text, first: bool = True) -> Text:
    prefix = Text("  ⎿  " if first else "     ", style="dim")
    return prefix + text


def created_lines(data: dict[str, Any], full: bool) -> list[Text]:
    """A new file: how many lines were written, and its first lines (a new file is no update)."""
    lines = str(data.get("content") or "").splitlines()
    name = os.path.basename(str(data.get("filePath") or "")) or "file"
    out = [_under(Text(f"Wrote {len(lines)} line{'s' if len(lines) != 1 else ''} to {name}"))]
    keep = len(lines) if full else PREVIEW_LINES
    out += [Text(f"     {number:>4}   {line}", style="dim") for number, line in enumerate(lines[:keep], 1)]
    if len(lines) > keep:
        out.append(Text(f"     … +{len(lines) - keep} lines (ctrl+o to expand)", style="dim"))
    return out


def diff_lines(hunks: list[dict[str, Any]], path: str) -> list[Text]:
    added = sum(1 for h in hunks for line in h.get("lines", []) if line.startswith("+"))
    removed = sum(1 for h in hunks for line in h.get("lines", []) if line.startswith("-"))
    summary = (
        f"Updated {os.path.basename(str(path)) or 'file'} with {added} addition{'s' if added != 1 else ''}"
    )
    summary += f" and {removed} removal{'s' if removed != 1 else ''}"
    out = [_under(Text(summary))]
    out += diff_body(hunks)
    return out


def diff_body(hunks: list[dict[str, Any]], limit: int = MAX_DIFF_LINES) -> list[Text]:
    out: list[Text] = []
    for hunk in hunks:
        old_no, new_no = int(hunk.get("oldStart", 1)), int(hunk.get("newStart", 1))
        for line in hunk.get("lines", []):
            mark, body = line[:1], line[1:]
            if mark == "-":
                out.append(Text(f"     {old_no:>4} - {body}", style="red"))
                old_no += 1
            elif mark == "+":
                out.append(Text(f"     {new_no:>4} + {body}", style="green"))
                new_no += 1
            else:
                out.append(Text(f"     {new_no:>4}   {body}", style="dim"))
                old_no += 1
                new_no += 1
            if len(out) >= limit:
                out.append(Text("     …", style="dim"))
                return out
    return out


def todo_lines(todos: list[dict[str, Any]]) -> list[Text]:
    out = [Text("● ", style="bold green") + Text("Update Todos", style="bold")]
    for i, todo in enumerate(todos):
        status = todo.get("status", "")
        mark = {"completed": "☒", "in_progress": "◼"}.get(status, "☐")
        style = "strike dim" if status == "completed" else "bold" if status == "in_progress" else ""
        prefix = Text("  ⎿  " if i == 0 else "     ", style="dim")
        out.append(prefix + Text(f"{mark} {todo.get('content', '')}", style=style))
    return out
