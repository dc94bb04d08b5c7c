"""The PreSkillShellCommand hook event (new in Claude Code 2.1.332): announced before each `!` shell line of a
skill or command runs, with the fields 2.1.332 sends (tests/scheduling/cc_2_1_332_tools.json:
`tool_name` "Bash", `tool_input` {command}, `tool_use_id` "<the Skill call's id>:preamble-<n>",
`command_name`, `command_source`, `invoked_by` "claude" or "user"). A hook that blocks (`decision` block or
deny, or `continue: false`) stops the line, as a refused permission does: the skill is not expanded."""

from __future__ import annotations

from typing import Any

EVENT = "PreSkillShellCommand"
# a skill's `source` (skills/model.py) as 2.1.332 names where a command came from
SOURCES = {
    "project": "projectSettings",
    "user": "userSettings",
    "managed": "policySettings",
    "plugin": "plugin",
    "add-dir": "projectSettings",
    "nested": "projectSettings",
    "yoke": "builtin",
}


async def announce_skill_shell(
    lifecycle: Any, skill: Any, command: str, index: int, call_id: str, invoked_by: str
) -> str | None:
    """Announce the event; the reason the line may not run, or None."""
    if lifecycle is None or skill is None:
        return None
    out = await lifecycle.announce(
        EVENT,
        tool_name="Bash",
        tool_input={"command": command},
        tool_use_id=f"{call_id or 'command'}:preamble-{index}",
        command_name=skill.name,
        command_source=SOURCES.get(skill.source, skill.source),
        invoked_by=invoked_by,
    )
    if out.stop:
        return out.stop_reason or out.reason or "a PreSkillShellCommand hook stopped it"
    if out.block or out.decision in ("deny", "block"):
        return out.reason or "a PreSkillShellCommand hook blocked it"
    return None
