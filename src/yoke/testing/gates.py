"""`SimpleGate`: a small gate for tests that need the loop without the permission pipeline."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yoke.permissions.gate import Decision, GateDefaults
from yoke.tools.base import Tool, ToolContext


def _rule_tool_name(rule: str) -> str:
    return rule.split("(", 1)[0].strip()


class SimpleGate(GateDefaults):
    """A minimal gate: deny rules by tool name, allow rules by tool name (or any `Tool(...)` rule, taken
    conservatively as ask), read-only tools allowed, `acceptEdits` allows edits, `bypassPermissions` allows all,
    `dontAsk` turns asks into denials, `plan` denies non-read-only tools. Everything else asks."""

    EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})

    def __init__(self, mode: str = "default", allow: list[str] | None = None, deny: list[str] | None = None):
        super().__init__()
        self.mode = mode
        self.allow = list(allow or [])
        self.deny = list(deny or [])
        self.session_allowed: set[str] = set()

    def _names(self, tool: Tool) -> set[str]:
        return {tool.name, *tool.aliases}

    async def decide(
        self, tool: Tool, input: dict[str, Any], ctx: ToolContext, hook: Decision | None = None
    ) -> Decision:
        if hook is not None and hook.behavior in ("allow", "deny"):
            return hook
        names = self._names(tool)
        for rule in self.deny:
            if rule in names or (_rule_tool_name(rule) in names and "(" not in rule):
                return Decision("deny", f"{tool.name} is denied by the rule {rule!r}.", f"deny:{rule}")
        if self.mode == "bypassPermissions":
            return Decision("allow", source="mode:bypassPermissions")
        read_only = tool.is_read_only(input)
        if self.mode == "plan" and not read_only:
            return Decision("deny", "Plan mode: only read-only tools may run.", "mode:plan")
        for rule in self.allow:
            if rule in names:
                return Decision("allow", source=f"allow:{rule}")
        if names & self.session_allowed:
            return Decision("allow", source="session")
        if read_only:
            return Decision("allow", source="read-only")
        if self.mode == "acceptEdits" and tool.name in self.EDIT_TOOLS:
            return Decision("allow", source="mode:acceptEdits")
        if self.mode == "dontAsk":
            return Decision("deny", f"{tool.name} is not pre-approved (dontAsk mode).", "mode:dontAsk")
        return Decision("ask", f"{tool.name} needs approval.", "default")

    def remember(self, tool: Tool, input: dict[str, Any] | None = None, scope: str = "session") -> None:
        self.session_allowed.add(tool.name)


if TYPE_CHECKING:
    from yoke.permissions.gate import Gate

    def _is_a_gate(gate: SimpleGate) -> Gate:  # mypy (make lint) holds SimpleGate to the Gate protocol
        return gate
