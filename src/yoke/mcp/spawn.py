"""Starting a stdio MCP server's process. Kept free of the `mcp` package so a session can start its
servers first and import the package (over a second) while they boot."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from yoke.mcp.config import ServerConfig


def server_env(cfg: ServerConfig, cwd: Path, base: Any = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env.update({"CLAUDE_PROJECT_DIR": str(cwd), "CLAUDECODE": "1", "YOKE": "1"})
    env.update(cfg.env)
    return env


async def spawn_stdio(cfg: ServerConfig, cwd: Path, env: Any = None) -> asyncio.subprocess.Process:
    """The server through the door (`yoke.spawn`): a process group of its own that dies with Yoke. The
    server is the configuration's (approved as `.mcp.json` servers are), run as configured."""
    from yoke import spawn

    return await spawn.start(
        [cfg.command, *cfg.args],
        confine=None,
        stdin=spawn.PIPE,
        stdout=spawn.PIPE,
        stderr=spawn.PIPE,
        env=server_env(cfg, cwd, env),
        cwd=cwd,
    )


async def prespawn(configs: dict[str, ServerConfig], cwd: Path, env: Any = None) -> dict[str, Any]:
    """Start every stdio server now; a server that cannot start is left to the manager to report."""
    out: dict[str, Any] = {}
    for name, cfg in configs.items():
        if cfg.type != "stdio":
            continue
        try:
            out[name] = await spawn_stdio(cfg, cwd, env)
        except (OSError, ValueError):
            pass
    return out
