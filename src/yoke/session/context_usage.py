"""How full a session's context window is: the measure behind `/context` and the stream-json
`get_context_usage` answer (`Session.context_measure`, `Session.context_usage`). Apart from the engine: only
those two requests need it, and it imports the context package's accounting."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yoke.session.engine import Session


def context_measure(session: Session) -> Any:
    """The `yoke.context.inspect.ContextUsage` of the system prompt and tool definitions as they are sent, and
    the conversation."""
    from yoke.context.inspect import measure
    from yoke.memory import MemoryIndex

    env = session.agent.executor.ctx.env or {}
    specs = [
        {"name": s.name, "description": s.description, "input_schema": s.input_schema}
        for s in session.agent.executor.registry.specs()
    ]
    home = Path(env["HOME"]) if env.get("HOME") else None
    memory = MemoryIndex(session.cwd, home=home, env=env).files
    return measure(session.model, env, session.agent.system, specs, session.agent.messages, memory)


def context_usage(session: Session) -> dict[str, Any]:
    """The measure as Claude Code's `get_context_usage` answer, by category."""
    usage = context_measure(session)
    window = usage.window
    categories = [
        {"name": "System prompt", "tokens": usage.system, "color": "promptBorder"},
        {"name": "System tools", "tokens": usage.tools, "color": "inactive"},
        {"name": "Messages", "tokens": usage.messages, "color": "purple"},
        {"name": "Free space", "tokens": max(0, window - usage.used), "color": "promptBorder"},
    ]
    return {
        "categories": categories,
        "totalTokens": usage.used,
        "maxTokens": window,
        "rawMaxTokens": window,
        "percentage": round(100 * usage.used / window, 1) if window else 0.0,
        "model": session.model,
        "isAutoCompactEnabled": session.agent.keeper is not None,
        "memoryFiles": [
            {"path": path, "type": label, "tokens": tokens} for tokens, path, label in usage.memory
        ],
        "mcpTools": [],
        "agents": [],
        "gridRows": [],
    }
