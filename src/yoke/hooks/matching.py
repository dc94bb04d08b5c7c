"""Which hooks an announcement reaches: the matcher against the event's match field, then `if`.

Matchers follow Claude Code: empty, `*` or omitted match everything; a matcher made only of letters,
digits, `_`, `-`, spaces, `,` and `|` is a list of exact names; anything else is an unanchored regular
expression (`Edit.*` also matches `NotebookEdit`; write `^Edit$` to mean one tool). An `if` condition is
one permission rule (`Bash(git push:*)`, `Edit(*.ts)`) matched the way a deny rule is (broadly: any
sub-command of a Bash line, any spelling of a path), and is only meaningful on tool events: elsewhere a
handler with `if` never runs.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

TOOL_EVENTS = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"}
)
# The payload field each event's matcher is tested against; events not listed take no matcher.
MATCH_FIELDS: dict[str, str] = {
    **{event: "tool_name" for event in TOOL_EVENTS},
    "SessionStart": "source",
    "Setup": "trigger",
    "SessionEnd": "reason",
    "Notification": "notification_type",
    "SubagentStart": "agent_type",
    "SubagentStop": "agent_type",
    "PreCompact": "trigger",
    "PostCompact": "trigger",
    "PreModelSwitch": "to_model",
    "PostModelSwitch": "to_model",
    "ConfigChange": "source",
    "DirectoryAdded": "source",
    "FileChanged": "file_path",
    "StopFailure": "error",
    "InstructionsLoaded": "load_reason",
    "UserPromptExpansion": "command_name",
    "Elicitation": "mcp_server_name",
    "ElicitationResult": "mcp_server_name",
}
_EXACT = re.compile(r"^[A-Za-z0-9_\- ,|]+$")


def match_value(event: str, payload: dict[str, Any]) -> str | None:
    """What `event`'s matcher is tested against in this payload (None: the event takes no matcher)."""
    key = MATCH_FIELDS.get(event)
    if key is None:
        return None
    value = payload.get(key)
    if event == "StopFailure" and isinstance(value, dict):
        value = value.get("type")
    if event == "FileChanged" and isinstance(value, str):
        value = os.path.basename(value)
    return "" if value is None else str(value)


def matcher_matches(matcher: str, event: str, value: str | None, aliases: tuple[str, ...] = ()) -> bool:
    """Whether a group's matcher selects this announcement. `aliases` are other names of the same tool."""
    if value is None:
        return True  # the event takes no matcher: one written there is silently ignored
    kind, names, pattern = _parsed(matcher, event == "FileChanged")
    if kind == "all":
        return True
    if kind == "exact":
        return value in names or any(a in names for a in aliases)
    return pattern is not None and (
        pattern.search(value) is not None or any(pattern.search(a) for a in aliases)
    )


@lru_cache(maxsize=512)
def _parsed(matcher: str, literal_names: bool) -> tuple[str, frozenset[str], re.Pattern[str] | None]:
    """("all" | "exact" | "regex", exact names, compiled regex), worked out once per matcher text."""
    text = matcher.strip()
    if text in ("", "*"):
        return "all", frozenset(), None
    if literal_names:  # FileChanged: literal file names separated by `|`
        return "exact", frozenset(n.strip() for n in text.split("|") if n.strip()), None
    if _EXACT.match(text):
        return "exact", frozenset(n.strip() for n in re.split(r"[|,]", text) if n.strip()), None
    return "regex", frozenset(), _compiled(text)


@lru_cache(maxsize=256)
def _compiled(text: str) -> re.Pattern[str] | None:
    try:
        return re.compile(text)
    except re.error:
        return None  # a broken regex matches nothing (the config check reports it)


def matcher_problem(matcher: str) -> str | None:
    """Why a matcher can never match, for configuration warnings and `yoke hooks`."""
    text = matcher.strip()
    if text in ("", "*") or _EXACT.match(text):
        return None
    if _compiled(text) is None:
        return f"matcher {matcher!r} is not a valid regular expression and matches nothing"
    return None


class _StandInTool:
    """Enough of a tool for rule matching when the session's registry does not know the name."""

    aliases: tuple[str, ...] = ()
    read_only = False
    input_model = None

    def __init__(self, name: str):
        self.name = name

    def is_read_only(self, input: Any) -> bool:
        return False


class IfCondition:
    """`if` evaluation for one session: reuses the permission rule parser and matcher."""

    def __init__(self, cwd: Path, home: Path, tool_lookup: Any = None):
        self.cwd = cwd
        self.home = home
        self.tool_lookup = tool_lookup  # callable(name) -> Tool | None, e.g. the registry's `get`

    def holds(self, rule_text: str, event: str, payload: dict[str, Any]) -> bool:
        if event not in TOOL_EVENTS:
            return False
        from yoke.permissions.matching import RuleMatcher, call_facts
        from yoke.permissions.rules import RuleSyntaxError, parse_rule
        from yoke.tools.base import SessionState, ToolContext

        try:
            rule = parse_rule(rule_text, "deny", "hook", self.cwd)
        except RuleSyntaxError:
            return False
        name = str(payload.get("tool_name", ""))
        tool = self.tool_lookup(name) if self.tool_lookup else None
        tool = tool or _StandInTool(name)
        tool_input = payload.get("tool_input")
        tool_input = tool_input if isinstance(tool_input, dict) else {}
        cwd = Path(str(payload.get("cwd") or self.cwd))
        ctx = ToolContext(cwd=cwd, session=SessionState(session_id="", session_dir=cwd, shell_cwd=cwd))
        try:
            facts = call_facts(tool, tool_input, ctx, self.home)  # type: ignore[arg-type]
            if facts.bash is not None and not facts.bash.analysable:
                return True  # Claude Code fails open: a line it cannot parse runs the hook
            return RuleMatcher(cwd, self.home).matches(rule, facts)
        except Exception:
            return True  # unknown is not "no match" for a guard: run the hook
