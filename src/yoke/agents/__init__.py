"""Sub-agents: definitions (`.claude/agents`, `--agents`, built-ins), the Agent and SendMessage tools, the
runner that starts child sessions, worktree isolation, and the shared task list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.agents.definitions import AgentCatalog, AgentDefinition, load_catalog


def agent_tools(catalog: AgentCatalog) -> list[Any]:
    """The tools a session gets for sub-agents and the task list."""
    from yoke.agents.task_list import TaskCreateTool, TaskGetTool, TaskListTool, TaskUpdateTool
    from yoke.agents.tools import AgentTool, ListAgentsTool, SendMessageTool
    from yoke.agents.worktree_tools import EnterWorktreeTool, ExitWorktreeTool

    return [
        AgentTool(catalog),
        ListAgentsTool(),
        SendMessageTool(),
        TaskCreateTool(),
        TaskGetTool(),
        TaskListTool(),
        TaskUpdateTool(),
        EnterWorktreeTool(),
        ExitWorktreeTool(),
    ]


def catalog_for(cwd: Path, env: Any, agents: Any) -> AgentCatalog:
    return load_catalog(cwd, env=env, flag_agents=agents)


__all__ = ["AgentCatalog", "AgentDefinition", "agent_tools", "catalog_for", "load_catalog"]
