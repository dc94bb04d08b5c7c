"""`yoke mcp serve`: Yoke's built-in tools (Read, Write, Edit, Glob, Grep, Bash, …) as an MCP server on stdio.

Every call goes through Yoke's permission pipeline with the settings of the directory it runs in. Nobody
is there to answer a question, so a call that would need one is denied with the reason (allow it with a
rule, e.g. `"permissions": {"allow": ["Bash(npm test:*)"]}`, or start with `--permission-mode`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from yoke.ids import new_uuid

# Tools that need a person or a running session to mean anything.
NOT_SERVED = {"AskUserQuestion", "ExitPlanMode", "EnterPlanMode", "TodoWrite", "Task", "Agent"}


class ToolServer:
    """The tools, the gate and one tool context shared by every call (as in one Yoke session)."""

    def __init__(self, cwd: Path, mode: str | None = None):
        from yoke.config.settings import load_settings, yoke_home_dir
        from yoke.permissions import build_gate
        from yoke.seams import NoAsker
        from yoke.tools.base import SessionState, ToolContext
        from yoke.tools.builtin import builtin_tools

        settings = load_settings(cwd)
        self.gate = build_gate(
            settings,
            cwd=cwd,
            mode=mode,
            allowed_tools=[],
            disallowed_tools=[],
            add_dirs=[],
            interactive=False,
        )
        self.tools = {t.name: t for t in builtin_tools() if t.name not in NOT_SERVED}
        session_id = new_uuid()
        from yoke.tools.services import SessionServices

        state = SessionState(
            session_id=session_id,
            session_dir=yoke_home_dir() / "tmp" / f"mcp-serve-{session_id}",
            services=SessionServices.for_gate(self.gate),
        )
        dirs = list(self.gate.working_dirs or [cwd])
        self.ctx = ToolContext(cwd=cwd, session=state, working_dirs=dirs, asker=NoAsker())

    def specs(self) -> list[dict[str, Any]]:
        hidden = set(self.gate.hidden_tools(list(self.tools)))
        return [
            {
                "name": t.name,
                "description": t.description,
                "input_schema": t.input_schema(),
                "read_only": t.read_only,
            }
            for t in self.tools.values()
            if t.name not in hidden
        ]

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
        """The result blocks and whether it is an error."""
        from yoke.tools.base import ToolError

        tool = self.tools.get(name)
        if tool is None or name in set(self.gate.hidden_tools([name])):
            return [{"type": "text", "text": f"No such tool: {name}"}], True
        try:
            parsed = tool.validate(arguments)
        except ToolError as exc:
            return [{"type": "text", "text": f"InputValidationError: {exc}"}], True
        decision = await self.gate.decide(tool, arguments, self.ctx)
        if decision.behavior != "allow":
            why = decision.reason or "this call needs approval"
            hint = (
                ""
                if decision.behavior == "deny"
                else " (nobody can approve it here; allow it with a permission rule)"
            )
            return [{"type": "text", "text": f"Permission denied: {why}{hint}"}], True
        if decision.updated_input is not None:
            parsed = tool.validate(decision.updated_input)
        try:
            result = await tool.run(parsed, self.ctx)
        except ToolError as exc:
            return [{"type": "text", "text": str(exc)}], True
        except Exception as exc:  # a bug in a tool: one line back to the client
            return [{"type": "text", "text": f"Error: {type(exc).__name__}: {exc}"}], True
        content = result.content
        if isinstance(content, str):
            return [{"type": "text", "text": content}], result.is_error
        return list(content), result.is_error


def _mcp_content(blocks: list[dict[str, Any]]) -> list[Any]:
    import mcp_types as types

    out: list[Any] = []
    for block in blocks:
        if block.get("type") == "image" and isinstance(block.get("source"), dict):
            src = block["source"]
            out.append(
                types.ImageContent(
                    type="image", data=src.get("data", ""), mime_type=src.get("media_type", "image/png")
                )
            )
        else:
            text = block.get("text") if block.get("type") == "text" else json.dumps(block)
            out.append(types.TextContent(type="text", text=str(text)))
    return out


async def serve_stdio(cwd: Path, mode: str | None) -> None:
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    from yoke import __version__

    tools = ToolServer(cwd, mode)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=s["name"],
                    description=s["description"],
                    input_schema=s["input_schema"],
                    annotations=types.ToolAnnotations(read_only_hint=s["read_only"]),
                )
                for s in tools.specs()
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> Any:
        blocks, is_error = await tools.call(params.name, dict(params.arguments or {}))
        return types.CallToolResult(content=_mcp_content(blocks), is_error=is_error)

    server = Server("yoke", version=__version__, on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main(argv: list[str]) -> int:
    import asyncio

    p = argparse.ArgumentParser(prog="yoke mcp serve", description=__doc__.splitlines()[0])
    p.add_argument("--permission-mode", help="default | acceptEdits | plan | dontAsk | bypassPermissions")
    p.add_argument("-d", "--debug", action="store_true", help="accepted (Claude Code's flag); no effect")
    p.add_argument("--verbose", action="store_true", help="accepted (Claude Code's flag); no effect")
    a = p.parse_args(argv)
    try:
        asyncio.run(serve_stdio(Path.cwd(), a.permission_mode))
    except KeyboardInterrupt:
        return 130
    except ValueError as exc:
        print(f"yoke mcp serve: {exc}", file=sys.stderr)
        return 2
    return 0
