"""A real MCP server for the tests, built with the `mcp` package's server API.

usage: python mcp_test_server.py stdio|sse|http|ws [PORT] [--tools N] [--token TOKEN]
"""

from __future__ import annotations

import argparse
import base64
import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ImageContent, TextContent, ToolAnnotations

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4e70000000049454e44ae426082"
    )
).decode()


def build(extra_tools: int = 0) -> MCPServer:
    server = MCPServer("yoke-test", instructions="A server for Yoke's tests.")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def echo(text: str) -> str:
        """Echo the text back."""
        return f"echo: {text}"

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two whole numbers."""
        return a + b

    @server.tool()
    def crash() -> str:
        """Exit the server process in the middle of the call."""
        os._exit(3)

    @server.tool()
    def big(size: int = 1_000_000) -> str:
        """Return a large text."""
        return "".join(f"line {i:07d} " + "x" * 50 + "\n" for i in range(size // 64 + 1))[:size]

    @server.tool()
    def picture() -> list:
        """Return a caption and an image."""
        return [
            TextContent(type="text", text="a red dot"),
            ImageContent(type="image", data=PNG, mime_type="image/png"),
        ]

    @server.tool()
    def pid() -> str:
        """The server's process id."""
        return str(os.getpid())

    @server.tool()
    async def grow(ctx: Context) -> str:
        """Add a tool named `fresh` and tell the client the list changed."""

        def fresh() -> str:
            """A tool added at run time."""
            return "fresh!"

        server.add_tool(fresh)
        await ctx.request_context.session.send_tool_list_changed()
        return "grown"

    @server.tool()
    async def ask(ctx: Context) -> str:
        """Ask the user for a value (elicitation)."""
        from pydantic import BaseModel

        class Answer(BaseModel):
            value: str

        result = await ctx.elicit("What value?", Answer)
        return f"elicitation: {result.action}"

    @server.tool()
    def permit(tool_name: str, input: dict, tool_use_id: str = "") -> str:
        """A permission prompt tool: Bash is allowed, anything else refused."""
        import json

        if tool_name == "Bash":
            return json.dumps({"behavior": "allow", "updatedInput": input})
        return json.dumps({"behavior": "deny", "message": f"no {tool_name} today"})

    @server.resource("note://hello", mime_type="text/plain")
    def hello() -> str:
        """A greeting note."""
        return "hello from a resource"

    @server.prompt()
    def review(path: str) -> str:
        """Review a file."""
        return f"Please review {path} carefully."

    for i in range(extra_tools):

        def make(i: int):
            def tool(query: str) -> str:
                return f"tool {i}: {query}"

            tool.__doc__ = (
                f"Look up records of kind {i} in catalogue number {i}. The query is matched against the "
                "record's title, summary and tags; results come back newest first with their identifiers, "
                "owners and the date they were last changed, so that a follow-up call can fetch one in full."
            )
            return tool

        server.add_tool(make(i), name=f"lookup_{i:03d}")
    return server


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("transport")
    p.add_argument("port", nargs="?", type=int, default=0)
    p.add_argument("--tools", type=int, default=0)
    p.add_argument("--die-after", type=float, default=0, help="exit this many seconds after starting")
    a = p.parse_args()
    if a.die_after:
        import threading

        threading.Timer(a.die_after, lambda: os._exit(4)).start()
    server = build(a.tools)
    if a.transport == "stdio":
        server.run()
    elif a.transport == "sse":
        server.run("sse", host="127.0.0.1", port=a.port)
    elif a.transport == "http":
        server.run("streamable-http", host="127.0.0.1", port=a.port)
    elif a.transport == "ws":
        import anyio

        anyio.run(serve_ws, server, a.port)
    else:
        sys.exit(f"unknown transport {a.transport}")


async def serve_ws(server: MCPServer, port: int) -> None:
    """WebSocket: one MCP connection per socket, messages as text frames (the `mcp` subprotocol)."""
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage
    from websockets.asyncio.server import serve

    low = server._lowlevel_server

    async def handler(ws) -> None:
        read_send, read_recv = anyio.create_memory_object_stream(16)
        write_send, write_recv = anyio.create_memory_object_stream(16)

        async def pump_in() -> None:
            async with read_send:
                async for text in ws:
                    msg = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
                    await read_send.send(SessionMessage(msg))

        async def pump_out() -> None:
            async with write_recv:
                async for message in write_recv:
                    await ws.send(message.message.model_dump_json(by_alias=True, exclude_unset=True))

        async with anyio.create_task_group() as tg:
            tg.start_soon(pump_in)
            tg.start_soon(pump_out)
            await low.run(read_recv, write_send, low.create_initialization_options())
            tg.cancel_scope.cancel()

    async with serve(handler, "127.0.0.1", port, subprotocols=["mcp"]) as ws_server:
        await ws_server.serve_forever()


if __name__ == "__main__":
    main()
