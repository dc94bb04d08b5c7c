"""What an edit broke, as the model and the terminal see it.

The model gets the errors that were not there before the edit (warnings too when asked), at most
`max_items`, in the block Claude Code 2.1.332 uses for its diagnostics reminders: a `<new-diagnostics>` tag
around a heading line, then per file its name and one line per problem, `  <mark> [Line L:C] message
[code] (source)`, with 1-based positions. "Before" and "after" are compared without positions (an edit above
a problem moves it without making it new).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from yoke.records import Record

ERROR, WARNING, INFO, HINT = 1, 2, 3, 4
MARKS = {ERROR: "\u2718", WARNING: "\u26a0", INFO: "\u2139", HINT: "\u2605"}
HEADING = "New problems the language server reports after this change:"
MAX_MESSAGE = 2000


class FileReport(Record):
    """One changed file: its new problems, or why none could be had (`unavailable`)."""

    __slots__ = ("path", "new", "unavailable", "server")

    path: Path
    new: list[dict[str, Any]]
    unavailable: str
    server: str

    def __init__(
        self, path: Path, new: list[dict[str, Any]] | None = None, unavailable: str = "", server: str = ""
    ):
        self.path = path
        self.new = [] if new is None else new
        self.unavailable = unavailable
        self.server = server


def severity(diagnostic: dict[str, Any]) -> int:
    value = diagnostic.get("severity")
    return value if isinstance(value, int) and value in MARKS else ERROR  # unset means an error (LSP spec)


def _key(diagnostic: dict[str, Any]) -> tuple[Any, ...]:
    return (
        severity(diagnostic),
        diagnostic.get("message"),
        str(diagnostic.get("code")),
        diagnostic.get("source"),
    )


def new_problems(
    before: list[dict[str, Any]], after: list[dict[str, Any]], include_warnings: bool
) -> list[dict[str, Any]]:
    """The diagnostics of `after` not in `before` (as a multiset: a second copy of an old error is new),
    errors only unless `include_warnings`."""
    wanted = (ERROR, WARNING) if include_warnings else (ERROR,)
    old = Counter(_key(d) for d in before)
    out = []
    for diagnostic in after:
        key = _key(diagnostic)
        if old[key] > 0:
            old[key] -= 1
            continue
        if severity(diagnostic) in wanted:
            out.append(diagnostic)
    return out


def _line(diagnostic: dict[str, Any]) -> str:
    start = (diagnostic.get("range") or {}).get("start") or {}
    line, column = int(start.get("line", 0)) + 1, int(start.get("character", 0)) + 1
    message = str(diagnostic.get("message", "")).strip()[:MAX_MESSAGE]
    code = diagnostic.get("code")
    source = diagnostic.get("source")
    text = f"  {MARKS[severity(diagnostic)]} [Line {line}:{column}] {message}"
    if code not in (None, ""):
        text += f" [{code}]"
    if source:
        text += f" ({source})"
    return text


def _name(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def model_note(reports: list[FileReport], cwd: Path, max_items: int) -> str:
    """The text appended to the edit's result for the model ("" when there is nothing to say)."""
    parts: list[str] = []
    shown = total = 0
    for report in reports:
        total += len(report.new)
        lines = []
        for diagnostic in report.new:
            if shown >= max_items:
                break
            lines.append(_line(diagnostic))
            shown += 1
        if lines:
            parts.append(f"{_name(report.path, cwd)}:\n" + "\n".join(lines))
    if total > shown:
        parts.append(f"... and {total - shown} more")
    notes = []
    if parts:
        notes.append("<new-diagnostics>" + HEADING + "\n\n" + "\n\n".join(parts) + "</new-diagnostics>")
    missing = [r for r in reports if r.unavailable]
    if missing:
        said = "; ".join(f"{_name(r.path, cwd)}: {r.unavailable}" for r in missing)
        notes.append(
            f"<system-reminder>Diagnostics were unavailable for this change ({said}).</system-reminder>"
        )
    return "\n\n".join(notes)


def summary(reports: list[FileReport]) -> str:
    """One line for the terminal under the edit ("" when nothing was checked)."""
    if not reports:
        return ""
    errors = sum(1 for r in reports for d in r.new if severity(d) == ERROR)
    warnings = sum(1 for r in reports for d in r.new if severity(d) == WARNING)
    missing = [r for r in reports if r.unavailable]
    if missing and not (errors or warnings):
        return f"diagnostics unavailable: {missing[0].unavailable}"
    if not (errors or warnings):
        return "no new problems"
    said = []
    if errors:
        said.append(f"{errors} new error{'s' if errors != 1 else ''}")
    if warnings:
        said.append(f"{warnings} new warning{'s' if warnings != 1 else ''}")
    first = next(d for r in reports for d in r.new)
    return f"{', '.join(said)}: {str(first.get('message', '')).splitlines()[0][:120]}"
