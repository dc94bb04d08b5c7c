"""Permission rules as written in settings and flags: `Tool` or `Tool(specifier)`.

A rule keeps where it came from (its scope, shown in decisions and warnings) and the directory its `/path`
patterns are relative to. `Tool`, `Tool()` and `Tool(*)` all mean the whole tool. The legacy names of a
tool (`Task` for `Agent`) are matched through the tool's aliases, not rewritten here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from yoke.records import FrozenRecord

RuleBehavior = Literal["allow", "ask", "deny"]
_NAME = re.compile(r"^[A-Za-z0-9_*.\-:]+$")


class RuleSyntaxError(ValueError):
    """A rule string that cannot be understood; the message says what is wrong with it."""


class PermissionRule(FrozenRecord):
    __slots__ = ("tool", "specifier", "behavior", "scope", "base_dir", "text")
    tool: str
    specifier: str | None
    behavior: RuleBehavior
    scope: str
    base_dir: Path
    text: str

    def __init__(
        self,
        tool: str,  # the tool name as written: "Bash", "Task", "mcp__github__*", "*"
        specifier: str | None,  # None when the rule covers the whole tool
        behavior: RuleBehavior,
        scope: str,  # "managed", "flag", "cli", "local", "project", "user", "session"
        base_dir: Path,  # what a `/path` pattern in this rule is relative to
        text: str,  # the rule as the user wrote it (normalised spacing), used in decision sources
    ) -> None:
        self._fill(
            tool=tool, specifier=specifier, behavior=behavior, scope=scope, base_dir=base_dir, text=text
        )

    @property
    def whole_tool(self) -> bool:
        return self.specifier is None

    def __str__(self) -> str:
        return self.text


def parse_rule(text: str, behavior: RuleBehavior, scope: str, base_dir: Path) -> PermissionRule:
    """Parse one rule string; raises RuleSyntaxError with a one-line explanation."""
    raw = text.strip()
    if not raw:
        raise RuleSyntaxError("empty rule")
    if "(" not in raw:
        if ")" in raw or not _NAME.match(raw):
            raise RuleSyntaxError(f"{raw!r} is not a tool name or Tool(specifier)")
        return PermissionRule(raw, None, behavior, scope, base_dir, raw)
    name, _, rest = raw.partition("(")
    name = name.strip()
    if not rest.endswith(")"):
        raise RuleSyntaxError(f"{raw!r} has an unclosed parenthesis")
    if not name or not _NAME.match(name):
        raise RuleSyntaxError(f"{raw!r} does not start with a tool name")
    spec = _unescape_parens(rest[:-1]).strip()
    if spec in ("", "*"):
        return PermissionRule(name, None, behavior, scope, base_dir, name)
    return PermissionRule(name, spec, behavior, scope, base_dir, f"{name}({spec})")


def format_rule(tool: str, specifier: str | None = None) -> str:
    if specifier is None:
        return tool
    return f"{tool}({specifier.replace('(', chr(92) + '(').replace(')', chr(92) + ')')})"


def _unescape_parens(spec: str) -> str:
    return spec.replace("\\(", "(").replace("\\)", ")")


def parse_rules(
    texts: list[str], behavior: RuleBehavior, scope: str, base_dir: Path, label: str, warnings: list[str]
) -> list[PermissionRule]:
    """Parse a list, turning each bad rule into a warning line naming `label` (a file or flag)."""
    out: list[PermissionRule] = []
    for text in texts:
        try:
            rule = parse_rule(text, behavior, scope, base_dir)
        except RuleSyntaxError as exc:
            warnings.append(f"{label}: permission rule skipped: {exc}")
            continue
        problem = rule_problem(rule)
        if problem:
            warnings.append(f"{label}: permission rule {rule.text!r} skipped: {problem}")
            continue
        out.append(rule)
    return out


def rule_problem(rule: PermissionRule) -> str | None:
    """Why a syntactically valid rule cannot be used, if it cannot (e.g. an allow-rule wildcard tool name)."""
    if "*" in rule.tool and rule.behavior == "allow":
        # Claude Code: allow-rule globs only after a literal `mcp__<server>__` prefix.
        match = re.match(r"^mcp__[^*_][^*]*?__", rule.tool)
        if not match:
            return "a wildcard tool name in an allow rule is only accepted after `mcp__<server>__`"
    if "*" in rule.tool and rule.specifier is not None:
        return "a wildcard tool name cannot take a specifier"
    return None
