"""The permission gate: one decision (allow / deny / ask) per tool call, and the record of who made it.

Order, as in Claude Code: PreToolUse hooks' verdict (announced by the executor) → deny rules → plan blocks
changes → what a deny rule names as a capability, and the read block (`capabilities.py`; these ask in every
mode) → bypassPermissions allows what is left → ask rules → safety checks (protected paths, critical
`rm` targets) → a hook's allow → allow rules and session answers → the read-only fast path → acceptEdits →
the sandbox's auto-allow → an optional classifier with a deadline → ask (denied in dontAsk mode). A
decision's `source` names the rule or stage, e.g. `deny:Bash(rm *)`, `mode:plan`, `read-only`.
The approval stages (allow rules to the sandbox's auto-allow) are `approval.py`'s; what follows an ask
(suggestions, remembered answers, permission updates) is `gate_actions.py`'s.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.paths import (
    ResolvedPath,
    is_critical,
    is_protected,
    real_dirs,
    remember_judged,
)
from yoke.permissions.approval import Approval
from yoke.permissions.gate import Decision
from yoke.permissions.gate_actions import GateActions
from yoke.permissions.matching import CallFacts, RuleMatcher, call_facts, canonical_input
from yoke.permissions.rules import PermissionRule
from yoke.sandbox.settings import SandboxSettings
from yoke.seams import BASIC_MODES, MODES
from yoke.tools.base import Tool, ToolContext

ClassifierFn = Callable[[Tool, dict[str, Any], ToolContext], Awaitable[Decision | None]]
MODE_ALIASES = {"manual": "default"}
USER_INTERACTION_TOOLS = frozenset({"AskUserQuestion"})


class PermissionModeError(ValueError):
    """A mode that does not exist or is not available; the message is one line for the user."""


class PermissionGate(Approval, GateActions):
    def __init__(
        self,
        *,
        cwd: Path,
        home: Path,
        mode: str,
        working_dirs: list[Path],
        deny: list[PermissionRule],
        ask: list[PermissionRule],
        allow: list[PermissionRule],
        sandbox: SandboxSettings | None = None,
        local_settings_path: Path | None = None,
        bypass_available: bool = False,
        bypass_disabled: bool = False,
        warnings: list[str] | None = None,
        classifier: ClassifierFn | None = None,
        classifier_deadline_s: float = 2.0,
        classifier_mode: str | None = None,
        mode_listeners: list[Callable[[PermissionGate], None]] | None = None,
    ) -> None:
        self.cwd = Path(os.path.realpath(cwd))
        self.home = home
        self.working_dirs = [self.cwd, *[Path(os.path.realpath(d)) for d in working_dirs if d != cwd]]
        self.deny, self.ask, self.allow = list(deny), list(ask), list(allow)
        self.session_rules: list[PermissionRule] = []
        self.sandbox = sandbox or SandboxSettings(base_dir=self.cwd)
        self.local_settings_path = local_settings_path or self.cwd / ".claude" / "settings.local.json"
        self.bypass_disabled = bypass_disabled
        self.bypass_available = bypass_available or mode == "bypassPermissions"
        self.warnings = list(warnings or [])
        self.classifier = classifier
        self.classifier_deadline_s = classifier_deadline_s
        self.classifier_mode = classifier_mode  # the mode the classifier decides in (None: every mode)
        # settings (permissions/build.py): file-tool writes outside the working directories refused in every
        # mode; a call that would ask is denied at once, after rules, modes and PermissionRequest hooks
        self.block_outside_writes = False
        self.block_outside_reads = False  # --restricted: the file tools stay inside the working directories
        # permissions.blockReadsOutsideWorkingDirectories: also a Bash line naming a path outside them asks
        self.block_bash_outside_reads = False
        self.deny_prompts = False
        self.matcher = RuleMatcher(self.cwd, home)
        self.settings_paths: dict[str, Path] = {"localSettings": self.local_settings_path}
        self.last_ctx: ToolContext | None = None  # the shell's cwd for suggestions made after an ask
        # told each mode this gate enters, the first included (auto mode's rule sync); a copy shares them
        self.mode_listeners: list[Callable[[PermissionGate], None]] = list(mode_listeners or [])
        self._mode = "default"
        self.set_mode(mode)

    # ---- mode ------------------------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        return self._mode

    @mode.setter
    def mode(self, value: str) -> None:
        self.set_mode(value)

    def set_mode(self, mode: str) -> None:
        mode = MODE_ALIASES.get(mode, mode)
        if mode not in MODES:
            raise PermissionModeError(f"unknown permission mode {mode!r} (use {', '.join(MODES)})")
        if mode == "bypassPermissions":
            if self.bypass_disabled:
                raise PermissionModeError(
                    "bypassPermissions mode is disabled by settings (permissions.disableBypassPermissionsMode)"
                )
            if not self.bypass_available:
                raise PermissionModeError(
                    "bypassPermissions mode can only be entered if the session started with it "
                    "(--permission-mode bypassPermissions or --allow-dangerously-skip-permissions)"
                )
        self._mode = mode
        for listener in self.mode_listeners:
            listener(self)

    def available_modes(self) -> list[str]:
        modes = list(BASIC_MODES)
        if self.bypass_available and not self.bypass_disabled:
            modes.append("bypassPermissions")
        if self.classifier is not None:
            modes.append("auto")
        return modes

    def add_working_dir(self, path: Path) -> None:
        real = Path(os.path.realpath(path))
        if real not in self.working_dirs:
            self.working_dirs.append(real)

    # ---- the pipeline ----------------------------------------------------------------------------------

    async def decide(
        self, tool: Tool, input: dict[str, Any], ctx: ToolContext, hook: Decision | None = None
    ) -> Decision:
        """The verdict on one call. `hook` is what PreToolUse listeners answered (the executor announces
        the event): their deny ends it here, their ask and allow take their place in the order below."""
        self.last_ctx = ctx
        if hook is not None and hook.updated_input is not None:
            input = hook.updated_input
        if hook is not None and hook.behavior == "deny":
            return Decision(
                "deny", hook.reason or f"{tool.name} was blocked by a hook.", hook.source or "hook"
            )
        canonical = canonical_input(tool, input)
        changed = canonical != input
        input = canonical
        facts = call_facts(tool, input, ctx, self.home)
        if facts.kind in ("read", "edit") and facts.paths:
            remember_judged(facts.paths)  # the file tools re-check these when they open them
        decision = self.evaluate(facts, hook)
        if decision is None and self.classifier is not None and self.classifier_mode in (None, self.mode):
            decision = await self._classify(tool, input, ctx)
            if decision is not None and decision.behavior == "allow":
                decision = self._classifier_confined(facts, decision)
        if decision is None:
            decision = self._ask_or_deny(facts, "default", self._ask_reason(facts))
        rewritten = changed or (hook is not None and hook.updated_input is not None)
        if rewritten and decision.updated_input is None:
            decision = replace(decision, updated_input=input)  # the tool runs exactly what was judged
        return decision

    def evaluate(self, facts: CallFacts, hook: Decision | None = None) -> Decision | None:
        """Every synchronous stage; None means nothing decided (classifier, then ask)."""
        rule = self._first(self.deny, facts)
        if rule is not None:
            return Decision("deny", self._deny_reason(facts, rule), f"deny:{rule.text}")
        outside = self._blocked_outside(facts)
        if outside:
            return Decision("deny", outside, "setting:outside-working-directories")
        if self.mode == "plan" and not self._plan_allows(facts):
            reason = (
                "Plan mode is on: only read-only tools may run until the plan is approved (ExitPlanMode)."
            )
            return Decision("deny", reason, "mode:plan")
        if self.mode == "dontAsk" and facts.names & USER_INTERACTION_TOOLS:
            return Decision("deny", f"{facts.tool.name} is not available in dontAsk mode.", "mode:dontAsk")
        capability = self._deny_capability(facts)
        if capability:  # whatever would approve it below: a rule, a hook, a mode
            return self._ask_or_deny(facts, "deny-capability", capability)
        outside = self._bash_reads_outside(facts)
        if outside:  # in every mode, bypassPermissions included (Claude Code's read block)
            return self._ask_or_deny(facts, "setting:blockReadsOutsideWorkingDirectories", outside)
        rule = self._first(self.ask, facts)
        if rule is not None:
            return self._ask_or_deny(
                facts, f"ask-rule:{rule.text}", f"The rule {rule.text} requires approval."
            )
        if hook is not None and hook.behavior == "ask":
            return self._ask_or_deny(
                facts, hook.source or "hook", hook.reason or "A hook asked for approval."
            )
        if self.mode == "bypassPermissions":
            critical = self._critical_rm(facts)
            if critical:
                return self._ask_or_deny(facts, "critical-path", critical)
            return Decision("allow", source="mode:bypassPermissions")
        safety = self._safety(facts)
        if safety is not None:
            return self._ask_or_deny(facts, *safety)
        if hook is not None and hook.behavior == "allow":
            return Decision("allow", hook.reason, hook.source or "hook")
        return self._approve(facts)

    async def _classify(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> Decision | None:
        assert self.classifier is not None
        try:
            async with asyncio.timeout(self.classifier_deadline_s):  # not wait_for: see loop/executor.py
                verdict = await self.classifier(tool, input, ctx)
        except TimeoutError:
            return None
        if verdict is not None and verdict.behavior in ("allow", "deny"):
            return replace(verdict, source=verdict.source or "classifier")
        return None

    def _blocked_outside(self, facts: CallFacts) -> str:
        """Why a file tool may not touch a path outside the working directories ("" when it may): writes
        under blockWritesOutsideWorkingDirectories, reads and writes under --restricted. No allow rule or mode
        lifts it; what the session itself granted (its memory folder) stays open."""
        blocked = {
            "edit": self.block_outside_writes or self.block_outside_reads,
            "read": self.block_outside_reads,
        }
        if not blocked.get(facts.kind) or facts.paths is None:
            return ""
        why = "--restricted" if self.block_outside_reads else "blockWritesOutsideWorkingDirectories"
        for path in facts.paths:
            if not self._inside(path) and not self._session_allows_path(path):
                return f"{facts.tool.name} may not use {path.logical}: it is outside the working directories ({why})."
        return ""

    def _deny_capability(self, facts: CallFacts) -> str:
        """Why a Bash line asks because the analyser cannot show it lacks what a deny rule names (deleting
        under `Bash(rm:*)`, reading under `Read(./.env)`; `capabilities.py`); "" when it need not."""
        if facts.kind != "bash" or facts.bash is None or not self.deny:
            return ""
        from yoke.permissions.bash_analysis import candidate_cwds
        from yoke.permissions.capabilities import capability_question

        assert facts.shell_cwd is not None
        cwds = candidate_cwds(facts.bash, facts.shell_cwd, self.home)
        return capability_question(facts.bash, self.deny, self.sandbox.read_denied, cwds, self.home)

    def _bash_reads_outside(self, facts: CallFacts) -> str:
        """Why a Bash line asks under blockReadsOutsideWorkingDirectories ("" when it need not): a word that
        names a path outside the working directories, or a line the analyser cannot follow."""
        if not self.block_bash_outside_reads or facts.kind != "bash" or facts.bash is None:
            return ""
        from yoke.permissions.bash_analysis import candidate_cwds, path_word, paths_of

        why = " (permissions.blockReadsOutsideWorkingDirectories)"
        if not facts.bash.analysable:
            return "This command cannot be analysed, so it cannot be checked against the read block" + why
        assert facts.shell_cwd is not None
        cwds = candidate_cwds(facts.bash, facts.shell_cwd, self.home)
        reads = self.matcher.bash_paths(facts, "read")
        words = [
            p for inv in facts.bash.invocations for w in inv.words[1:] if (p := path_word(w)) is not None
        ]
        named = paths_of(words, cwds, self.home)
        if reads is None or named is None:
            return "A path of this command is known only when it runs" + why
        for path in [*reads, *named]:
            if not self._inside(path):
                return f"{path.logical} is outside the working directories" + why
        return ""

    def _ask_or_deny(self, facts: CallFacts, source: str, reason: str) -> Decision:
        if self.mode == "dontAsk":
            message = f"{reason} Yoke is in dontAsk mode, which denies anything not pre-approved."
            return Decision("deny", message.strip(), "mode:dontAsk")
        return Decision("ask", reason, source)

    def _first(self, rules: list[PermissionRule], facts: CallFacts) -> PermissionRule | None:
        for rule in rules:
            if self.matcher.matches(rule, facts):
                return rule
        return None

    def _plan_allows(self, facts: CallFacts) -> bool:
        if facts.names & {"ExitPlanMode"}:
            return True
        if facts.kind == "bash":
            assert facts.bash is not None
            return facts.bash.commands_read_only()
        return facts.read_only and facts.kind != "edit"

    # ---- safety: protected paths and critical rm targets ------------------------------------------------

    def _safety(self, facts: CallFacts) -> tuple[str, str] | None:
        critical = self._critical_rm(facts)
        if critical:
            return "critical-path", critical
        written = self._written_paths(facts)
        if written is None:
            return "protected-path", "The command writes to a path only known at run time."
        for path in written:
            if (is_protected(path.logical) or is_protected(path.real)) and not self._session_allows_path(
                path
            ):
                return (
                    "protected-path",
                    f"{path.logical} is a protected path: writing it always needs approval.",
                )
        return None

    def _written_paths(self, facts: CallFacts) -> list[ResolvedPath] | None:
        if facts.kind == "edit":
            return facts.paths
        if facts.kind == "bash":
            return self.matcher.bash_paths(facts, "edit")
        return []

    def _critical_rm(self, facts: CallFacts) -> str:
        if facts.kind != "bash" or facts.bash is None:
            return ""
        from yoke.permissions.bash_analysis import candidate_cwds, removal_targets

        cwds = candidate_cwds(facts.bash, facts.shell_cwd or self.cwd, self.home)
        dirs = real_dirs(self.working_dirs)
        for inv in facts.bash.invocations:
            for word in inv.removes:
                paths = removal_targets(word, cwds, self.home)
                if paths is None:
                    return f"`{inv.text}` removes a path only known at run time."
                for path in paths:
                    if is_critical(path.real, self.cwd, self.home, dirs) or is_critical(
                        path.logical, self.cwd, self.home, dirs
                    ):
                        return f"`{inv.text}` would remove {path.logical}, a critical directory."
        return ""

    # ---- messages ---------------------------------------------------------------------------------------

    def _deny_reason(self, facts: CallFacts, rule: PermissionRule) -> str:
        return f"Permission to use {facts.tool.name} has been denied by the rule {rule.text} ({rule.scope} settings)."

    def _ask_reason(self, facts: CallFacts) -> str:
        name = facts.tool.name
        if facts.kind == "bash" and facts.bash is not None and not facts.bash.analysable:
            detail = "; ".join(facts.bash.problems)
            return f"Yoke requested permissions to use {name}, but you haven't granted it yet ({detail})."
        if facts.kind in ("read", "edit") and facts.paths:
            verb = "write to" if facts.kind == "edit" else "read from"
            where = ", ".join(p.logical for p in facts.paths)
            return f"Yoke requested permissions to {verb} {where}, but you haven't granted it yet."
        return f"Yoke requested permissions to use {name}, but you haven't granted it yet."


class _PathTool(Tool):
    """A stand-in tool used when only a path needs to be checked against path rules."""

    name = "Read"
    description = ""


_PATH_TOOL = _PathTool()


if TYPE_CHECKING:
    from yoke.permissions.gate import Gate

    def _is_a_gate(
        gate: PermissionGate,
    ) -> Gate:  # mypy (make lint) holds PermissionGate to the Gate protocol
        return gate
