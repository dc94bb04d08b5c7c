"""The `LSP` tool: code navigation through the session's language servers, with Claude Code 2.1.332's name,
input schema and operations. Read-only: it is judged like Read (its `filePath` is a path the gate checks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from pydantic import Field

from yoke.lsp.offer import DESCRIPTION, MAX_SAFE, SCHEMA, Operation
from yoke.lsp.rpc import RpcError
from yoke.lsp.server import LanguageServer, file_uri
from yoke.tools.base import Tool, ToolContext, ToolError, ToolResult
from yoke.tools.files import resolve_path
from yoke.tools.schema import ToolInput

MAX_ITEMS = 200  # locations or symbols listed; the count says how many there were

SYMBOL_KINDS = {
    1: "File", 2: "Module", 3: "Namespace", 4: "Package", 5: "Class", 6: "Method", 7: "Property", 8: "Field",
    9: "Constructor", 10: "Enum", 11: "Interface", 12: "Function", 13: "Variable", 14: "Constant",
    15: "String", 16: "Number", 17: "Boolean", 18: "Array", 19: "Object", 20: "Key", 21: "Null",
    22: "EnumMember", 23: "Struct", 24: "Event", 25: "Operator", 26: "TypeParameter",
}  # fmt: skip


def _said(field: str) -> str:
    return SCHEMA["properties"][field]["description"]


class LspInput(ToolInput):
    operation: Operation = Field(description=_said("operation"))
    filePath: str = Field(description=_said("filePath"))
    line: int = Field(gt=0, le=MAX_SAFE, description=_said("line"))
    character: int = Field(gt=0, le=MAX_SAFE, description=_said("character"))
    query: str | None = Field(None, description=_said("query"))


class LspTool(Tool):
    name = "LSP"
    kind = "read"
    path_fields = ("filePath",)
    description = DESCRIPTION
    input_model = LspInput
    read_only = True
    concurrency_safe = True

    def summary(self, input: Any) -> str:
        return f"LSP {input.operation} {input.filePath}:{input.line}:{input.character}"

    def input_schema(self) -> dict[str, Any]:
        schema = super().input_schema()
        query = schema["properties"]["query"]
        query.pop("anyOf", None)
        query.pop("default", None)
        query["type"] = "string"
        return schema

    async def run(self, input: LspInput, ctx: ToolContext) -> ToolResult:
        manager = ctx.session.services.lsp
        path = resolve_path(input.filePath, ctx)
        if manager is None or manager.spec_for(path) is None:
            raise ToolError(f"No language server is configured for {path.suffix or 'these'} files.")
        if not path.is_file():
            raise ToolError(f"File does not exist: {path}")
        spec = manager.spec_for(path)
        server, why = await manager.server_for(path, wait=spec.startup_ms / 1000)
        if server is None:
            raise ToolError(f"The language server is not available: {why}")
        if not server.is_open(path):
            server.sync(path, path.read_text(encoding="utf-8", errors="replace"), manager.language(path))
        try:
            text, count = await _operation(server, path, input, Path(ctx.cwd))
        except TimeoutError:
            raise ToolError(f"{spec.name} did not answer within {spec.request_ms} ms.") from None
        except RpcError as exc:
            raise ToolError(f"{spec.name}: {exc}") from None
        data: dict[str, Any] = {"operation": input.operation, "result": text, "filePath": str(path)}
        if count is not None:
            data["resultCount"] = count
        return ToolResult(text, data=data)


def _position(path: Path, line: int, character: int) -> dict[str, int]:
    """1-based line and column to LSP's 0-based line and UTF-16 offset."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        text = lines[line - 1][: character - 1] if line - 1 < len(lines) else ""
    except OSError:
        text = "x" * (character - 1)
    return {"line": line - 1, "character": len(text.encode("utf-16-le")) // 2}


async def _operation(
    server: LanguageServer, path: Path, input: LspInput, cwd: Path
) -> tuple[str, int | None]:
    doc = {"textDocument": {"uri": file_uri(path)}}
    at = {**doc, "position": _position(path, input.line, input.character)}
    op = input.operation
    if op in ("goToDefinition", "goToImplementation"):
        method = "textDocument/definition" if op == "goToDefinition" else "textDocument/implementation"
        places = _locations(await server.request(method, at))
        noun = "definition" if op == "goToDefinition" else "implementation"
        return _list_places(places, noun, cwd), len(places)
    if op == "findReferences":
        params = {**at, "context": {"includeDeclaration": True}}
        places = _locations(await server.request("textDocument/references", params))
        return _grouped(places, "reference", cwd), len(places)
    if op == "hover":
        result = await server.request("textDocument/hover", at)
        text = _hover_text((result or {}).get("contents") if isinstance(result, dict) else None)
        if not text:
            return f"Nothing to show at {input.line}:{input.character}.", 0
        return f"Hover at {input.line}:{input.character}:\n\n{text}", 1
    if op == "documentSymbol":
        symbols = await server.request("textDocument/documentSymbol", doc) or []
        lines: list[str] = []
        _symbol_lines(symbols, 0, lines, cwd)
        if not lines:
            return "The server lists no symbols in this file.", 0
        return "Symbols in the file:\n" + "\n".join(lines[:MAX_ITEMS]), len(lines)
    if op == "workspaceSymbol":
        symbols = await server.request("workspace/symbol", {"query": input.query or ""}) or []
        return _workspace_symbols(symbols, cwd), len(symbols)
    return await _calls(server, at, op, input, cwd)


async def _calls(
    server: LanguageServer, at: dict[str, Any], op: str, input: LspInput, cwd: Path
) -> tuple[str, int]:
    items = await server.request("textDocument/prepareCallHierarchy", at) or []
    if not items:
        return f"No function or method at {input.line}:{input.character}.", 0
    if op == "prepareCallHierarchy":
        lines = [_item_line(item, cwd) for item in items]
        return "Call hierarchy item:\n" + "\n".join(lines), len(items)
    method = "callHierarchy/incomingCalls" if op == "incomingCalls" else "callHierarchy/outgoingCalls"
    calls = await server.request(method, {"item": items[0]}) or []
    key = "from" if op == "incomingCalls" else "to"
    lines = [_item_line(call.get(key) or {}, cwd) for call in calls if isinstance(call, dict)]
    if not lines:
        return ("No callers found." if op == "incomingCalls" else "No calls found."), 0
    noun = "caller" if op == "incomingCalls" else "callee"
    return f"Found {len(lines)} {noun}{'s' if len(lines) != 1 else ''}:\n" + "\n".join(
        lines[:MAX_ITEMS]
    ), len(lines)


def _item_line(item: dict[str, Any], cwd: Path) -> str:
    start = ((item.get("selectionRange") or item.get("range") or {}).get("start")) or {}
    kind = SYMBOL_KINDS.get(item.get("kind", 0), "Symbol")
    where = f"{_display(item.get('uri', ''), cwd)}:{start.get('line', 0) + 1}:{start.get('character', 0) + 1}"
    return f"  {item.get('name', '?')} ({kind}) - {where}"


def _locations(result: Any) -> list[tuple[str, int, int]]:
    """(uri, line, column) of a Location, a list of them or of LocationLinks; 1-based."""
    items = result if isinstance(result, list) else [result] if isinstance(result, dict) else []
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        uri = item.get("uri") or item.get("targetUri")
        rng = item.get("range") or item.get("targetSelectionRange") or item.get("targetRange") or {}
        start = rng.get("start") or {}
        if isinstance(uri, str):
            out.append((uri, int(start.get("line", 0)) + 1, int(start.get("character", 0)) + 1))
    return out


def _display(uri: str, cwd: Path) -> str:
    parts = urlsplit(uri)
    path = Path(unquote(parts.path)) if parts.scheme == "file" else Path(uri)
    try:
        return str(path.relative_to(cwd.resolve()))
    except ValueError:
        try:
            return str(path.relative_to(cwd))
        except ValueError:
            return str(path)


def _list_places(places: list[tuple[str, int, int]], noun: str, cwd: Path) -> str:
    if not places:
        return f"No {noun} found."
    if len(places) == 1:
        uri, line, col = places[0]
        return f"The {noun} is at {_display(uri, cwd)}:{line}:{col}"
    lines = [f"  {_display(u, cwd)}:{line}:{col}" for u, line, col in places[:MAX_ITEMS]]
    return f"Found {len(places)} {noun}s:\n" + "\n".join(lines)


def _grouped(places: list[tuple[str, int, int]], noun: str, cwd: Path) -> str:
    if not places:
        return f"No {noun}s found."
    files: dict[str, list[str]] = {}
    for uri, line, col in sorted(places)[:MAX_ITEMS]:
        files.setdefault(_display(uri, cwd), []).append(f"  Line {line}:{col}")
    head = f"Found {len(places)} {noun}{'s' if len(places) != 1 else ''} in {len(files)} file{'s' if len(files) != 1 else ''}:"
    return head + "\n\n" + "\n\n".join(f"{name}:\n" + "\n".join(lines) for name, lines in files.items())


def _hover_text(contents: Any) -> str:
    if isinstance(contents, str):
        return contents.strip()
    if isinstance(contents, dict):
        value = contents.get("value", "")
        language = contents.get("language")
        return f"```{language}\n{value}\n```" if language else str(value).strip()
    if isinstance(contents, list):
        return "\n\n".join(t for t in (_hover_text(c) for c in contents) if t)
    return ""


def _symbol_lines(symbols: Any, depth: int, out: list[str], cwd: Path) -> None:
    for symbol in symbols if isinstance(symbols, list) else []:
        if not isinstance(symbol, dict):
            continue
        kind = SYMBOL_KINDS.get(symbol.get("kind", 0), "Symbol")
        rng = (
            symbol.get("selectionRange") or symbol.get("range") or (symbol.get("location") or {}).get("range")
        )
        line = ((rng or {}).get("start") or {}).get("line", 0) + 1
        out.append(f"{'  ' * depth}{symbol.get('name', '?')} ({kind}) - Line {line}")
        _symbol_lines(symbol.get("children"), depth + 1, out, cwd)


def _workspace_symbols(symbols: Any, cwd: Path) -> str:
    items = [s for s in symbols if isinstance(s, dict)] if isinstance(symbols, list) else []
    if not items:
        return "No symbols found."
    files: dict[str, list[str]] = {}
    for symbol in items[:MAX_ITEMS]:
        location = symbol.get("location") or {}
        start = ((location.get("range") or {}).get("start")) or {}
        line = f" - Line {start.get('line', 0) + 1}" if start else ""
        kind = SYMBOL_KINDS.get(symbol.get("kind", 0), "Symbol")
        files.setdefault(_display(location.get("uri", ""), cwd), []).append(
            f"  {symbol.get('name', '?')} ({kind}){line}"
        )
    head = f"Found {len(items)} symbol{'s' if len(items) != 1 else ''}:"
    return head + "\n\n" + "\n\n".join(f"{name}:\n" + "\n".join(lines) for name, lines in files.items())
