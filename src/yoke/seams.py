"""The seams below every layer: the gate the loop calls before each tool, and the asker a front-end provides.

Here, in the bottom layer, so that tools (`ToolContext.asker`), the loop, the permission pipeline and the
front-ends share one contract without importing each other (tool types are imported for type checkers only).

The gate decides allow / deny / ask for one call. When it says ask, the executor puts the question to the
front-end's `Asker`; a headless run with nobody to ask gets `NoAsker`, which denies (the denial is listed
in the result's `permission_denials`). The real gate is
`permissions/pipeline.py`'s; tests use `yoke.testing.gates.SimpleGate`.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from yoke.records import dataclass

if TYPE_CHECKING:
    from yoke.permissions.rules import PermissionRule
    from yoke.sandbox.confine import Confinement
    from yoke.tools.base import Tool, ToolContext

Behavior = Literal["allow", "deny", "ask"]
MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions")


@dataclass(slots=True, frozen=True)
class Decision:
    behavior: Behavior
    reason: str = ""  # shown to the model on deny, to the user on ask
    source: str = ""  # the rule or stage that decided, recorded in the transcript
    updated_input: dict[str, Any] | None = None  # an approver may rewrite the input
    # how the allowed call must run, when a fast path allowed it; None: as is
    confinement: Confinement | None = None


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
    """What the loop, the session and the front-ends ask of the gate (`permissions/pipeline.py`
    `PermissionGate` is the real one; `GateDefaults` fills in all but `decide` for simpler gates)."""

    mode: str  # one of MODES
    working_dirs: list[Path]  # the folders edits may reach (the cwd first)
    warnings: list[str]  # what the rules' sources got wrong, for the user
    deny_prompts: bool  # denyInsteadOfPrompting: an ask is answered no, nobody is waited for
    # allow rules the session granted itself (answers, skills' allowed-tools, the memory folder); the
    # session's own: appended and removed by their owners, read by the gate with its configured rules
    session_rules: list[PermissionRule]

    async def decide(
        self, tool: Tool, input: dict[str, Any], ctx: ToolContext, hook: Decision | None = None
    ) -> Decision: ...

    def set_mode(self, mode: str) -> None: ...

    def apply_update(self, update: dict[str, Any]) -> None:
        """A permission update (Claude Code's `PermissionUpdate` shape): rules, mode or directories."""
        ...

    def runs_alongside(self, tool: Tool, input: dict[str, Any]) -> bool:
        """Whether this call, not concurrency-safe in general, is proven safe to run with others."""
        ...

    def suggestions(self, tool: Tool, input: dict[str, Any]) -> list[dict[str, Any]]:
        """Permission updates to offer the user with an ask."""
        ...

    def remember(self, tool: Tool, input: dict[str, Any], scope: str = "session") -> object:
        """Allow calls like this one for the rest of the session (an answer's "don't ask again")."""
        ...

    def available_modes(self) -> list[str]:
        """The modes `set_mode` accepts now: bypassPermissions and auto only when this gate allows them."""
        ...

    def rules_in_force(self) -> dict[str, list[str]]:
        """The rules' texts by behavior: `deny`, `ask`, `allow`, and `session` (the session's own answers)."""
        ...


BASIC_MODES = ["default", "acceptEdits", "plan", "dontAsk"]  # the modes every gate may switch into


class GateDefaults:
    """Everything of `Gate` but `decide`, doing nothing: the base of gates that only decide (tests' gates)."""

    mode: str = "default"
    deny_prompts: bool = False

    def __init__(self) -> None:
        self.working_dirs: list[Path] = []
        self.warnings: list[str] = []
        self.session_rules: list[PermissionRule] = []

    def set_mode(self, mode: str) -> None:
        self.mode = mode

    def apply_update(self, update: dict[str, Any]) -> None:
        return None

    def runs_alongside(self, tool: Tool, input: dict[str, Any]) -> bool:
        return False

    def suggestions(self, tool: Tool, input: dict[str, Any]) -> list[dict[str, Any]]:
        return []

    def remember(self, tool: Tool, input: dict[str, Any] | None = None, scope: str = "session") -> None:
        return None

    def available_modes(self) -> list[str]:
        return list(BASIC_MODES)

    def rules_in_force(self) -> dict[str, list[str]]:
        return {"deny": [], "ask": [], "allow": [], "session": []}


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
