"""What the manager knows of one server (its status, tools, session and connection), and the error a call
to a server that is not connected raises."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from yoke.mcp.config import ServerConfig
from yoke.mcp.transports import Link


class McpUnavailable(Exception):
    """A call to a server that is not connected (one line the model can read)."""


@dataclass
class ServerState:
    config: ServerConfig
    status: str = "pending"
    error: str = ""
    tools: list[Any] = field(default_factory=list)  # mcp_types.Tool
    session: Any = None
    server_info: Any = None
    capabilities: Any = None
    instructions: str = ""
    link: Link | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    lost: asyncio.Event = field(default_factory=asyncio.Event)
    settled: asyncio.Event = field(default_factory=asyncio.Event)  # left `pending` at least once
    restarts: int = 0
    refreshing: asyncio.Task | None = None  # a tools/list after list_changed, awaited by the next call

    @property
    def name(self) -> str:
        return self.config.name

    def entry(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "status": self.status}
        if self.error and self.status != "connected":
            out["error"] = self.error
        return out


def usable(state: ServerState) -> bool:
    """Connected, and not a connection that has just ended (its session is being torn down)."""
    ended = state.link is not None and state.link.ended.is_set()
    return state.session is not None and not ended and not state.lost.is_set()
