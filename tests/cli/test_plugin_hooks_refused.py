"""A plugin whose hooks/hooks.json is malformed, as the bundled Claude Code (2.1.332) takes it (each case
run through it with --plugin-dir against the scripted server): a PreToolUse/PermissionRequest entry that
cannot be loaded, or a `hooks` value that is not an object, refuses the whole plugin (`generic-error`,
named `inline[N]`); a file that does not load at all drops its hooks and keeps the plugin
(`hook-load-failed`, named `<folder>@inline`); other events' problems leave the plugin as it is."""

from __future__ import annotations

import json
import sys

import pytest

from yoke.testing.side_by_side import run_scenario

HOOK = {"type": "command", "command": "true"}
CASES = {
    # name: (hooks.json text, plugin loaded, plugin_errors types)
    "good": (json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [HOOK]}]}}), True, []),
    "not_json": ("{ not json", True, ["hook-load-failed"]),
    "empty_object": ("{}", True, ["hook-load-failed"]),
    "array": ("[]", True, ["hook-load-failed"]),
    "post_at_top_level": (json.dumps({"PostToolUse": [{"hooks": [HOOK]}]}), True, ["hook-load-failed"]),
    "pre_at_top_level": (json.dumps({"PreToolUse": [{"hooks": [HOOK]}]}), False, ["generic-error"]),
    "hooks_is_a_list": (json.dumps({"hooks": []}), False, ["generic-error"]),
    "pre_is_a_string": (json.dumps({"hooks": {"PreToolUse": "oops"}}), False, ["generic-error"]),
    "pre_entries_not_a_list": (
        json.dumps({"hooks": {"PreToolUse": [{"hooks": "x"}]}}),
        False,
        ["generic-error"],
    ),
    "pre_unknown_type": (
        json.dumps({"hooks": {"PreToolUse": [{"hooks": [{"type": "weird"}]}]}}),
        False,
        ["generic-error"],
    ),  # fmt: skip
    "stop_is_a_string": (json.dumps({"hooks": {"Stop": "oops"}}), True, []),
    "stop_unknown_type": (json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "weird"}]}]}}), True, []),
    "unknown_event": (json.dumps({"hooks": {"NoSuchEvent": [{"hooks": [HOOK]}]}}), True, []),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_malformed_hooks_file_is_taken_as_claude_code_takes_it(case):
    text, loaded, error_types = CASES[case]
    files = {
        "plug/.claude-plugin/plugin.json": json.dumps({"name": "hp", "version": "1.0.0"}),
        "plug/commands/hello.md": "---\ndescription: hi\n---\nsay hi\n",
        "plug/hooks/hooks.json": text,
    }
    scenario = {
        "argv": ["-p", "hi", "--output-format", "stream-json", "--verbose", "--plugin-dir", "PROJECT/plug"],
        "files": files,
        "turns": [{"content": [{"type": "text", "text": "done"}]}],
    }
    run = run_scenario(f"{sys.executable} -m yoke", scenario)
    assert run["code"] == 0 and "internal error" not in run["stderr"], run["stderr"]
    init = next(json.loads(line) for line in run["stdout"].splitlines() if '"subtype": "init"' in line)
    assert ("hp:hello" in init["slash_commands"]) is loaded
    errors = init.get("plugin_errors") or []
    assert [e["type"] for e in errors] == error_types
    for error in errors:
        assert error["plugin"] == ("inline[0]" if error["type"] == "generic-error" else "plug@inline")
