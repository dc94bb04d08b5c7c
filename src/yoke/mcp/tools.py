"""MCP tools as Yoke tools: one `McpTool` per server tool (`mcp__<server>__<tool>`), plus
`ListMcpResourcesTool` and `ReadMcpResourceTool`.

The server's JSON schema is passed through to the model untouched; input is checked against it with
`jsonschema` (which the `mcp` package already depends on). Results (text, images, embedded resources,
resource links, structured content) become tool-result blocks; text beyond `MAX_MCP_OUTPUT_TOKENS`
(default 25,000 tokens) is saved to a file the model can Read.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, ClassVar

from yoke.tools.base import Tool, ToolContext, ToolError, ToolInputError, ToolResult

MAX_DESCRIPTION_CHARS = 2048
CHARS_PER_TOKEN = 4
DEFAULT_MAX_OUTPUT_TOKENS = 25_000
PREVIEW_CHARS = 2_000
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    return f"mcp__{_UNSAFE_NAME.sub('_', server)}__{_UNSAFE_NAME.sub('_', tool)}"


def max_output_chars(env: Any = None) -> int:
    env = os.environ if env is None else env
    try:
        tokens = int(env.get("MAX_MCP_OUTPUT_TOKENS") or DEFAULT_MAX_OUTPUT_TOKENS)
    except ValueError:
        tokens = DEFAULT_MAX_OUTPUT_TOKENS
    return max(1000, tokens) * CHARS_PER_TOKEN


def cap_description(text: str) -> str:
    if len(text) <= MAX_DESCRIPTION_CHARS:
        return text
    return text[: MAX_DESCRIPTION_CHARS - 15].rstrip() + "… [truncated]"


def check_schema(schema: dict[str, Any], value: Any) -> None:
    """Raise ToolInputError with one line naming every field that does not fit the server's schema."""
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - jsonschema ships with mcp
        return
    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        errors = sorted(cls(schema).iter_errors(value), key=lambda e: list(e.path))
    except jsonschema.SchemaError:
        return  # the server's schema is broken; let the server judge the input
    if errors:
        parts = [f"{'.'.join(str(p) for p in e.path) or 'input'}: {e.message}" for e in errors[:5]]
        raise ToolInputError("; ".join(parts))


class SchemaModel:
    """Stands in for a pydantic input model where older code calls `input_model.model_validate(...)`:
    the same JSON-schema check as `validate`, so JSON-schema tools work on either side of the seam."""

    def __init__(self, schema: dict[str, Any]):
        self.schema = schema

    def model_validate(self, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ToolInputError("input: expected an object")
        check_schema(self.schema, value)
        return value

    def model_json_schema(self) -> dict[str, Any]:
        return dict(self.schema)


class McpTool(Tool):
    """One tool of one server. Attributes are per instance (the base class declares them as ClassVars)."""

    def __init__(self, manager: Any, server: str, spec: Any, max_chars: int | None = None):
        self.manager = manager
        self.server = server
        self.remote_name = spec.name
        self.name = tool_name(server, spec.name)  # type: ignore[misc]
        description = spec.description or spec.title or ""
        self.description = cap_description(description)  # type: ignore[misc]
        schema = dict(spec.input_schema or {})
        schema.setdefault("type", "object")
        self._schema = schema
        self.input_model = SchemaModel(schema)  # type: ignore[misc,assignment]
        annotations = spec.annotations
        read_only = bool(annotations and annotations.read_only_hint)
        self.read_only = read_only  # type: ignore[misc]
        self.concurrency_safe = read_only  # type: ignore[misc]
        self.destructive = bool(annotations and annotations.destructive_hint and not read_only)  # type: ignore[misc]
        self.kind = "read" if read_only else "other"  # type: ignore[misc]
        self.title = (annotations.title if annotations else None) or spec.title or spec.name
        self.max_result_chars = max_chars or max_output_chars()  # type: ignore[misc]
        meta = spec.meta or {}
        self.always_load = bool(meta.get("anthropic/alwaysLoad"))
        self.deferred = False  # set by tool search: only the name is announced until ToolSearch loads it
        self.timeout_s = None  # type: ignore[misc]  # the manager enforces MCP_TOOL_TIMEOUT per call

    def input_schema(self) -> dict[str, Any]:
        return self._schema

    def validate(self, input: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(input, dict):
            raise ToolInputError("input: expected an object")
        check_schema(self._schema, input)
        return input

    def summary(self, input: Any) -> str:
        return f"{self.server} - {self.title} (MCP)"

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from yoke.mcp.server_state import McpUnavailable

        meta = {"claudecode/toolUseId": ctx.tool_use_id} if ctx.tool_use_id else None
        try:
            result = await self.manager.call_tool(self.server, self.remote_name, input, meta)
        except McpUnavailable as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:
            raise ToolError(f"MCP server {self.server!r}: {_one_line(exc)}") from None
        content, data = map_result(result, ctx, self.max_result_chars, self.name)
        return ToolResult(content, is_error=bool(result.is_error), data=data)


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:500]


def map_result(result: Any, ctx: ToolContext | None, max_chars: int, label: str) -> tuple[Any, Any]:
    """An MCP CallToolResult as tool-result content (a string when all text) and the structured data."""
    blocks: list[dict[str, Any]] = []
    for item in result.content or []:
        blocks.extend(content_blocks(item))
    if result.structured_content is not None and not any(b["type"] == "text" for b in blocks):
        blocks.append({"type": "text", "text": json.dumps(result.structured_content, ensure_ascii=False)})
    data: Any = [b.get("text", "") for b in blocks if b["type"] == "text"]
    if result.structured_content is not None:
        data = result.structured_content
    if all(b["type"] == "text" for b in blocks):
        text = "\n".join(b["text"] for b in blocks) if blocks else "(no output)"
        return text, data  # the executor saves text over the tool's cap to a file
    return cap_blocks(blocks, ctx, max_chars, label), data


def content_blocks(item: Any) -> list[dict[str, Any]]:
    kind = getattr(item, "type", "")
    if kind == "text":
        return [{"type": "text", "text": item.text}]
    if kind == "image":
        return [
            {"type": "image", "source": {"type": "base64", "media_type": item.mime_type, "data": item.data}}
        ]
    if kind == "audio":
        return [{"type": "text", "text": f"[audio: {item.mime_type}, {len(item.data) * 3 // 4:,} bytes]"}]
    if kind == "resource":
        res = item.resource
        text = getattr(res, "text", None)
        if text is not None:
            return [{"type": "text", "text": f"[resource {res.uri}]\n{text}"}]
        mime = res.mime_type or "application/octet-stream"
        if mime.startswith("image/"):
            return [{"type": "image", "source": {"type": "base64", "media_type": mime, "data": res.blob}}]
        return [
            {"type": "text", "text": f"[binary resource {res.uri}: {mime}, {len(res.blob) * 3 // 4:,} bytes]"}
        ]
    if kind == "resource_link":
        desc = f" - {item.description}" if item.description else ""
        return [{"type": "text", "text": f"[resource link: {item.name} {item.uri}{desc}]"}]
    return [{"type": "text", "text": str(item)}]


def cap_blocks(blocks: list[dict[str, Any]], ctx: ToolContext | None, max_chars: int, label: str) -> list:
    """Mixed content: text beyond the cap goes to a file, images pass through."""
    total = sum(len(b.get("text", "")) for b in blocks)
    if total <= max_chars or ctx is None:
        return blocks
    from yoke.fsutil import replace_file

    full = "\n".join(b["text"] for b in blocks if b["type"] == "text")
    path = ctx.session.session_dir / "tool-results" / f"{ctx.tool_use_id or label}.txt"
    replace_file(path, full.encode("utf-8"))
    note = (
        f"{full[:PREVIEW_CHARS]}\n\n… [output truncated: {len(full):,} characters in all, over "
        f"MAX_MCP_OUTPUT_TOKENS; the full text is saved at {path} — read it with Read using offset/limit]"
    )
    return [{"type": "text", "text": note}, *[b for b in blocks if b["type"] != "text"]]


class _ResourceTool(Tool):
    """The resource tools: read-only, checked against their own fixed schema, served by the MCP manager."""

    kind = "read"
    read_only = True
    concurrency_safe = True
    schema: ClassVar[dict[str, Any]]

    def __init__(self, manager: Any):
        self.manager = manager
        self.input_model = SchemaModel(self.schema)  # type: ignore[misc,assignment]

    def input_schema(self) -> dict[str, Any]:
        return self.schema

    def validate(self, input: dict[str, Any]) -> dict[str, Any]:
        check_schema(self.schema, input)
        return input


class ListMcpResourcesTool(_ResourceTool):
    name = "ListMcpResourcesTool"
    description = (
        "Lists the resources MCP servers offer (files, records, documents), with the server each comes "
        "from. Give `server` to list one server's resources."
    )
    schema = {
        "type": "object",
        "properties": {"server": {"type": "string", "description": "only this server's resources"}},
    }

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from yoke.mcp.server_state import McpUnavailable

        try:
            found = await self.manager.list_resources(input.get("server"))
        except McpUnavailable as exc:
            raise ToolError(str(exc)) from None
        data = [
            {
                "uri": str(r.uri),
                "name": r.name,
                "mimeType": r.mime_type,
                "description": r.description,
                "server": server,
            }
            for server, r in found
        ]
        if not data:
            return ToolResult(
                "No resources found. MCP servers may still provide tools even if they have no resources.",
                data=[],
            )
        return ToolResult(
            json.dumps([{k: v for k, v in d.items() if v is not None} for d in data], indent=1), data=data
        )


class ReadMcpResourceTool(_ResourceTool):
    name = "ReadMcpResourceTool"
    description = "Reads one resource from an MCP server by its URI (see ListMcpResourcesTool)."
    schema = {
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "the MCP server's name"},
            "uri": {"type": "string", "description": "the resource URI"},
        },
        "required": ["server", "uri"],
    }

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from yoke.mcp.server_state import McpUnavailable

        try:
            result = await self.manager.read_resource(input["server"], input["uri"])
        except McpUnavailable as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:
            raise ToolError(f"could not read {input['uri']}: {_one_line(exc)}") from None
        blocks: list[dict[str, Any]] = []
        contents = []
        for item in result.contents:
            text = getattr(item, "text", None)
            entry = {"uri": str(item.uri), "mimeType": item.mime_type}
            if text is not None:
                blocks.append({"type": "text", "text": text})
                entry["text"] = text
            elif (item.mime_type or "").startswith("image/"):
                blocks.append(
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": item.mime_type, "data": item.blob},
                    }
                )
            else:
                blocks.append(
                    {"type": "text", "text": f"[binary {item.mime_type}, {len(item.blob) * 3 // 4:,} bytes]"}
                )
            contents.append(entry)
        content: Any = blocks
        if all(b["type"] == "text" for b in blocks):
            content = "\n".join(b["text"] for b in blocks) or "(empty)"
        return ToolResult(content, data={"contents": contents})
