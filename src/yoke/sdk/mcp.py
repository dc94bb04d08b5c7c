"""In-process MCP servers for `yoke.sdk`: `@tool` and `create_sdk_mcp_server`, as in `claude-agent-sdk`.

The session's MCP client reaches such a server through its SDK bridge (`"type": "sdk"` servers); here the
bridge answers the few JSON-RPC methods a tool server needs (initialize, tools/list, tools/call, ping)
directly, in the same process.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROTOCOL_VERSION = "2025-06-18"
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}


@dataclass
class SdkMcpTool:
    name: str
    description: str
    input_schema: Any  # a JSON schema, or {"param": python type}
    handler: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
    annotations: dict[str, Any] | None = None

    def json_schema(self) -> dict[str, Any]:
        schema = self.input_schema
        if isinstance(schema, dict) and "type" in schema and "properties" in schema:
            return schema
        if isinstance(schema, dict):
            props = {k: {"type": _JSON_TYPES.get(v, "string")} for k, v in schema.items()}
            return {"type": "object", "properties": props, "required": list(props)}
        return {"type": "object", "properties": {}}


def tool(
    name: str, description: str, input_schema: Any, annotations: dict[str, Any] | None = None
) -> Callable[[Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]], SdkMcpTool]:
    def wrap(handler: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]) -> SdkMcpTool:
        return SdkMcpTool(name, description, input_schema, handler, annotations)

    return wrap


class SdkMcpServer:
    def __init__(self, name: str, version: str, tools: list[SdkMcpTool]):
        self.name = name
        self.version = version
        self.tools = {t.name: t for t in tools}

    async def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
        method = message.get("method")
        if "id" not in message:
            return None  # a notification (initialized, cancelled): nothing to answer
        try:
            result = await self._result(method, message.get("params") or {})
        except Exception as exc:  # the tool's own bug becomes the call's JSON-RPC error
            return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": str(exc)}}
        if result is None:
            error = {"code": -32601, "message": f"method {method!r} not supported"}
            return {"jsonrpc": "2.0", "id": message["id"], "error": error}
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}

    async def _result(self, method: Any, params: dict[str, Any]) -> dict[str, Any] | None:
        if method == "initialize":
            return {
                "protocolVersion": params.get("protocolVersion") or PROTOCOL_VERSION,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": self.name, "version": self.version},
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            listed = []
            for t in self.tools.values():
                entry = {"name": t.name, "description": t.description, "inputSchema": t.json_schema()}
                if t.annotations:
                    entry["annotations"] = t.annotations
                listed.append(entry)
            return {"tools": listed}
        if method == "tools/call":
            found = self.tools.get(params.get("name", ""))
            if found is None:
                return {
                    "content": [{"type": "text", "text": f"unknown tool {params.get('name')}"}],
                    "isError": True,
                }
            output = await found.handler(params.get("arguments") or {})
            return {"content": output.get("content", []), "isError": bool(output.get("is_error"))}
        return None


def create_sdk_mcp_server(name: str, version: str = "1.0.0", tools: list[SdkMcpTool] | None = None) -> dict:
    return {"type": "sdk", "name": name, "instance": SdkMcpServer(name, version, list(tools or []))}


def in_process_bridge(
    servers: dict[str, Any] | str | Path,
) -> Callable[[str, dict[str, Any]], Awaitable[Any]] | None:
    """The session's SDK bridge for the `sdk` servers among `mcp_servers`, or None when there are none."""
    instances = {
        name: entry["instance"]
        for name, entry in (servers.items() if isinstance(servers, dict) else [])
        if isinstance(entry, dict) and entry.get("type") == "sdk" and entry.get("instance") is not None
    }
    if not instances:
        return None

    async def bridge(server: str, message: dict[str, Any]) -> Any:
        instance = instances.get(server)
        if instance is None:
            error = {"code": -32601, "message": f"Server '{server}' not found"}
            return {"jsonrpc": "2.0", "id": message.get("id"), "error": error}
        return await instance.handle(message)

    return bridge


def mcp_config_values(servers: Any) -> list[str]:
    """claude-agent-sdk's `mcp_servers` option (a dict of configs, or a file path) as `--mcp-config` values.
    In-process SDK servers (`"type": "sdk"`) keep only their type and name: the session reaches them through
    its SDK bridge (`SessionOptions.mcp_sdk_bridge`)."""
    if not servers:
        return []
    if isinstance(servers, str | Path):
        return [str(servers)]
    entries = {
        name: {k: v for k, v in dict(entry).items() if k != "instance"}
        for name, entry in servers.items()
        if isinstance(entry, dict)
    }
    return [json.dumps({"mcpServers": entries}, default=str)]
