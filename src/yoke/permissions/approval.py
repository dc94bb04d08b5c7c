"""The approval stages of the gate, after deny rules, modes, ask rules and safety checks: allow rules and
the session's answers, the read-only fast path, acceptEdits, and the sandbox's auto-allow; and the path
verdicts they rest on (inside the working directories, secret, covered by a path rule).

Kept apart from the order of stages (`pipeline.py`); `PermissionGate` inherits these methods.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from yoke.paths import ResolvedPath, is_inside, is_secret, real_dirs
from yoke.permissions.gate import Decision
from yoke.permissions.matching import SHELL_TOOLS, CallFacts, path_family
from yoke.permissions.patterns import bash_matches, path_matches, path_pattern
from yoke.permissions.rules import PermissionRule
from yoke.permissions.sandbox_exclusions import command_excluded
from yoke.sandbox.confine import DENY_ONLY, READ_ONLY, WORKDIRS, Confinement
from yoke.sandbox.settings import SandboxSettings

if TYPE_CHECKING:
    from yoke.permissions.bash_analysis import BashAnalysis, Invocation
    from yoke.permissions.matching import RuleMatcher

# Modes in which edits inside the working directories need no question: auto mode starts from acceptEdits'
# baseline and asks its classifier only about the rest, as 2.1.330 does (a Write in the project ran with no
# classifier request, tests/cli/cc_2_1_330/auto_mode_risky.json).
EDITS_ALLOWED = frozenset({"acceptEdits", "auto"})
# The approvals that come with a confinement (the fast paths), and what a rule-approved part needs
FAST_PATHS = frozenset({"read-only", *(f"mode:{m}" for m in EDITS_ALLOWED)})
_NEEDS_READ, _NEEDS_WORKDIRS, _NEEDS_ALL = 0, 1, 2
# Bash builtins that run no program and write nothing but their output (redirects are judged apart): no
# misjudged program hides behind them, so beside a rule-approved command they ask for no confinement.
NO_PROGRAM = frozenset({"cd", "echo", "printf", "true", "false", ":", "pwd", "test", "["})
# Harness tools that need no permission: they only talk to the user or manage the session's own state.
SAFE_TOOLS = frozenset(
    [
        "Agent",
        "Task",
        "TodoWrite",
        "TaskCreate",
        "TaskGet",
        "TaskList",
        "TaskUpdate",
        "TaskOutput",
        "BashOutput",
        "TaskStop",
        "KillShell",
        "ExitPlanMode",
        "EnterPlanMode",
        "AskUserQuestion",
        # the session's own schedule (2.1.332 ran CronCreate/CronList in -p default mode, no question); what a
        # schedule submits runs later under the session's mode
        "CronCreate",
        "CronDelete",
        "CronList",
        "ScheduleWakeup",
        "PushNotification",  # read-only in 2.1.332, no permission asked; it tells the user, nothing else
    ]
)
NO_FAST_PATH = frozenset({"WebFetch", "WebSearch"})  # read-only, but they reach the network


class Approval:
    # what these methods use of `PermissionGate` (pipeline.py), which inherits them
    cwd: Path
    home: Path
    working_dirs: list[Path]
    allow: list[PermissionRule]
    session_rules: list[PermissionRule]
    sandbox: SandboxSettings
    matcher: RuleMatcher

    if TYPE_CHECKING:

        @property
        def mode(self) -> str: ...

    def _session_allows_path(self, path: ResolvedPath) -> bool:
        """A protected path the user approved earlier in this session ("allow for this session")."""
        return self._path_allow_rule("edit", [path], self.session_rules) is not None

    # ---- approval stages --------------------------------------------------------------------------------

    def _approve(self, facts: CallFacts) -> Decision | None:
        if facts.kind == "bash":
            return self._approve_bash(facts)
        rule = self._allow_rule(facts)
        if rule is not None:
            return Decision("allow", source=_rule_source(rule))
        if facts.kind == "read":
            if facts.paths is not None and all(self._read_in_bounds(p) for p in facts.paths):
                return Decision("allow", source="read-only")
            return None
        if facts.kind == "edit":
            if self.mode in EDITS_ALLOWED and facts.paths and all(self._inside(p) for p in facts.paths):
                return Decision("allow", source=f"mode:{self.mode}")
            return None
        if facts.names & SAFE_TOOLS:
            return Decision("allow", source="safe-tool")
        if (
            facts.read_only
            and not facts.names & NO_FAST_PATH
            and not any(n.startswith("mcp__") for n in facts.names)
        ):
            return Decision("allow", source="read-only")
        return None

    def _allow_rule(self, facts: CallFacts) -> PermissionRule | None:
        rules = [*self.allow, *self.session_rules]
        for rule in rules:
            if facts.kind == "edit" and rule.whole_tool and rule.tool == "Edit":
                return rule  # a bare Edit rule covers every file-editing tool
            if path_family(rule) is None and self.matcher.matches(rule, facts):
                return rule
        if facts.kind in ("read", "edit") and facts.paths:
            return self._path_allow_rule(facts.kind, facts.paths, rules)
        return None

    def _path_allow_rule(
        self, family: str, paths: list[ResolvedPath], rules: list[PermissionRule]
    ) -> PermissionRule | None:
        """Path allow rules must cover each path both as written and where it really is (a symlink and its
        target), possibly by two different rules; returns the first rule used."""
        compiled = [(r, path_pattern(r, self.cwd, self.home)) for r in rules if path_family(r) == family]
        first: PermissionRule | None = None
        for path in paths:
            for form in dict.fromkeys((path.logical, path.real)):
                hit = next((r for r, pat in compiled if pat is not None and path_matches(pat, form)), None)
                if hit is None:
                    return None
                first = first or hit
        return first

    def _approve_bash(self, facts: CallFacts) -> Decision | None:
        from yoke.permissions.bash_analysis import (
            candidate_cwds,
            edits_are_stable,
            fast_path_applies,
            paths_of,
        )

        analysis = facts.bash
        assert analysis is not None and facts.shell_cwd is not None
        if not analysis.analysable:
            return None
        cwds = candidate_cwds(analysis, facts.shell_cwd, self.home)
        shells = facts.names & SHELL_TOOLS  # Bash's rules approve Monitor's command; Monitor's never Bash's
        whole = next(
            (r for r in [*self.allow, *self.session_rules] if r.tool in shells and r.whole_tool), None
        )
        sources: list[str] = []
        needs: list[int] = []  # what each rule-approved part needs to run: _NEEDS_* below
        confining: list[str] = []  # the fast paths' approvals that bind the line (builtins' do not)
        for inv in analysis.invocations:
            literal, edits = fast_path_applies(inv, analysis), edits_are_stable(analysis)
            source = (
                _rule_source(whole)
                if whole is not None
                else self._approve_invocation(inv, cwds, literal, edits, shells)
            )
            if source is None:
                return self._sandbox_auto_allow(facts)
            sources.append(source)
            if source not in FAST_PATHS:
                needs.append(self._needs(inv, cwds))
            elif not (source == "read-only" and inv.words and inv.words[0].text in NO_PROGRAM):
                confining.append(source)
        for word in analysis.write_redirects:
            paths = paths_of([word], cwds, self.home)
            if paths is None or not all(self._write_approved(p) for p in paths):
                return self._sandbox_auto_allow(facts)
            sources.append(f"mode:{self.mode}" if self.mode in EDITS_ALLOWED else "allow:Edit")
            if self.mode in EDITS_ALLOWED:
                confining.append(sources[-1])
            else:
                needs.append(_NEEDS_WORKDIRS if all(self._inside(p) for p in paths) else _NEEDS_ALL)
        for word in analysis.read_redirects:
            paths = paths_of([word], cwds, self.home)
            if paths is None or not all(self._read_approved(p) for p in paths):
                return self._sandbox_auto_allow(facts)
        unique = list(dict.fromkeys(sources)) or ["read-only"]
        # With rule-approved parts, only the parts that run a program the analyser judged bind the line
        # (`cd dir && npm test` runs as the rule says); without, every part does (as before).
        confinement = self._confinement(confining if needs else unique, max(needs, default=_NEEDS_READ))
        if confinement is not None and needs and max(needs) == _NEEDS_ALL:
            # A mixed line is never unconfined: a rule-approved part that needs more than a confinement
            # gives (the network, writes elsewhere, or what the analyser cannot tell) would break, so ask.
            return self._sandbox_auto_allow(facts)
        if confinement is not None and confinement.kind == WORKDIRS:
            confinement = confinement.replace(open_dirs=self._worktree_dirs(analysis, cwds))
        return Decision("allow", source=",".join(unique), confinement=confinement)

    def _worktree_dirs(self, analysis: BashAnalysis, cwds: list[str] | None) -> tuple[str, ...]:
        """`<working dir>/.claude/worktrees` when an approved edit writes below it (`mkdir -p
        .claude/worktrees/x`): not protected, so the kernel's pin on `.claude` must leave it writable."""
        from yoke.permissions.bash_analysis import paths_of

        out: list[str] = []
        for inv in analysis.invocations:
            for path in (paths_of(inv.writes, cwds, self.home) or []) if inv.fs_edit else []:
                for wd in real_dirs(self.working_dirs):
                    folder = os.path.join(wd, ".claude", "worktrees")
                    if path.real.startswith(folder + "/") and folder not in out:
                        out.append(folder)
        return tuple(out)

    def _needs(self, inv: Invocation, cwds: list[str] | None) -> int:
        """The least confinement a rule-approved command runs under unharmed, as far as the analyser can
        show: reading only, writing only inside the working directories, or anything (unknown)."""
        from yoke.permissions.bash_analysis import paths_of

        if inv.read_only.read_only:
            return _NEEDS_READ
        if inv.fs_edit:
            writes = paths_of(inv.writes, cwds, self.home)
            if writes and all(self._inside(p) for p in writes):
                return _NEEDS_WORKDIRS
        return _NEEDS_ALL

    def _confinement(self, sources: list[str], rule_needs: int = _NEEDS_READ) -> Confinement | None:
        """A line any fast path allowed runs confined: read-only, or writing only the working directories
        (acceptEdits' and auto mode's edits alike), the tightest under which its rule-approved parts
        (`rule_needs`) still run. Only a line that rules or a person allowed in every part runs as the
        rule says."""
        fast = [s for s in sources if s in FAST_PATHS]
        if not fast:
            return None
        edits = set(fast) != {"read-only"} or rule_needs >= _NEEDS_WORKDIRS
        kind = WORKDIRS if edits else READ_ONLY
        git_writes = any(
            r.tool == "Bash" and (r.whole_tool or (r.specifier or "").lstrip().startswith("git"))
            for r in [*self.allow, *self.session_rules]
        )
        return Confinement(kind, git_writes)

    def _approve_invocation(
        self,
        inv: Invocation,
        cwds: list[str] | None,
        literal_line: bool,
        edits_ok: bool = True,
        shells: frozenset[str] | set[str] = frozenset({"Bash"}),
    ) -> str | None:
        """An allow rule, the read-only fast path (only on a line of literals, no functions or aliases),
        or acceptEdits approves one command of the line."""
        from yoke.permissions.bash_analysis import copy_reads, paths_of, read_only_reads

        chdir_ok = not inv.chdir or (
            (dirs := paths_of(inv.chdir, cwds, self.home)) is not None and all(self._inside(p) for p in dirs)
        )
        if inv.allow_text is not None and chdir_ok:
            for rule in [*self.allow, *self.session_rules]:
                if rule.tool not in shells or rule.whole_tool or path_family(rule):
                    continue
                spec = rule.specifier or ""
                if inv.allow_exact_only and "*" in spec:
                    continue
                if bash_matches(spec, inv.allow_text):
                    return _rule_source(rule)
        if inv.read_only.read_only and literal_line:
            reads = read_only_reads(inv, cwds, self.home)
            if reads is not None and all(self._read_approved(p) for p in reads):
                return "read-only"
        if inv.fs_edit and self.mode in EDITS_ALLOWED and edits_ok:
            writes = paths_of(inv.writes, cwds, self.home)
            followed = copy_reads(inv, cwds, self.home)  # `cp -rL`: what links in the copied trees lead to
            followed_ok = followed is not None and all(self._inside(p) for p in followed)
            if writes and followed_ok and all(self._inside(p) and not self._secret(p) for p in writes):
                return f"mode:{self.mode}"
        return None

    def _classifier_confined(self, facts: CallFacts, decision: Decision) -> Decision:
        """A command auto mode's classifier approved (no rule or person did) never runs unconfined: with
        only the working directories writable when the analyser shows each part reads or writes only
        there; otherwise deny-only (what the deny rules and the secret list name hidden or pinned)."""
        if facts.kind != "bash" or decision.confinement is not None:
            return decision
        from yoke.permissions.bash_analysis import candidate_cwds

        analysis = facts.bash
        kind = DENY_ONLY
        if analysis is not None and analysis.analysable and facts.shell_cwd is not None:
            cwds = candidate_cwds(analysis, facts.shell_cwd, self.home)
            # each part an edit inside the working directories (or a builtin that runs no program)
            edits = [i for i in analysis.invocations if not (i.words and i.words[0].text in NO_PROGRAM)]
            inside = all(self._needs(inv, cwds) == _NEEDS_WORKDIRS for inv in edits)
            if edits and inside and not analysis.write_redirects:
                kind = WORKDIRS
        return replace(decision, confinement=Confinement(kind))

    def _sandbox_auto_allow(self, facts: CallFacts) -> Decision | None:
        sandbox = self.sandbox
        if not (sandbox.enabled and sandbox.auto_allow_bash) or self.mode == "plan":
            return None
        if facts.input.get("dangerouslyDisableSandbox") and sandbox.allow_unsandboxed_commands:
            return None
        if command_excluded(facts.command, sandbox):
            return None
        return Decision("allow", source="sandbox:auto-allow")

    def excluded_from_sandbox(self, command: str) -> bool:
        """Whether this Bash command line is one of `sandbox.excludedCommands` (runs outside the sandbox)."""
        return command_excluded(command, self.sandbox)

    # ---- path verdicts ----------------------------------------------------------------------------------

    def _inside(self, path: ResolvedPath) -> bool:
        """Where the bytes are decides: a link inside pointing out is outside (and vice versa)."""
        return is_inside(path.real, real_dirs(self.working_dirs))

    def _secret(self, path: ResolvedPath) -> bool:
        return is_secret(path.real, self.home) or is_secret(path.logical, self.home)

    def _read_in_bounds(self, path: ResolvedPath) -> bool:
        return self._inside(path) and not self._secret(path)

    def _read_approved(self, path: ResolvedPath) -> bool:
        return self._read_in_bounds(path) or self._path_rule_allows("read", path)

    def _write_approved(self, path: ResolvedPath) -> bool:
        if self._path_rule_allows("edit", path):
            return True
        return self.mode in EDITS_ALLOWED and self._inside(path)

    def _path_rule_allows(self, family: str, path: ResolvedPath) -> bool:
        rules = [*self.allow, *self.session_rules]
        if family == "edit" and any(r.whole_tool and r.tool == "Edit" for r in rules):
            return True
        return self._path_allow_rule(family, [path], rules) is not None


def _rule_source(rule: PermissionRule) -> str:
    """`allow:<rule>` for configured rules, `session:<rule>` for answers given earlier in the session."""
    return f"{'session' if rule.scope == 'session' else 'allow'}:{rule.text}"
