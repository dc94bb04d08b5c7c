"""The seam below every layer: the asker a front-end provides, and the permission modes' names.

Here, in the bottom layer, so that tools (`ToolContext.asker`), the loop, the permission pipeline and the
front-ends share one contract without importing each other. When the gate (`permissions/gate.py`) says ask,
the executor puts the question to the front-end's `Asker`; a headless run with nobody to ask gets `NoAsker`,
which denies (the denial is listed in the result's `permission_denials`).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal, Protocol

from yoke.records import dataclass

Behavior = Literal["allow", "deny", "ask"]
MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions")


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


BASIC_MODES = ["default", "acceptEdits", "plan", "dontAsk"]  # the modes every gate may switch into


class Asker(Protocol):
    """The front-end's side of every question the core puts to a person."""

    async def ask(self, question: PermissionQuestion) -> Answer: ...

    async def ask_user(
        self, questions: list[dict[str, Any]], tool_use_id: str = ""
    ) -> dict[str, str] | Answer | None:
        """AskUserQuestion: returns {question text: chosen label(s), comma-joined}, a deny `Answer` when the
        user refused the questions (its message goes to the model), or None if nobody is there."""
        ...

    async def approve_plan(self, plan: str, tool_use_id: str = "") -> Answer | None:
        """ExitPlanMode: the user's verdict on a plan, or None if nobody is there."""
        ...


def answers_given(answer: Answer) -> dict[str, str] | Answer:
    """AskUserQuestion's answers from the client's `can_use_tool` answer, as the Agent SDK gives them: allowed
    with `updatedInput.answers` ({question: label, or labels}); allowed without them, nothing answered; a
    denial stays a denial (its message goes to the model)."""
    if answer.behavior != "allow":
        return answer
    answers = (answer.updated_input or {}).get("answers")
    if not isinstance(answers, dict):
        return {}
    return {str(q): ", ".join(map(str, a)) if isinstance(a, list) else str(a) for q, a in answers.items()}


def plan_mode_choice(updates: list[Any]) -> tuple[str | None, list[Any]]:
    """An approved plan's permission updates: the mode a `setMode` among them chooses to go on in (the plan
    tool leaves plan mode for it), and the other updates, applied as any answer's."""
    modes = [u.get("mode") for u in updates if isinstance(u, dict) and u.get("type") == "setMode"]
    rest = [u for u in updates if not (isinstance(u, dict) and u.get("type") == "setMode")]
    return (modes[-1] if modes and isinstance(modes[-1], str) else None), rest


class NoAsker:
    """Headless with nobody to ask: permission questions are answered no, other questions go unanswered."""

    async def ask(self, question: PermissionQuestion) -> Answer:
        return Answer("deny", f"Permission to use {question.tool_name} was not granted (no one to ask).")

    async def ask_user(
        self, questions: list[dict[str, Any]], tool_use_id: str = ""
    ) -> dict[str, str] | Answer | None:
        return None

    async def approve_plan(self, plan: str, tool_use_id: str = "") -> Answer | None:
        return None
