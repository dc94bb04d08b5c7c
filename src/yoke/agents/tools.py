"""The Agent tool (legacy name Task) and SendMessage: the model's way to start and talk to sub-agents.
Both hand the work to the session's `AgentRunner` (found in the session state), so tools stay unaware of
how sessions are built."""

from __future__ import annotations

from typing import Any, ClassVar

from yoke.tools.base import ToolContext, ToolError, ToolKind, ToolResult
from yoke.tools.json_schema import SchemaTool

AGENT_DESCRIPTION = """Launch a sub-agent to handle a complex, multi-step task on its own.

Each agent starts with a fresh context: give it everything it needs in `prompt` (the goal, what you know,
what to return). Its final message comes back to you as this tool's result; the user does not see it, so
summarize what matters. Launch several agents in one message when their tasks are independent: they run in
parallel. With `run_in_background` you get an id at once and a notification when the agent finishes.

Available agent types (`subagent_type`):
{agents}"""


def _runner(ctx: ToolContext) -> Any:
    runner = ctx.session.services.agents
    if runner is None:
        raise ToolError("Sub-agents are not available in this session.")
    return runner


class AgentTool(SchemaTool):
    name: ClassVar[str] = "Agent"
    aliases: ClassVar[tuple[str, ...]] = ("Task",)
    kind: ClassVar[ToolKind] = "other"
    read_only: ClassVar[bool] = True  # the agent's own calls are judged one by one
    concurrency_safe: ClassVar[bool] = True
    timeout_s: ClassVar[float | None] = 24 * 3600.0
    schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "description": {"type": "string", "description": "A short (3-5 word) description of the task"},
            "prompt": {"type": "string", "description": "The task for the agent to perform"},
            "subagent_type": {"type": "string", "description": "The type of agent to use"},
            "model": {"type": "string", "enum": ["sonnet", "opus", "haiku", "inherit"]},
            "run_in_background": {"type": "boolean", "description": "Run the agent in the background"},
            "name": {"type": "string", "description": "A name to address the agent by with SendMessage"},
            "isolation": {"type": "string", "enum": ["worktree"]},
        },
        "required": ["description", "prompt"],
        "additionalProperties": False,
    }

    def __init__(self, catalog: Any = None):
        self.catalog = catalog

    # Tool declares `description` a class attribute; here it is read when the request is built (plugins'
    # agents are in by then). Nothing assigns it, so the read-only property is safe where mypy sees a clash.
    @property
    def description(self) -> str:  # type: ignore[override]
        agents = self.catalog.by_name.values() if self.catalog is not None else []
        listing = "\n".join(f"- {d.name}: {d.description} (Tools: {_tools_note(d)})" for d in agents)
        return AGENT_DESCRIPTION.format(agents=listing or "- general-purpose")

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await _runner(ctx).start(input, ctx)

    def summary(self, input: Any) -> str:
        return f"Agent({input.get('description', '')})"


def _tools_note(definition: Any) -> str:
    """Which tools an agent gets, as the listing tells the model (Claude Code's `(Tools: ...)`)."""
    tools = ", ".join(definition.tools or []) or "All tools"
    if definition.disallowed_tools:
        tools += " except " + ", ".join(definition.disallowed_tools)
    return tools


class SendMessageTool(SchemaTool):
    name: ClassVar[str] = "SendMessage"
    kind: ClassVar[ToolKind] = "other"
    description: ClassVar[str] = (
        "Send a message to a sub-agent you started, by its id or name. A running agent reads it before its "
        "next step; a finished agent resumes with its whole history and answers. In a session the Yoke host "
        "runs, `to` may also name another of the user's sessions there (ListAgents lists them): it reads "
        "the message when its current turn ends, or sooner as `priority` says."
    )
    read_only: ClassVar[bool] = True
    timeout_s: ClassVar[float | None] = 24 * 3600.0
    schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "to": {"type": "string", "description": "The agent's id or name"},
            "summary": {
                "type": "string",
                "maxLength": 200,
                "description": "A short label for your own record",
            },
            "message": {"type": "string", "description": "What to tell it"},
            "notify_when_idle": {"type": "boolean", "description": "Not available here: leave unset"},
            "priority": {
                "type": "string",
                "enum": ["now", "next", "later"],
                "description": "To another session on the host: `later` (default) waits for its turn to "
                "end, `next` joins its running turn, `now` interrupts that turn",
            },
        },
        "required": ["to", "message"],
        "additionalProperties": False,
    }  # 2.1.332's fields (tests/scheduling/cc_2_1_332_tools.json), and Yoke's optional `priority`

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if input.get("notify_when_idle"):  # it subscribes to another session's idleness: no such reach here
            raise ToolError("notify_when_idle is not available in Yoke.")
        link = ctx.session.services.host_link
        runner = ctx.session.services.agents
        if link is not None and (runner is None or input["to"] not in runner.agents):
            return await _to_session(link, input)  # another of the host's sessions
        return await _runner(ctx).send(input["to"], input["message"], ctx)


_WHEN = {
    "later": "it reads it when its current turn ends",
    "next": "it reads it before its next model request",
    "now": "its running turn was interrupted to read it",
}


async def _to_session(link: Any, input: dict[str, Any]) -> ToolResult:
    """A message to another session on the host (host/messages.py): queued there, read at its next turn."""
    request = {"action": "send_message", "to": input["to"], "message": input["message"]}
    request |= {key: input[key] for key in ("summary", "priority") if input.get(key)}
    try:
        reply = await link(request)
    except (RuntimeError, TimeoutError) as exc:
        raise ToolError(str(exc)) from None
    said = (
        f"Message held for a person's approval before session {reply.get('id')} reads it."
        if reply.get("held")
        else f"Message delivered to session {reply.get('id')}; {_WHEN[input.get('priority') or 'later']}."
    )
    return ToolResult(
        said,
        data={"success": True, "to": reply.get("id"), "message_id": reply.get("message_id")},
    )


async def _host_sessions(link: Any) -> list[dict[str, Any]]:
    try:
        reply = await link({"action": "list_agents"})
    except (RuntimeError, TimeoutError):
        return []
    return [s for s in reply.get("sessions") or [] if isinstance(s, dict)]


class ListAgentsTool(SchemaTool):
    """The agents this session can reach with SendMessage: the sub-agents it started, by name or id."""

    name: ClassVar[str] = "ListAgents"
    kind: ClassVar[ToolKind] = "read"
    description: ClassVar[str] = (
        "List the sub-agents you started in this session that SendMessage can reach: one line each with the "
        "address to use (its name, else its id), its type and whether it is still running. In a session the "
        "Yoke host runs, the user's other sessions there too (id, name, folder, state). Pass the exact "
        "address to SendMessage's `to`."
    )
    read_only: ClassVar[bool] = True
    concurrency_safe: ClassVar[bool] = True
    schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "channel": {
                "type": "string",
                "maxLength": 256,
                "description": "Not available here: leave unset.",
            },
            "q": {"type": "string", "maxLength": 256, "description": "Not available here: leave unset."},
            "cursor": {
                "type": "string",
                "maxLength": 256,
                "description": "Unused: the whole list fits on one page.",
            },
        },
        "additionalProperties": False,
    }

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        runner = ctx.session.services.agents
        if runner is None and ctx.session.services.host_link is None:
            raise ToolError("Sub-agents are not available in this session.")
        agents = list({id(a): a for a in runner.agents.values()}.values()) if runner is not None else []
        rows = []
        for agent in agents:
            state = "running" if agent.running else ("finished" if agent.result is not None else "idle")
            address = agent.name or agent.id
            extra = f", id {agent.id}" if agent.name else ""
            rows.append(f"{address} ({agent.definition.name}{extra}, {state})")
        data = [{"name": a.name, "id": a.id, "type": a.definition.name, "running": a.running} for a in agents]
        link = ctx.session.services.host_link
        if link is not None:  # hosted: the user's other sessions on the host too
            sessions = await _host_sessions(link)
            rows += [
                f"{s['id']} (session {s.get('name')!r} in {s.get('cwd')}, {s.get('state')})" for s in sessions
            ]
            data += [{"type": "session", **s} for s in sessions]
        if not rows:
            return ToolResult("No sub-agents yet: start one with the Agent tool.", data={"agents": []})
        return ToolResult("\n".join(rows), data={"agents": data})
