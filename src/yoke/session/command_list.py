"""The `/name` commands a session offers besides a front-end's built-ins (`Session.slash_commands`): its
skills and custom commands, then its MCP servers' prompts. Kept out of
the engine to keep it short: only front-ends' command lists call it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from yoke.session.engine import Session


async def slash_commands(session: Session) -> list[dict[str, str]]:
    """User-invocable skills and custom commands, then MCP prompts (`mcp__server__prompt`); each with `name`,
    `description`, `argument_hint`, `kind` (skill, command, mcp) and `source`."""
    from yoke.skills.runtime import runtime_of

    rows: list[dict[str, str]] = []
    runtime = runtime_of(session.agent.executor.ctx)
    for skill in runtime.catalog.user_invocable() if runtime is not None else []:
        rows.append(
            {
                "name": skill.name,
                "description": skill.description,
                "argument_hint": skill.argument_hint,
                "kind": skill.kind,
                "source": skill.label or skill.source,
            }
        )
    if session.mcp is not None and hasattr(session.mcp, "prompt_specs"):
        for server, prompt in await session.mcp.prompt_specs():
            names = [a.name for a in getattr(prompt, "arguments", None) or []]
            rows.append(
                {
                    "name": f"mcp__{server}__{prompt.name}",
                    "description": getattr(prompt, "description", "") or "",
                    "argument_hint": " ".join(f"<{n}>" for n in names),
                    "kind": "mcp",
                    "source": f"MCP {server}",
                }
            )
    return rows
