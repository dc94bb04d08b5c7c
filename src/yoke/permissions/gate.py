"""The permission seams: the gate the loop calls before each tool, and the asker a front-end provides.

The gate decides allow / deny / ask for one call. When it says ask, the executor puts the question to the
front-end's `Asker`; a headless run with nobody to ask gets `NoAsker`, which denies (the denial is listed
in the result's `permission_denials`). The permissions issue replaces `SimpleGate` with the full pipeline.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal, Protocol

from yoke.records import dataclass
from yoke.tools.base import Tool, ToolContext

Behavior = Literal["allow", "deny", "ask"]
MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions")


@dataclass(slots=True, frozen=True)
class Decision:
    behavior: Behavior
    reason: str = ""  # shown to the model on deny, to the user on ask
    source: str = ""  # the rule or stage that decided, recorded in the transcript
    updated_input: dict[str, Any] | None = None  # an approver may rewrite the input
    # how the allowed call must run (sandbox.confine.Confinement), when a fast path allowed it; None: as is
    confinement: Any = None


@dataclass(slots=True, frozen=True)
class PermissionQuestion:
    tool_name: str
    input: dict[str, Any]
    tool_use_id: str
    reason: str = ""
    suggestions: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True, frozen=True)
class Answer:
    behavior: Literal["allow", "deny"]
    message: str = ""  # deny: told to the model
    updated_input: dict[str, Any] | None = None
    remember: bool = False  # allow for the rest of the session
    interrupt: bool = False  # deny and stop the turn
    mode: str | None = None  # an approved plan: the permission mode to continue in (default otherwise)


class Gate(Protocol):
    async def decide(
        self, tool: Tool, input: dict[str, Any], ctx: ToolContext, hook: Decision | None = None
    ) -> Decision: ...


class Asker(Protocol):
    """The front-end's side of every question the core puts to a person."""

    async def ask(self, question: PermissionQuestion) -> Answer: ...

    async def ask_user(self, questions: list[dict[str, Any]]) -> dict[str, str] | None:
        """AskUserQuestion: returns {question text: chosen label(s), comma-joined}, or None if nobody is there."""
        ...

    async def approve_plan(self, plan: str) -> Answer | None:
        """ExitPlanMode: the user's verdict on a plan, or None if nobody is there."""
        ...


class NoAsker:
    """Headless with nobody to ask: permission questions are answered no, other questions go unanswered."""

    async def ask(self, question: PermissionQuestion) -> Answer:
        return Answer("deny", f"Permission to use {question.tool_name} was not granted (no one to ask).")

    async def ask_user(self, questions: list[dict[str, Any]]) -> dict[str, str] | None:
        return None

    async def approve_plan(self, plan: str) -> Answer | None:
        return None


def _rule_tool_name(rule: str) -> str:
    return rule.split("(", 1)[0].strip()


class SimpleGate:
    """A minimal gate: deny rules by tool name, allow rules by tool name (or any `Tool(...)` rule, taken
    conservatively as ask), read-only tools allowed, `acceptEdits` allows edits, `bypassPermissions` allows all,
    `dontAsk` turns asks into denials, `plan` denies non-read-only tools. Everything else asks."""

    EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})

    def __init__(self, mode: str = "default", allow: list[str] | None = None, deny: list[str] | None = None):
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
