"""What a session answers about itself and its parts (rules, hooks, agents, MCP servers, context, background
tasks) and the operations on its parts a front-end may ask for (rewind, stop a task, MCP reconnect): the
`Session`'s readouts, kept apart from its turns (`engine.py`) and its port (`port.py`). Each imports what it
reads only when called."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from yoke.loop.turn import Agent
    from yoke.permissions.gate import Gate
    from yoke.session.engine import Session
    from yoke.tools.services import SessionServices


class Readouts:
    """Mixed into `Session` (which provides the attributes below)."""

    agent: Agent
    gate: Gate
    mcp: Any
    session_dir: Path

    @property
    def services(self) -> SessionServices:
        """The session's named services (`yoke.tools.services`): shell, todos, agent runner, extensions."""
        return self.agent.executor.ctx.session.services

    @property
    def cwd(self) -> Path:
        return self.agent.executor.ctx.cwd

    def describe_call(self, tool_name: str, input: dict[str, Any]) -> tuple[str, list[str]]:
        """What a call does (the tool's kind: read, edit, execute, ...) and the paths it names, for
        front-ends that show calls (ACP locations, the terminal UI)."""
        tool = self.agent.executor.registry.get(tool_name)
        if tool is None:
            return "other", []
        return str(tool.kind), tool.paths(input)

    def background_tasks(self) -> list[dict[str, Any]]:
        """Background shell tasks still running ({id, command, description, started_at}), for front-ends
        to list."""
        manager = getattr(self.services.shell, "tasks", None)
        if manager is None:
            return []
        return [
            {"id": t.id, "command": t.command, "description": t.description, "started_at": t.started_at}
            for t in manager.tasks()
            if t.running
        ]

    def rewind_files(
        self, user_message_id: str, on_conflict: str = "refuse", undo: bool = False
    ) -> list[Path]:
        """Put back the whole tree (or, outside a project, every file the file tools changed) as it was before
        the prompt `user_message_id`; with `undo`, as it was before the latest rewind. Returns the paths
        restored. ValueError when that prompt changed nothing, or when files changed outside the session
        would be overwritten and `on_conflict` is "refuse" (else "keep" or "overwrite"): session/rewind.py."""
        from yoke.session.checkpoints import Checkpoints

        checkpoints = Checkpoints(self.session_dir, self.cwd)
        if undo:
            return checkpoints.undo_rewind(on_conflict)  # type: ignore[arg-type]
        uuids = checkpoints.message_uuids()
        if user_message_id not in uuids:
            raise ValueError(f"no file checkpoint for message {user_message_id}")
        later = uuids[uuids.index(user_message_id) + 1 :]
        return checkpoints.rewind(user_message_id, restore_files=True, later=later, on_conflict=on_conflict)  # type: ignore[arg-type]

    def context_usage(self) -> dict[str, Any]:
        """What fills the context window, by category (Claude Code's `get_context_usage` shape), from the same
        accounting as `/context` (`context_measure`)."""
        from yoke.session.context_usage import context_usage

        return context_usage(cast("Session", self))

    def permission_rules(self) -> dict[str, list[str]]:
        """The rules in force, by behavior (the session's own answers under `session`)."""
        return self.gate.rules_in_force()

    def agent_definitions(self) -> list[tuple[str, str, str]]:
        """(name, source, description) of every sub-agent this session can start."""
        runner = self.services.agents
        catalog = getattr(runner, "catalog", None)
        return [(d.name, d.source, d.description) for d in (catalog.by_name.values() if catalog else [])]

    def mcp_servers(self) -> list[dict[str, Any]]:
        """Every MCP server with its state (`name`, `status`, `error`)."""
        return self.mcp.entries() if getattr(self, "mcp", None) is not None else []

    async def mcp_reconnect(self, name: str) -> None:
        """Reconnect one MCP server from scratch; KeyError names the servers when there is no such one."""
        if getattr(self, "mcp", None) is None or not hasattr(self.mcp, "reconnect"):
            raise KeyError("no MCP servers are running in this session")
        await self.mcp.reconnect(name)

    async def mcp_set_enabled(self, name: str, enabled: bool) -> None:
        """Turn one MCP server off (disconnected, its tools withdrawn) or on again; KeyError as `mcp_reconnect`."""
        if getattr(self, "mcp", None) is None or not hasattr(self.mcp, "set_enabled"):
            raise KeyError("no MCP servers are running in this session")
        await self.mcp.set_enabled(name, enabled)

    def stop_task(self, task_id: str) -> bool:
        """Stop a background sub-agent by id; False when there is no such running task."""
        runner = self.services.agents
        return bool(runner is not None and runner.stop(task_id))

    def hooks(self) -> list[dict[str, Any]]:
        """The hooks this session runs, one row per handler (`event`, `matcher`, `type`, `target`, `scope`,
        `source`): settings files, plugins, and skills' hooks once the skill has run."""
        rows: list[dict[str, Any]] = []
        for listener in getattr(self.agent.lifecycle, "_listeners", []):
            describe = getattr(listener, "describe_hooks", None)
            if callable(describe):
                rows += describe()
        return rows

    def permission_modes(self) -> list[str]:
        """The modes the session may switch into now: default, acceptEdits, plan, dontAsk, then
        bypassPermissions when it started with it (or was allowed to), and auto when its classifier is
        installed."""
        return self.gate.available_modes()

    async def slash_commands(self) -> list[dict[str, str]]:
        """What a user may type as `/name` besides the front-end's built-ins: user-invocable skills and
        custom commands, then MCP prompts (`mcp__server__prompt`); each with `name`, `description`,
        `argument_hint` and `kind` (skill, command, mcp)."""
        from yoke.session.command_list import slash_commands

        return await slash_commands(cast("Session", self))

    def context_measure(self) -> Any:
        """What fills the context window now (`yoke.context.inspect.ContextUsage`): the system prompt and tool
        definitions as they are sent, and the conversation; one accounting for every front-end."""
        from yoke.session.context_usage import context_measure

        return context_measure(cast("Session", self))

    async def context_report(self) -> str:
        from yoke.context.inspect import usage_report

        return usage_report(self.context_measure(), self.cwd)
