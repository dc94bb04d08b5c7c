"""The gate the loop calls before each tool: it decides allow / deny / ask for one call (`Decision`). The
real one is `permissions/pipeline.py`'s `PermissionGate`; tests use `yoke.testing.gates.SimpleGate`. Here,
in the permissions layer, beside the rules and confinement it names (it was in the bottom layer's seams,
naming them for type checkers only: the one cycle type-only imports made)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from yoke.records import dataclass
from yoke.seams import BASIC_MODES, Behavior

if TYPE_CHECKING:  # counted by .importlinter: each points down from here
    from yoke.permissions.rules import PermissionRule
    from yoke.sandbox.confine import Confinement
    from yoke.tools.base import Tool, ToolContext


@dataclass(slots=True, frozen=True)
class Decision:
    behavior: Behavior
    reason: str = ""  # shown to the model on deny, to the user on ask
    source: str = ""  # the rule or stage that decided, recorded in the transcript
    updated_input: dict[str, Any] | None = None  # an approver may rewrite the input
    # how the allowed call must run, when a fast path allowed it; None: as is
    confinement: Confinement | None = None


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
