"""Narrow "always allow" suggestions for a call that was asked about.

Bash: one rule per command that still needs approval (at most five), the exact command, or its first two
words and ` *` when the second word is a subcommand rather than an option. Interpreters, shells and
destructive commands only ever get the exact command. Never `Bash` or `Bash(*)`. Nothing is suggested for a
command the analyser could not follow: such a command can never be approved by a rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yoke.permissions.bash_analysis import Invocation

from yoke.permissions.matching import CallFacts
from yoke.permissions.rules import format_rule

MAX_BASH_SUGGESTIONS = 5
EXACT_ONLY = frozenset(
    [
        "rm",
        "rmdir",
        "dd",
        "mkfs",
        "shred",
        "sudo",
        "su",
        "doas",
        "chmod",
        "chown",
        "chgrp",
        "kill",
        "pkill",
        "killall",
        "shutdown",
        "reboot",
        "halt",
        "eval",
        "exec",
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "fish",
        "python",
        "python3",
        "node",
        "deno",
        "bun",
        "ruby",
        "perl",
        "php",
        "curl",
        "wget",
        "ssh",
        "scp",
        "rsync",
        "nc",
        "ncat",
        "socat",
        "docker",
        "kubectl",
    ]
)


def bash_rule_for(inv: Invocation) -> str | None:
    """The narrow rule that would approve this one command, or None when no rule should."""
    if inv.allow_text is None or not inv.words or not all(w.static for w in inv.words):
        return None
    words = [w.text for w in inv.words]
    if any("\n" in w for w in words):
        return None
    if inv.allow_exact_only or len(words) <= 2 or words[0] in EXACT_ONLY or words[1].startswith("-"):
        return format_rule("Bash", inv.allow_text)
    return format_rule("Bash", f"{words[0]} {words[1]} *")


def bash_rules(invocations: list[Invocation]) -> list[str]:
    rules: list[str] = []
    for inv in invocations:
        rule = bash_rule_for(inv)
        if rule is None:
            return []
        if rule not in rules:
            rules.append(rule)
    return rules[:MAX_BASH_SUGGESTIONS] if len(rules) <= MAX_BASH_SUGGESTIONS else []


def add_rules_update(rules: list[str], destination: str = "localSettings") -> dict[str, Any]:
    """A Claude Code permission-update entry (`addRules`) for the given rule strings."""
    entries = []
    for rule in rules:
        name, _, rest = rule.partition("(")
        entry: dict[str, Any] = {"toolName": name}
        if rest:
            entry["ruleContent"] = rest[:-1].replace("\\(", "(").replace("\\)", ")")
        entries.append(entry)
    return {"type": "addRules", "rules": entries, "behavior": "allow", "destination": destination}


def web_rule(facts: CallFacts) -> str | None:
    return format_rule("WebFetch", f"domain:{facts.host}") if facts.host else None
