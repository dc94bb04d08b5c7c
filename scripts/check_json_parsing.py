"""`make lint`: JSON Yoke did not write is parsed through `yoke/jsonsafe.py`, nowhere else.

The standard parser raises `RecursionError` on deeply nested input, which no caller expects; jsonsafe turns
that into an ordinary `ValueError`. This check fails on every `json.loads`/`json.load` (also through an
alias or `from json import loads`) in `src/yoke` outside jsonsafe.py, unless the line says why the text is
Yoke's own with a `# json-ours: <reason>` comment (a package data file, a deep copy of a value Yoke holds).

    python scripts/check_json_parsing.py [ROOT]      exit 1 and one line per offender
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MARK = "# json-ours:"
ALLOWED_FILE = "jsonsafe.py"


def offenders(package: Path) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.name == ALLOWED_FILE and path.parent == package:
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for lineno in _parse_calls(ast.parse(text, str(path))):
            if not any(MARK in lines[n - 1] for n in (lineno, lineno - 1) if 0 < n <= len(lines)):
                found.append(f"{path}:{lineno}: json parsed outside jsonsafe.py (use yoke.jsonsafe.loads)")
    return found


def _parse_calls(tree: ast.AST) -> list[int]:
    """Lines that parse JSON with the standard library: calls of json.load(s) and imports of them."""
    json_names = {"json"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            json_names |= {a.asname for a in node.names if a.name == "json" and a.asname}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "json":
            if any(a.name in ("load", "loads") for a in node.names):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
            if (
                node.func.attr in ("load", "loads")
                and isinstance(target, ast.Name)
                and target.id in json_names
            ):
                lines.append(node.lineno)
    return lines


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent
    found = offenders(root / "src" / "yoke")
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
