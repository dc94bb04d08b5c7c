"""What happens after an ask: suggested rules, "allow for this session", saved rules, permission updates.

Kept apart from the decision pipeline (`pipeline.py`); `PermissionGate` inherits these methods.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.config.trust import write_json_atomic
from yoke.jsonsafe import loads as safe_json
from yoke.paths import (
    ResolvedPath,
    is_protected,
    is_secret,
    near_secret_places,
    resolve_path,
    secret_looking,
)
from yoke.permissions.matching import SHELL_TOOLS, CallFacts, call_facts, path_family
from yoke.permissions.patterns import tool_name_matches
from yoke.permissions.rules import PermissionRule, RuleSyntaxError, parse_rule
from yoke.permissions.suggest import add_rules_update, bash_rules, web_rule
from yoke.tools.base import SessionState, Tool, ToolContext

if TYPE_CHECKING:
    from yoke.permissions.bash_analysis import Invocation
    from yoke.permissions.matching import RuleMatcher

_DESTINATIONS = ("session", "localSettings", "projectSettings", "userSettings")
# Tools that wait for a person to answer: not offered when nobody is waited for (denyInsteadOfPrompting).
WAIT_FOR_A_PERSON = frozenset({"AskUserQuestion", "EnterPlanMode", "ExitPlanMode"})


class GateActions:
    # what these methods use of `PermissionGate` (pipeline.py), which inherits them
    settings_paths: dict[str, Path]
    cwd: Path
    home: Path
    working_dirs: list[Path]
    deny: list[PermissionRule]
    ask: list[PermissionRule]
    allow: list[PermissionRule]
    session_rules: list[PermissionRule]
    deny_prompts: bool
    local_settings_path: Path
    matcher: RuleMatcher
    last_ctx: ToolContext | None

    if TYPE_CHECKING:

        def set_mode(self, mode: str) -> None: ...

        def add_working_dir(self, path: Path) -> None: ...

        def _safety(self, facts: CallFacts) -> tuple[str, str] | None: ...

        def _approve_invocation(
            self, inv: Invocation, cwds: list[str] | None, literal_line: bool, edits_ok: bool = True
        ) -> str | None: ...

        def _inside(self, path: ResolvedPath) -> bool: ...

        def _path_rule_allows(self, family: str, path: ResolvedPath) -> bool: ...

    # ---- suggestions -------------------------------------------------------------------------------------

    def suggest_rules(self, tool: Tool, input: dict[str, Any]) -> list[str]:
        """Narrow allow rules that would approve this call next time ([] when none should)."""
        facts = self._facts(tool, input)
        if facts.kind in ("read", "edit") and any(is_protected(p.real) for p in facts.paths or []):
            return []
        if facts.kind == "bash" and self._safety(facts) is not None:
            return []
        return self._narrow_rules(facts)

    def suggestions(self, tool: Tool, input: dict[str, Any]) -> list[dict[str, Any]]:
        """Claude Code permission-update entries offered with an ask (shown to SDK clients and the UI)."""
        facts = self._facts(tool, input)
        rules = self.suggest_rules(tool, input)
        if facts.kind == "edit":
            if facts.paths and all(self._inside(p) for p in facts.paths):
                protected = any(is_protected(p.real) or is_protected(p.logical) for p in facts.paths)
                return (
                    []
                    if protected
                    else [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]
                )
            return [self._add_dirs_update(facts)] if facts.paths else []
        if facts.kind == "read":
            secret = any(
                is_secret(p.real, self.home) or is_secret(p.logical, self.home) for p in facts.paths or []
            )
            if facts.paths and not secret and not all(self._inside(p) for p in facts.paths):
                return [self._add_dirs_update(facts)]
            return [add_rules_update(rules, "session")] if rules else []
        return [add_rules_update(rules, "localSettings")] if rules else []

    def _add_dirs_update(self, facts: CallFacts) -> dict[str, Any]:
        dirs = []
        for p in facts.paths or []:
            folder = p.real if os.path.isdir(p.real) else os.path.dirname(p.real)
            if folder not in dirs:
                dirs.append(folder)
        return {"type": "addDirectories", "directories": dirs, "destination": "session"}

    def _narrow_rules(self, facts: CallFacts) -> list[str]:
        from yoke.permissions.bash_analysis import candidate_cwds, edits_are_stable, fast_path_applies

        if facts.kind == "bash":
            analysis = facts.bash
            if analysis is None or not analysis.analysable:
                return []
            cwds = candidate_cwds(analysis, facts.shell_cwd or self.cwd, self.home)
            pending = [
                inv
                for inv in analysis.invocations
                if self._approve_invocation(
                    inv, cwds, fast_path_applies(inv, analysis), edits_are_stable(analysis)
                )
                is None
            ]
            return bash_rules(pending)
        if facts.kind in ("read", "edit"):
            family = "Edit" if facts.kind == "edit" else "Read"
            rules = []
            for p in facts.paths or []:
                suffix = "/**" if facts.kind == "read" and os.path.isdir(p.real) else ""
                for form in dict.fromkeys((p.logical, p.real)):  # a symlink needs its target allowed too
                    rules.append(f"{family}(/{_escape_glob(form)}{suffix})")
            return rules
        if facts.kind == "web":
            rule = web_rule(facts)
            return [rule] if rule else []
        return [facts.tool.name]

    # ---- answers -----------------------------------------------------------------------------------------

    def remember(self, tool: Tool, input: dict[str, Any], scope: str = "session") -> list[str]:
        """Record "allow, and don't ask again": narrow rules for this session, or saved to local settings
        (`scope` "local"/"localSettings"; edits and reads are only ever remembered for the session)."""
        facts = self._facts(tool, input)
        rules = self._narrow_rules(facts)
        persist = scope in ("local", "localSettings") and facts.kind not in ("read", "edit")
        for text in rules:
            if persist:
                self.save_local_rule(text)
            else:
                self._add_rule(text, "allow", "session")
        return rules

    def save_local_rule(self, rule: str, behavior: str = "allow") -> Path:
        """Add `rule` to `.claude/settings.local.json` (atomically) and apply it now; returns the file."""
        return self._save_rules([rule], behavior, "localSettings")

    def apply_update(self, update: dict[str, Any]) -> None:
        """Apply one Claude Code permission-update entry (addRules, setMode, addDirectories, removeRules)."""
        kind = update.get("type")
        destination = update.get("destination", "session")
        if destination not in _DESTINATIONS:
            raise ValueError(f"unknown permission update destination {destination!r}")
        if kind == "setMode":
            self.set_mode(str(update.get("mode")))
        elif kind == "addDirectories":
            for folder in update.get("directories") or []:
                self.add_working_dir(Path(folder))
        elif kind in ("addRules", "removeRules"):
            behavior = str(update.get("behavior", "allow"))
            texts = [_rule_text(entry) for entry in update.get("rules") or []]
            if kind == "removeRules":
                self._remove_session_rules(texts, behavior)
            elif destination == "session":
                for text in texts:
                    self._add_rule(text, behavior, "session")
            else:
                self._save_rules(texts, behavior, destination)
        else:
            raise ValueError(f"unsupported permission update type {kind!r}")

    # ---- helpers for other parts ------------------------------------------------------------------------

    def runs_alongside(self, tool: Tool, input: dict[str, Any]) -> bool:
        """Whether a shell call provably only reads, so it may run in parallel with other such calls (as
        Claude Code runs read-only Bash): every command a known read-only shape, and none that moves the
        shell's working directory (which later calls inherit)."""
        if tool.kind != "execute" or "Bash" not in (tool.name, *tool.aliases):
            return False
        command = input.get("command")
        if not isinstance(command, str) or input.get("run_in_background"):
            return False
        from yoke.permissions.bash_analysis import analyze

        analysis = analyze(command)
        return analysis.commands_read_only() and not any(
            inv.name in ("cd", "pushd", "popd") for inv in analysis.invocations
        )

    def hidden_tools(self, names: list[str]) -> set[str]:
        """Tools a bare deny rule (`Bash`, `mcp__*`, `*`) removes from the model's view entirely; with
        denyInsteadOfPrompting, also those that wait for a person (questions, plan mode), as 2.1.330."""

        def judged_as(name: str) -> set[str]:  # Monitor's command is a Bash call (matching.SHELL_TOOLS)
            return {name, "Bash"} if name in SHELL_TOOLS else {name}

        hidden = {
            n for n in names for r in self.deny if r.whole_tool and tool_name_matches(r.tool, judged_as(n))
        }
        if self.deny_prompts:
            hidden |= {n for n in names if n in WAIT_FOR_A_PERSON}
        return hidden

    def is_read_denied(self, path: str | Path) -> bool:
        """Whether a deny rule covers reading this path."""
        resolved = resolve_path(str(path), self.cwd, self.home)
        return resolved is None or self._read_denied(resolved)

    def is_read_withheld(self, path: str | Path) -> bool:
        """Whether Read would not show this file: a Read deny rule covers it, or it is a secret no Read allow
        rule covers."""
        resolved = resolve_path(str(path), self.cwd, self.home)
        return resolved is None or self._read_denied(resolved) or self._unallowed_secret(resolved)

    def withheld_among(self, names: list[str], base: str, real_base: str | None = None) -> set[str]:
        """For Grep, whose fast path judges only the folder it searches: which of the files it found below
        `base` (`names` relative to it, as ripgrep prints them) Read would not show, so a search cannot show
        what Read would not. `real_base`: the real path of `base` when the search followed no link below it
        (ripgrep's walk), so each file's real path is known without resolving it; with no Read deny rule,
        only names that look secret (or lie in a secret home folder) are judged at all."""
        return self._judge_found(names, base, real_base, secrets=True)

    def denied_among(self, names: list[str], base: str, real_base: str | None = None) -> set[str]:
        """For Glob: which of the files it found below `base` a Read deny rule covers (a rule hides a name
        everywhere); as `withheld_among`, without the secrets."""
        return self._judge_found(names, base, real_base, secrets=False)

    def _judge_found(self, names: list[str], base: str, real_base: str | None, secrets: bool) -> set[str]:
        denies = any(path_family(r) == "read" for r in self.deny)
        if not denies and not secrets:
            return set()
        base = os.path.normpath(base).rstrip("/")
        if real_base is not None:
            real_base = real_base.rstrip("/")
        if real_base is not None and not denies:  # only secrets can be withheld: find the candidates
            near = near_secret_places(base or "/", self.home) or near_secret_places(
                real_base or "/", self.home
            )
            names = names if near else secret_looking(names)
        withheld = set()
        for name in names:
            if real_base is None:
                resolved = resolve_path(os.path.join(base or "/", name), self.cwd, self.home)
                if resolved is None:
                    withheld.add(name)
                    continue
            else:
                resolved = ResolvedPath(f"{base}/{name}", f"{real_base}/{name}")
            if (denies and self._read_denied(resolved)) or (secrets and self._unallowed_secret(resolved)):
                withheld.add(name)
        return withheld

    def _read_denied(self, resolved: ResolvedPath) -> bool:
        from yoke.permissions.pipeline import _PATH_TOOL

        facts = CallFacts(_PATH_TOOL, {}, {"Read"}, "read", True, paths=[resolved])
        return any(path_family(r) == "read" and self.matcher.matches(r, facts) for r in self.deny)

    def _unallowed_secret(self, resolved: ResolvedPath) -> bool:
        if not (is_secret(resolved.real, self.home) or is_secret(resolved.logical, self.home)):
            return False
        return not self._path_rule_allows("read", resolved)

    def rules_in_force(self) -> dict[str, list[str]]:
        return {
            "deny": [r.text for r in self.deny],
            "ask": [r.text for r in self.ask],
            "allow": [r.text for r in self.allow],
            "session": [r.text for r in self.session_rules],
        }

    # ---- internals ---------------------------------------------------------------------------------------

    def _facts(self, tool: Tool, input: dict[str, Any]) -> CallFacts:
        ctx = self.last_ctx
        if ctx is None:
            ctx = ToolContext(
                cwd=self.cwd, session=SessionState("", self.cwd), working_dirs=self.working_dirs
            )
        return call_facts(tool, input, ctx, self.home)

    def _add_rule(self, text: str, behavior: str, scope: str) -> PermissionRule:
        try:
            rule = parse_rule(text, behavior, scope, self.cwd)  # type: ignore[arg-type]
        except RuleSyntaxError as exc:
            raise ValueError(f"cannot add the rule: {exc}") from None
        target = {
            "allow": self.session_rules if scope == "session" else self.allow,
            "ask": self.ask,
            "deny": self.deny,
        }
        bucket = target.get(behavior)
        if bucket is None:
            raise ValueError(f"unknown rule behavior {behavior!r}")
        if all(r.text != rule.text or r.behavior != behavior for r in bucket):
            bucket.append(rule)
        return rule

    def _remove_session_rules(self, texts: list[str], behavior: str) -> None:
        if behavior == "allow":
            # in place: a sub-agent's gate copy shares this list, and must lose the rule too
            self.session_rules[:] = [r for r in self.session_rules if r.text not in texts]

    def _save_rules(self, texts: list[str], behavior: str, destination: str) -> Path:
        path = self.settings_paths.get(destination) if hasattr(self, "settings_paths") else None
        if path is None:
            path = self.local_settings_path
        rules = [self._add_rule(text, behavior, _scope_of(destination)) for text in texts]
        data: dict[str, Any] = {}
        if path.exists():
            try:
                data = safe_json(path.read_text(encoding="utf-8") or "{}")
            except (OSError, ValueError):
                raise ValueError(
                    f"cannot save the rule: {path} is not valid JSON; fix or remove it first"
                ) from None
            if not isinstance(data, dict):
                raise ValueError(f"cannot save the rule: {path} does not hold a JSON object")
        perms = data.setdefault("permissions", {})
        if not isinstance(perms, dict):
            raise ValueError(f"cannot save the rule: `permissions` in {path} is not an object")
        bucket = perms.setdefault(behavior, [])
        if not isinstance(bucket, list):
            raise ValueError(f"cannot save the rule: `permissions.{behavior}` in {path} is not a list")
        for rule in rules:
            if rule.text not in bucket:
                bucket.append(rule.text)
        write_json_atomic(path, data)
        return path


def _scope_of(destination: str) -> str:
    return {"localSettings": "local", "projectSettings": "project", "userSettings": "user"}.get(
        destination, "session"
    )


def _rule_text(entry: dict[str, Any]) -> str:
    name = str(entry.get("toolName", ""))
    content = entry.get("ruleContent")
    if content is None:
        return name
    return f"{name}({str(content).replace('(', chr(92) + '(').replace(')', chr(92) + ')')})"


def _escape_glob(path: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", path)
