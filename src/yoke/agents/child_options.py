"""What a sub-agent may differ in from its parent: the record the agent runner hands to `Session.child`,
the inputs the assembly stages take besides what the child inherits. It lives below the session so that the
runner, which the session holds, never imports the session."""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Any

from yoke.records import dataclass


@dataclass
class ChildOptions:
    """What a sub-agent may differ in from its parent."""

    agent_type: str = "general-purpose"
    system_prompt: str | None = None  # replaces the parent's system prompt
    tools: list[str] | None = None  # restrict to these tools (None: the parent's)
    disallowed_tools: list[str] = field(default_factory=list)
    model: str | None = None
    effort: str | None = None  # the agent's own reasoning effort (None: the parent's)
    permission_mode: str | None = None
    max_turns: int | None = None
    cwd: Path | None = None  # a folder of its own (a worktree); None: the parent's
    withheld_tools: list[Any] = field(default_factory=list)  # tools the parent may not use but agents may
    system_extra: list[str] = field(default_factory=list)  # appended to the system prompt (skills, memory)
    listeners: list[Any] = field(default_factory=list)  # the definition's own hooks, for this agent only
    mcp_servers: dict[str, Any] = field(default_factory=dict)  # the definition's own MCP servers
    warnings: list[str] = field(default_factory=list)  # what setting the agent up found
    background: bool = False  # runs on after the Agent call returns: the parent's interrupt does not stop it
    agent_depth: int | None = None  # its own runner's depth (None: it starts no sub-agents)
