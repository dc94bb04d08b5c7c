"""Shapes to compare Yoke's language-server features with Claude Code's, with no prose of either: a tool's
input schema without its descriptions, and a diagnostics reminder reduced to its tag, files and items
(mark, line, column, code, source). Used by scripts/capture_cc_lsp.py and tests/lsp/test_vs_cc.py."""

from __future__ import annotations

import re
from typing import Any

_ITEM = re.compile(r"^  (\S) \[Line (\d+):(\d+)\] .*?(?: \[([^\]]+)\])?(?: \(([^)]+)\))?$", re.S)
_START = re.compile(r"^  \S \[Line \d+:\d+\] ")


def schema_shape(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every `description` (and `$schema`) left out."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in ("description", "$schema")}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return strip(schema)


def reminder_shape(text: str) -> dict[str, Any] | None:
    """The first `<new-diagnostics>` block of `text` as {tag, files: [{name, items}]}; None without one.
    A message's continuation lines (a server's multi-line message) belong to the item before them."""
    match = re.search(r"<(new-diagnostics)>(.*?)</new-diagnostics>", text, re.S)
    if match is None:
        return None
    files: list[dict[str, Any]] = []
    texts: list[list[str]] = []  # per file, each item's whole text (continuation lines joined)
    for line in match.group(2).splitlines()[1:]:  # the first line is the heading
        if re.match(r"^\S.*:$", line):
            files.append({"name": line[:-1], "items": []})
            texts.append([])
        elif _START.match(line) and files:
            texts[-1].append(line)
        elif texts and texts[-1] and line:
            texts[-1][-1] += "\n" + line
    for file, items in zip(files, texts, strict=True):
        for text in items:
            item = _ITEM.match(text)
            if item:
                mark, row, column, code, source = item.groups()
                file["items"].append(
                    {"mark": mark, "line": int(row), "column": int(column), "code": code, "source": source}
                )
    return {"tag": match.group(1), "files": files}
