"""Permission rule lists as users write them (`--allowedTools "Bash(git log:*) Edit,Read"`, a skill's
`allowed-tools`): split on commas and spaces outside parentheses. Here, below the CLI and the skills that
both read them."""

from __future__ import annotations


def split_tool_list(values: list[str]) -> list[str]:
    """Split `--allowedTools "Bash(git log:*) Edit,Read"` into rules: on commas and spaces outside parentheses."""
    rules: list[str] = []
    for value in values:
        depth = 0
        current: list[str] = []
        for ch in value:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            if depth == 0 and ch in ", ":
                if current:
                    rules.append("".join(current))
                current = []
            else:
                current.append(ch)
        if current:
            rules.append("".join(current))
    return [r.strip() for r in rules if r.strip()]
