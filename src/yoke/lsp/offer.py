"""What the model is offered of the `LSP` tool, without loading it: its description and JSON schema as plain
data (`tools/lazy.py`'s LazyTool stands in for it), so a session whose servers are never used imports
neither `lsp/tool.py` nor pydantic. `tool.py` takes its fields' descriptions from here, and
tests/lsp/test_units.py checks this schema is the one its input model makes.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

Operation = Literal[
    "goToDefinition",
    "findReferences",
    "hover",
    "documentSymbol",
    "workspaceSymbol",
    "goToImplementation",
    "prepareCallHierarchy",
    "incomingCalls",
    "outgoingCalls",
]
OPERATIONS = list(get_args(Operation))
MAX_SAFE = 9007199254740991  # JavaScript's largest exact integer, the bound Claude Code's schema states

DESCRIPTION = """\
Ask the project's language servers about code by meaning rather than by text.

Operations (line and character are 1-based, as editors and Read show them):
- goToDefinition: where the symbol at the position is defined
- findReferences: every use of the symbol at the position
- hover: the type and documentation of the symbol at the position
- documentSymbol: the functions, classes and variables declared in the file
- workspaceSymbol: symbols whose name matches `query`, across the workspace (give a query)
- goToImplementation: implementations of the interface or abstract method at the position
- prepareCallHierarchy: the function or method at the position, as the call hierarchy sees it
- incomingCalls: the functions and methods that call the one at the position
- outgoingCalls: the functions and methods the one at the position calls

A server must be configured (or found on PATH) for the file's language; otherwise the call fails and says so."""


def _position(what: str) -> dict[str, Any]:
    return {"description": what, "exclusiveMinimum": 0, "maximum": MAX_SAFE, "type": "integer"}


SCHEMA: dict[str, Any] = {
    "additionalProperties": False,
    "properties": {
        "operation": {"description": "Which operation to run", "enum": OPERATIONS, "type": "string"},
        "filePath": {
            "description": "The file, as an absolute path or one relative to the working directory",
            "type": "string",
        },
        "line": _position("The line, counted from 1"),
        "character": _position("The column, counted from 1"),
        "query": {
            "description": "The name, or part of it, to look for (workspaceSymbol only; give one)",
            "type": "string",
        },
    },
    "required": ["operation", "filePath", "line", "character"],
    "type": "object",
}

ENTRY: dict[str, Any] = {
    "name": "LSP",
    "aliases": [],
    "module": "yoke.lsp.tool",
    "class": "LspTool",
    "description": DESCRIPTION,
    "input_schema": SCHEMA,
    "read_only": True,
    "destructive": False,
    "concurrency_safe": True,
    "timeout_s": None,
    "max_result_chars": 100_000,
    "kind": "read",
    "path_fields": ["filePath"],
}
