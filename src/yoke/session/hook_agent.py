"""Agent hooks (`"type": "agent"`): a sub-agent with read-only tools checks the hook's condition against the
project itself (reading files, searching) and answers `{"ok": true}` or `{"ok": false, "reason": ...}`, as a
prompt hook's single model call does. It runs quietly (its events are not shown), on the hook's `model` or
the session's, for at most MAX_TURNS turns; the hook's timeout bounds it. A check never starts another
agent hook's check (a hook on its own tool calls would recurse): such a nested hook is skipped."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from yoke import events as ev

TOOLS = ["Read", "Grep", "Glob"]
MAX_TURNS = 50
SYSTEM = (
    "You check one condition for a coding agent's hook, by looking at the project with the read-only tools "
    "you have (Read, Grep, Glob). Investigate only as far as the condition needs. Then end with exactly one "
    'JSON object as your whole final answer: {"ok": true} when the condition holds, or {"ok": false, '
    '"reason": "what is wrong, in one or two sentences"} when it does not.'
)
_CHECKING = contextvars.ContextVar("yoke_agent_hook_checking", default=False)


def agent_hook_model(owner: Callable[[], Any]) -> Any:
    """The hooks listener's `agent_model`: (prompt, model, timeout) -> the sub-agent's final answer.
    `owner` returns the session the hooks belong to (the listener is built before it; RuntimeError then)."""

    async def check(prompt: str, model: str | None, timeout: float) -> str:
        if _CHECKING.get():
            raise RuntimeError("skipped: an agent hook does not run inside another agent hook's check")
        session = owner()
        from yoke.providers.select import resolve_model_alias
        from yoke.session.engine import ChildOptions

        env = session.env
        options = ChildOptions(
            agent_type="hook",
            system_prompt=SYSTEM,
            tools=TOOLS,
            model=resolve_model_alias(session.provider_name, model, env) if model else None,
            max_turns=MAX_TURNS,
        )
        token = _CHECKING.set(True)
        child = await session.child(options, parent_tool_use_id="")
        result = None
        try:
            async for event in child.query(prompt):
                if isinstance(event, ev.Result):
                    result = event
        finally:
            _CHECKING.reset(token)
            await child.close()
            if child in session.children:
                session.children.remove(child)
        if result is None or result.is_error:
            raise RuntimeError(
                f"the checking agent ended without an answer ({getattr(result, 'reason', 'none')})"
            )
        return result.text

    return check
