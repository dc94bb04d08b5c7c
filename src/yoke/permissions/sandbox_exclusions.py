"""`sandbox.excludedCommands`: which Bash command lines run outside the sandbox. The entries are Bash rule
patterns, so the matching lives here with the rule syntax; the sandbox is handed the verdict as a callable
(`SessionServices.sandbox_excluded`, from the gate), and knows no rule syntax itself."""

from __future__ import annotations

from yoke.permissions.patterns import bash_matches
from yoke.sandbox.settings import SandboxSettings


def command_excluded(command: str, settings: SandboxSettings) -> bool:
    """`excludedCommands` entries are Bash rule patterns (`docker` also covers `docker …`); a command line
    with any matching command runs outside the sandbox."""
    if not settings.excluded_commands:
        return False
    from yoke.permissions.bash_analysis import analyze  # the bash analysis loads only when it is needed

    patterns = []
    for entry in settings.excluded_commands:
        patterns.append(entry)
        if "*" not in entry:
            patterns.append(entry + " *")
    for inv in analyze(command).invocations:
        if any(bash_matches(p, text) for p in patterns for text in inv.deny_texts):
            return True
    return False
