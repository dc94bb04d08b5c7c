"""The permission seams: the gate the loop calls before each tool, and the asker a front-end provides.

The gate decides allow / deny / ask for one call. When it says ask, the executor puts the question to the
front-end's `Asker`; a headless run with nobody to ask gets `NoAsker`, which denies (the denial is listed
in the result's `permission_denials`). The real gate is
`permissions/pipeline.py`'s; tests use `yoke.testing.gates.SimpleGate`.
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
