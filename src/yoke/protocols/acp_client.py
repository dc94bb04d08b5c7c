"""What the ACP client offers the session: its file system (`WorkspaceFiles`) and its terminals
(`CommandTerminal`).

When the client offers `fs.readTextFile`, Read (of text files) and Edit see the editor's buffers, unsaved
changes included; when it offers `fs.writeTextFile`, Write, Edit and MultiEdit hand their result to the
editor, which shows it in the buffer (and saves it). When it offers `terminal`, foreground Bash commands the
sandbox does not cover run in an editor terminal embedded in the tool call (`yoke.tools.shell.terminal`
says which and why). Anything the client did not offer stays local.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp import schema


class ClientFiles:
    """`yoke.tools.workspace.WorkspaceFiles` over an ACP connection (one per session)."""

    def __init__(self, conn: Any, *, reads: bool, writes: bool):
        self.conn = conn
        self.session_id = ""  # known once the session is open
        self.reads_text = reads
        self.writes_text = writes

    async def read_text(self, path: Path) -> str:
        response = await self.conn.read_text_file(session_id=self.session_id, path=str(path))
        return response.content

    async def write_text(self, path: Path, text: str) -> None:
        await self.conn.write_text_file(session_id=self.session_id, path=str(path), content=text)


class ClientTerminal:
    """`yoke.tools.shell.terminal.CommandTerminal` over an ACP connection (one per session). Remembers
    which tool call each terminal belongs to, so the call's final update keeps showing it."""

    def __init__(self, conn: Any):
        self.conn = conn
        self.session_id = ""
        self.by_call: dict[str, str] = {}  # tool_use_id -> terminal id

    async def create(
        self, argv: list[str], *, cwd: Path, env: dict[str, str], output_limit: int, tool_use_id: str
    ) -> str:
        response = await self.conn.create_terminal(
            session_id=self.session_id,
            command=argv[0],
            args=argv[1:],
            env=[schema.EnvVariable(name=k, value=v) for k, v in env.items()],
            cwd=str(cwd),
            output_byte_limit=output_limit,
        )
        terminal_id = response.terminal_id
        self.by_call[tool_use_id] = terminal_id
        await self.conn.session_update(
            session_id=self.session_id,
            update=schema.ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=tool_use_id,
                status="in_progress",
                content=[terminal_content(terminal_id)],
            ),
        )
        return terminal_id

    async def wait(self, terminal_id: str) -> tuple[int | None, str | None]:
        response = await self.conn.wait_for_terminal_exit(session_id=self.session_id, terminal_id=terminal_id)
        return response.exit_code, response.signal

    async def output(self, terminal_id: str) -> tuple[str, bool]:
        response = await self.conn.terminal_output(session_id=self.session_id, terminal_id=terminal_id)
        return response.output, bool(response.truncated)

    async def kill(self, terminal_id: str) -> None:
        await self.conn.kill_terminal(session_id=self.session_id, terminal_id=terminal_id)

    async def release(self, terminal_id: str) -> None:
        await self.conn.release_terminal(session_id=self.session_id, terminal_id=terminal_id)


def terminal_content(terminal_id: str) -> Any:
    return schema.TerminalToolCallContent(type="terminal", terminal_id=terminal_id)


def client_files(conn: Any, capabilities: Any) -> ClientFiles | None:
    """The files the client offers (None when it offers neither reading nor writing)."""
    fs = getattr(capabilities, "fs", None)
    reads = bool(getattr(fs, "read_text_file", False))
    writes = bool(getattr(fs, "write_text_file", False))
    if not (reads or writes):
        return None
    return ClientFiles(conn, reads=reads, writes=writes)


def client_terminal(conn: Any, capabilities: Any) -> ClientTerminal | None:
    return ClientTerminal(conn) if getattr(capabilities, "terminal", False) else None


def mcp_config_values(servers: Any) -> list[str]:
    """An ACP client's `mcpServers` (stdio: name/command/args/env list; http and sse: name/url/headers list)
    as `--mcp-config` values."""
    entries: dict[str, Any] = {}
    for server in servers or []:
        name = getattr(server, "name", None)
        if not name:
            continue
        url = getattr(server, "url", None)
        if url:
            headers = {h.name: h.value for h in getattr(server, "headers", None) or []}
            entries[name] = {"type": getattr(server, "type", None) or "http", "url": url, "headers": headers}
        elif getattr(server, "command", None):
            env = {e.name: e.value for e in getattr(server, "env", None) or []}
            entries[name] = {"command": server.command, "args": list(server.args or []), "env": env}
    return [json.dumps({"mcpServers": entries})] if entries else []
