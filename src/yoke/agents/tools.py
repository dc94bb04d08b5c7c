"""The Agent tool (legacy name Task) and SendMessage: the model's way to start and talk to sub-agents.
Both hand the work to the session's `AgentRunner` (found in the session state), so tools stay unaware of
how sessions are built."""

from __future__ import annotations

from typing import Any, ClassVar

from yoke.tools.base import ToolContext, ToolError, ToolKind, ToolResult
from yoke.tools.json_schema import SchemaTool

RUNNER_KEY = "agents"

AGENT_DESCRIPTION = """Launch a sub-agent to handle a complex, multi-step task on its own.

Each agent starts with a fresh context: give it everything it needs in `prompt` (the goal, what you know,
what to return). Its final message comes back to you as this tool's result; the user does not see it, so
summarize what matters. Launch several agents in one message when their tasks are independent: they run in
parallel. With `run_in_background` you get an id at once and a notification when the agent finishes.

Available agent types (`subagent_type`):
{agents}"""


def _runner(ctx: ToolContext) -> Any:
    runner = ctx.session.extras.get(RUNNER_KEY)
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
        listing = "\n".join(
            f"- {d.name}: {d.description}" for d in (catalog.by_name.values() if catalog is not None else [])
        )
        self.description = AGENT_DESCRIPTION.format(agents=listing or "- general-purpose")  # type: ignore[misc]

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await _runner(ctx).start(input, ctx)

    def summary(self, input: Any) -> str:
        return f"Agent({input.get('description', '')})"


class SendMessageTool(SchemaTool):
    name: ClassVar[str] = "SendMessage"
    kind: ClassVar[ToolKind] = "other"
    description: ClassVar[str] = (
        "Send a message to a sub-agent you started, by its id or name. A running agent reads it before its "
        "next step; a finished agent resumes with its whole history and answers."
    )
    read_only: ClassVar[bool] = True
    timeout_s: ClassVar[float | None] = 24 * 3600.0
    schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "to": {"type": "string", "description": "The agent's id or name"},
            "message": {"type": "string", "description": "What to tell it"},
        },
        "required": ["to", "message"],
        "additionalProperties": False,
    }

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await _runner(ctx).send(input["to"], input["message"], ctx)
