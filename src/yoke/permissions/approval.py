"""The approval stages of the gate, after deny rules, modes, ask rules and safety checks: allow rules and
the session's answers, the read-only fast path, acceptEdits, and the sandbox's auto-allow; and the path
verdicts they rest on (inside the working directories, secret, covered by a path rule).

Kept apart from the order of stages (`pipeline.py`); `PermissionGate` inherits these methods.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from yoke.paths import ResolvedPath, is_inside, is_secret, real_dirs
from yoke.permissions.gate import Decision
from yoke.permissions.matching import CallFacts, path_family
from yoke.permissions.patterns import bash_matches, path_matches, path_pattern
from yoke.permissions.rules import PermissionRule
from yoke.permissions.sandbox_exclusions import command_excluded
from yoke.sandbox.confine import READ_ONLY, WORKDIRS, Confinement
from yoke.sandbox.settings import SandboxSettings

if TYPE_CHECKING:
    from yoke.permissions.bash_analysis import Invocation
    from yoke.permissions.matching import RuleMatcher

# Modes in which edits inside the working directories need no question: auto mode starts from acceptEdits'
# baseline and asks its classifier only about the rest, as 2.1.330 does (a Write in the project ran with no
# classifier request, tests/cli/cc_2_1_330/auto_mode_risky.json).
EDITS_ALLOWED = frozenset({"acceptEdits", "auto"})
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
        whole = next(
            (r for r in [*self.allow, *self.session_rules] if r.tool == "Bash" and r.whole_tool), None
        )
        sources: list[str] = []
        for inv in analysis.invocations:
            literal, edits = fast_path_applies(inv, analysis), edits_are_stable(analysis)
            source = (
                _rule_source(whole)
                if whole is not None
                else self._approve_invocation(inv, cwds, literal, edits)
            )
            if source is None:
                return self._sandbox_auto_allow(facts)
            sources.append(source)
        for word in analysis.write_redirects:
            paths = paths_of([word], cwds, self.home)
            if paths is None or not all(self._write_approved(p) for p in paths):
                return self._sandbox_auto_allow(facts)
            sources.append(f"mode:{self.mode}" if self.mode in EDITS_ALLOWED else "allow:Edit")
        for word in analysis.read_redirects:
            paths = paths_of([word], cwds, self.home)
            if paths is None or not all(self._read_approved(p) for p in paths):
                return self._sandbox_auto_allow(facts)
        unique = list(dict.fromkeys(sources)) or ["read-only"]
        return Decision("allow", source=",".join(unique), confinement=self._confinement(unique))

    def _confinement(self, sources: list[str]) -> Confinement | None:
        """A line the fast paths alone allowed runs confined to what they judged: read-only, or writing
        only the working directories; a line any rule or person allowed runs as the rule says."""
        if set(sources) == {"read-only"}:
            kind = READ_ONLY
        elif set(sources) <= {"read-only", "mode:acceptEdits"}:
            kind = WORKDIRS
        else:
            return None
        git_writes = any(
            r.tool == "Bash" and (r.whole_tool or (r.specifier or "").lstrip().startswith("git"))
            for r in [*self.allow, *self.session_rules]
        )
        return Confinement(kind, git_writes)

    def _approve_invocation(
        self, inv: Invocation, cwds: list[str] | None, literal_line: bool, edits_ok: bool = True
    ) -> str | None:
        """An allow rule, the read-only fast path (only on a line of literals, no functions or aliases),
        or acceptEdits approves one command of the line."""
        from yoke.permissions.bash_analysis import paths_of, read_only_reads

        chdir_ok = not inv.chdir or (
            (dirs := paths_of(inv.chdir, cwds, self.home)) is not None and all(self._inside(p) for p in dirs)
        )
        if inv.allow_text is not None and chdir_ok:
            for rule in [*self.allow, *self.session_rules]:
                if rule.tool != "Bash" or rule.whole_tool or path_family(rule):
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
            if writes and all(self._inside(p) and not self._secret(p) for p in writes):
                return f"mode:{self.mode}"
        return None

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
