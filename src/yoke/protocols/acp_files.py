"""The ACP client's file system as the session's `WorkspaceFiles`: text read from and written to the editor.

When the client offers `fs.readTextFile`, Read (of text files) and Edit see the editor's buffers, unsaved
changes included; when it offers `fs.writeTextFile`, Write, Edit and MultiEdit hand their result to the
editor, which shows it in the buffer (and saves it). Anything the client did not offer stays on the disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


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


def client_files(conn: Any, capabilities: Any) -> ClientFiles | None:
    """The files the client offers (None when it offers neither reading nor writing)."""
    fs = getattr(capabilities, "fs", None)
    reads = bool(getattr(fs, "read_text_file", False))
    writes = bool(getattr(fs, "write_text_file", False))
    if not (reads or writes):
        return None
    return ClientFiles(conn, reads=reads, writes=writes)
