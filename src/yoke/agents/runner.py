"""Running sub-agents for a session: the Agent tool's work. Each agent is a child session (fresh history,
its own tools, model and mode; the parent's budget, interrupt and listeners), announced to SubagentStart
and SubagentStop listeners, its events flowing into the parent's stream stamped with its id. Background
agents run on after the tool returns and tell the parent when they finish."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

from yoke import events as ev
from yoke.agents.definitions import AgentCatalog, AgentDefinition
from yoke.records import dataclass
from yoke.tools.base import ToolContext, ToolError, ToolResult

MAX_DEPTH = 3
MAX_STOP_BLOCKS = 8
NEVER_FOR_AGENTS = {"AskUserQuestion", "ExitPlanMode"}  # sub-agents cannot talk to the user
FILE_CHANGING = ["Write", "Edit", "MultiEdit", "NotebookEdit"]
# Events a sub-agent shows in its parent's stream (its own start, turns and result stay inside it).
FORWARDED = (
    ev.AssistantMessage,
    ev.ToolResultsMessage,
    ev.PermissionDecided,
    ev.Notice,
    ev.TodosChanged,
    ev.TaskEvent,
)


@dataclass
class RunningAgent:
    id: str
    definition: AgentDefinition
    session: Any  # the child Session
    name: str | None = None
    background: bool = False
    task: asyncio.Task | None = None
    output_file: Path | None = None
    result: ev.Result | None = None
    started: float = field(default_factory=time.monotonic)
    tool_uses: int = 0
    worktree: Any = None
    stopped: bool = False  # TaskStop ended it: its end is reported, but needs no answer from the model

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()


class AgentRunner:
    """The Agent tool's work for one session. `owner` returns that session (the runner is built with the
    session's tools, before the session itself exists); `depth` is how deep in sub-agents it is."""

    def __init__(
        self,
        catalog: AgentCatalog,
        owner: Callable[[], Any],
        depth: int = 0,
        max_depth: int = MAX_DEPTH,
        background_default: bool = True,
    ):
        self.owner = owner
        self.background_default = background_default  # the session's port runs the follow-up on the notice
        self.catalog = catalog
        self.depth = depth
        self.max_depth = max_depth
        self.agents: dict[str, RunningAgent] = {}

    @property
    def session(self) -> Any:
        """The session whose sub-agents these are."""
        return self.owner()

    # ---- the Agent tool ------------------------------------------------------------------------------

    async def start(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from yoke.agents import background  # imported when the first sub-agent starts, not with every session

        kind = input.get("subagent_type") or "general-purpose"
        definition = self.catalog.get(kind)
        if definition is None:
            names = ", ".join(self.catalog.names())
            raise ToolError(f"Agent type '{kind}' not found. Available agents: {names}")
        agent = await self._spawn(definition, input, ctx.tool_use_id)
        prompt = input["prompt"]
        out = await agent.session.agent.lifecycle.announce(
            "SubagentStart", agent_id=agent.id, agent_type=definition.name
        )
        if out.additional_context:
            prompt = f"{prompt}\n\n<system-reminder>\n{out.additional_context}\n</system-reminder>"
        if self._in_background(input, definition):
            return background.launch(self, agent, input, prompt, ctx)
        emit = ctx.emit
        if emit is not None:
            emit(
                ev.TaskEvent("started", agent.id, ctx.tool_use_id, background.task_fields(self, agent, input))
            )
        try:
            await self._drive(agent, prompt, emit)
        finally:  # every task_started gets its task_notification, also when the agent fails
            if emit is not None:
                emit(ev.TaskEvent("ended", agent.id, ctx.tool_use_id, background.task_outcome(self, agent)))
        return self._report(agent)

    def _in_background(self, input: dict[str, Any], definition: AgentDefinition) -> bool:
        """Claude Code 2.1.330 runs a main session's sub-agent in the background unless the call says
        `run_in_background: false` (every model it was run with; tests/cli/cc_2_1_330/agent_background*).
        A sub-agent's own sub-agents run in the foreground unless asked: nothing would read the notice of one
        that ended after its parent did. Every front-end drives the main session through its port
        (`yoke.events.port`), which runs the follow-up query a notice starts."""
        asked = input.get("run_in_background")
        if definition.background or asked is True:
            return True
        return asked is None and self.depth == 0 and self.background_default

    async def _spawn(
        self, definition: AgentDefinition, input: dict[str, Any], tool_use_id: str
    ) -> RunningAgent:
        """A child session for `definition`, built by the session's own stages: everything the definition
        adds (its hooks, preloaded skills, memory, MCP servers) goes in with its options."""
        from yoke.agents.child_options import ChildOptions

        worktree = None
        cwd = None
        if (input.get("isolation") or definition.isolation) == "worktree":
            from yoke.agents.worktree import create_worktree

            worktree = await create_worktree(self.session, input.get("name") or definition.name)
            cwd = worktree.path
        model = input.get("model") or definition.model
        warnings: list[str] = []
        listeners = self._definition_hooks(definition, warnings) if definition.hooks else []
        system_extra = self._preloaded_skills(definition, warnings) if definition.skills else []
        if definition.memory in ("user", "project", "local"):
            system_extra += self._agent_memory(definition, warnings)
        servers = self._agent_servers(definition, warnings)
        depth = self.depth + 1
        options = ChildOptions(
            agent_type=definition.name,
            system_prompt=definition.prompt or None,
            tools=definition.tools,
            disallowed_tools=self._disallowed(definition, self._in_background(input, definition)),
            model=None if model in (None, "inherit") else model,
            effort=_effort(definition.effort),
            permission_mode=capped_mode(definition.permission_mode, self.session.permission_mode),
            max_turns=definition.max_turns,
            cwd=cwd,
            withheld_tools=list(self.catalog.withheld_tools),
            system_extra=system_extra,
            listeners=listeners,
            mcp_servers=servers,
            warnings=warnings,
            background=self._in_background(input, definition),
            agent_depth=depth if depth < self.max_depth else None,
        )
        child = await self.session.child(options, tool_use_id)
        agent = RunningAgent(child.agent.agent_id, definition, child, input.get("name"), worktree=worktree)
        self.agents[agent.id] = agent
        if agent.name:
            self.agents[agent.name] = agent
        return agent

    def _definition_hooks(self, definition: AgentDefinition, warnings: list[str]) -> list[Any]:
        """The definition's own hooks, for this agent's lifetime only (its `Stop` is `SubagentStop`, as in
        Claude Code). A project's definitions bring hooks only once the folder is trusted."""
        from yoke.hooks.config import parse_hooks
        from yoke.hooks.listener import HookListener

        found: list[str] = []
        groups = parse_hooks(
            definition.hooks,
            scope="agent",
            source=str(definition.path or definition.name),
            warnings=found,
            stop_as_subagent_stop=True,
        )
        if definition.source == "project" and not _trusted(self.session):
            warnings.append(f"{definition.path}: hooks skipped until this folder is trusted (yoke trust)")
            from yoke.hooks.untrusted import UntrustedJudges

            judges = UntrustedJudges(groups)  # the calls they would judge fail closed (hooks/untrusted.py)
            return [judges] if judges.groups else []
        if not groups:
            return []
        return [
            HookListener(groups, project_dir=self.session.cwd, base_env=self.session.agent.executor.ctx.env)
        ]

    def _preloaded_skills(self, definition: AgentDefinition, warnings: list[str]) -> list[str]:
        """The definition's `skills`, their full text in the agent's system prompt from the start."""
        extensions = self.session.services.extensions
        catalog = getattr(getattr(extensions, "runtime", None), "catalog", None)
        texts = []
        for name in definition.skills:
            skill = catalog.get(name) if catalog is not None else None
            if skill is None:
                warnings.append(f"agent {definition.name}: skill {name!r} not found; not preloaded")
                continue
            texts.append(f"# Skill: {skill.name}\n\n{skill.body.strip()}")
        return texts

    def _agent_memory(self, definition: AgentDefinition, warnings: list[str]) -> list[str]:
        """`memory: user|project|local`: the agent keeps notes across sessions in a folder of its own, as in
        Claude Code (`~/.claude/agent-memory/<name>/`, `.claude/agent-memory/<name>/`,
        `.claude/agent-memory-local/<name>/`): its index in the agent's prompt, writes there unasked (the
        session's rules, which its agents share)."""
        from yoke.memory.allowance import allow_memory_directory
        from yoke.memory.section import memory_section
        from yoke.memory.store import load_index

        env = self.session.env
        # a name is any text (`4.1-Beast`, even `../x`): only a plain folder name may reach the disk
        name = re.sub(r"[^A-Za-z0-9_.-]", "-", definition.name).strip(".") or "agent"
        if definition.memory == "user":
            base = Path(env.get("CLAUDE_CONFIG_DIR") or Path(env.get("HOME") or Path.home()) / ".claude")
            folder = base / "agent-memory" / name
        else:
            sub = "agent-memory" if definition.memory == "project" else "agent-memory-local"
            folder = self.session.cwd / ".claude" / sub / name
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            warnings.append(f"agent {definition.name}: memory folder {folder} unavailable ({exc})")
            return []
        allow_memory_directory(self.session.gate, folder)
        return [memory_section(folder, load_index(folder))]

    def _agent_servers(self, definition: AgentDefinition, warnings: list[str]) -> dict[str, Any]:
        """A definition's own MCP servers (`mcpServers` entries written out in full), when they may start:
        not a project's definition before the folder is trusted (they are the repository's code), nor any
        while the session plans (plan mode runs nothing). Servers named by a string are the session's own,
        whose tools the agent already has."""
        inline = {k: v for e in definition.mcp_servers if isinstance(e, dict) for k, v in e.items()}
        if not inline or definition.source == "plugin":
            return {}
        where = definition.path or definition.name
        if definition.source == "project" and not _trusted(self.session):
            warnings.append(f"{where}: MCP servers skipped until this folder is trusted (yoke trust)")
            return {}
        if self.session.permission_mode == "plan":
            warnings.append(f"{where}: MCP servers not started in plan mode")
            return {}
        return inline

    def _disallowed(self, definition: AgentDefinition, background: bool = False) -> list[str]:
        denied = set(definition.disallowed_tools) | NEVER_FOR_AGENTS
        if background:  # 2.1.332 offers a background agent no ListAgents, even when its `tools` names it
            denied.add("ListAgents")
        if definition.permission_mode == "plan":
            denied.discard("ExitPlanMode")
        if self.depth + 1 >= self.max_depth:
            denied |= {"Agent", "Task", "SendMessage", "ListAgents"}
        if definition.read_only:
            denied |= set(FILE_CHANGING)
        return sorted(denied)

    async def _drive(self, agent: RunningAgent, prompt: str, emit: Any) -> None:
        """Run the agent's query, showing its progress in the parent's stream; SubagentStop listeners may
        keep it going (up to eight times in a row, as for Stop)."""
        for attempt in range(MAX_STOP_BLOCKS + 1):
            async for event in agent.session.query(prompt):
                if isinstance(event, ev.ToolResultsMessage):
                    agent.tool_uses += len(event.results)
                if isinstance(event, ev.Result):
                    agent.result = event
                elif emit is not None and isinstance(event, FORWARDED):
                    emit(event)
            if agent.result is None or agent.result.reason == "interrupted":
                break
            verdict = await agent.session.agent.lifecycle.announce(
                "SubagentStop",
                stop_hook_active=attempt > 0,
                agent_id=agent.id,
                agent_type=agent.definition.name,
                agent_transcript_path=str(agent.session.transcript_path),
                last_assistant_message=agent.result.text if not agent.result.is_error else "",
            )
            if not (verdict.block and verdict.reason):
                break
            prompt = f"SubagentStop hook feedback:\n{verdict.reason}"
        if agent.worktree is not None:
            await agent.worktree.finish()

    def _report(self, agent: RunningAgent) -> ToolResult:
        result = agent.result
        if result is None:
            raise ToolError("The agent ended without an answer.")
        usage = result.usage.as_dict() if hasattr(result.usage, "as_dict") else {}
        data: dict[str, Any] = {
            "status": "completed" if not result.is_error else "error",
            "agentId": agent.id,
            "content": [{"type": "text", "text": result.text}],
            "totalToolUseCount": agent.tool_uses,
            "totalDurationMs": int((time.monotonic() - agent.started) * 1000),
            "totalTokens": sum(v for v in usage.values() if isinstance(v, int)),
            "usage": usage,
        }
        if agent.worktree is not None:
            data["worktreePath"] = str(agent.worktree.path) if agent.worktree.kept else None
        text = result.text if not result.is_error else f"The agent stopped: {result.text}"
        if agent.worktree is not None and agent.worktree.kept:
            text += (
                f"\n\nIts changes are in the worktree {agent.worktree.path} (branch {agent.worktree.branch})."
            )
        return ToolResult(text, is_error=result.is_error, data=data)

    # ---- background agents (agents/background.py) ------------------------------------------------------

    async def output(self, agent_id: str, wait_s: float) -> ToolResult:
        """TaskOutput for a background agent: its answer once done (waiting up to `wait_s`)."""
        from yoke.agents import background

        return await background.output(self.agents[agent_id], wait_s)

    def stop(self, agent_id: str) -> bool:
        agent = self.agents.get(agent_id)
        if agent is None or not agent.running:
            return False
        agent.stopped = True
        agent.session.interrupt()
        return True

    # ---- SendMessage -------------------------------------------------------------------------------------

    async def send(self, to: str, message: str, ctx: ToolContext) -> ToolResult:
        agent = self.agents.get(to)
        if agent is None:
            known = ", ".join(sorted(self.agents)) or "none yet"
            raise ToolError(f"No agent called {to!r} (agents: {known}).")
        if agent.running:
            agent.session.agent.inbox.append(f"Message from the agent that started you:\n{message}")
            return ToolResult(f"Message queued for {to}; it reads it before its next step.")
        agent.result = None
        await self._drive(agent, message, ctx.emit)
        return self._report(agent)

    async def aclose(self) -> None:
        # an agent with a name is filed under its id and its name: each once (RunningAgent is unhashable)
        for agent in {id(a): a for a in self.agents.values()}.values():
            if agent.task is not None and not agent.task.done():
                agent.task.cancel()
                await asyncio.gather(agent.task, return_exceptions=True)


def _trusted(session: Any) -> bool:
    from yoke.config.settings import yoke_home_dir
    from yoke.config.trust import is_trusted

    env = session.env or None
    home = Path(env["HOME"]) if env and env.get("HOME") else None
    return is_trusted(session.cwd, yoke_home_dir(env=env), home=home)


def _effort(value: str | None) -> str | None:
    """A definition's `effort` frontmatter as a level; a misspelt one leaves the parent's level in force."""
    from yoke.providers.effort import EffortError, check_level

    try:
        return check_level(value, "effort")
    except EffortError:
        return None


# From the mode that allows least to the one that allows most (dontAsk runs what rules allow; plan not even that).
_MODE_ORDER = ("plan", "dontAsk", "default", "acceptEdits", "auto", "bypassPermissions")


def capped_mode(asked: str | None, parent: str) -> str | None:
    """The mode a definition's `permissionMode` gives its agent: a definition may lower its agent's mode,
    never raise it above the parent's (a cloned repository's agent file, trusted or not, cannot turn a plan
    or dontAsk session's helper into an acceptEdits or bypassPermissions one). None keeps the parent's."""
    if asked is None or asked == parent:
        return None
    rank = {m: i for i, m in enumerate(_MODE_ORDER)}
    if asked not in rank or parent not in rank or rank[asked] > rank[parent]:
        return None
    return asked
