"""Hooks from settings files (trust, policy, precedence), from plugins, and `yoke hooks`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hooks.conftest import common, script

from yoke.config.settings import load_settings
from yoke.hooks.build import build_hook_listener, settings_hooks
from yoke.hooks.config import parse_hooks
from yoke.hooks.listener import HookListener
from yoke.hooks.sources import load_plugin_hooks
from yoke.loop.lifecycle import Lifecycle


def write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def hook(command: str, matcher: str = "Bash") -> dict:
    return {"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}


def settings_in(project: Path, home: Path, **kwargs):
    return load_settings(project, home=home, managed_paths=kwargs.pop("managed", []), **kwargs)


def test_every_source_contributes_highest_first(project: Path, home: Path):
    write(home / ".claude" / "settings.json", {"hooks": hook("echo user")})
    write(project / ".claude" / "settings.json", {"hooks": hook("echo project")})
    write(project / ".claude" / "settings.local.json", {"hooks": hook("echo local")})
    loaded = settings_in(project, home, flag_settings=json.dumps({"hooks": hook("echo flag")}))
    hooks = settings_hooks(loaded, trusted=True)
    assert [g.handlers[0].command for g in hooks.groups] == [
        "echo flag",
        "echo local",
        "echo project",
        "echo user",
    ]
    assert [g.scope for g in hooks.groups] == ["flag", "local", "project", "user"]
    assert hooks.warnings == []


async def test_untrusted_folder_skips_project_hooks_with_one_line(project: Path, home: Path):
    marker = project / "ran"
    write(project / ".claude" / "settings.json", {"hooks": hook(f"touch {marker}")})
    write(project / ".claude" / "settings.local.json", {"hooks": hook(f"touch {marker}-local")})
    write(home / ".claude" / "settings.json", {"hooks": hook("true")})
    loaded = settings_in(project, home)
    listener = build_hook_listener(loaded, trusted=False)
    assert listener is not None
    assert len(listener.warnings) == 1
    assert listener.warnings[0].startswith(
        f"this workspace ({project}) has not been trusted: skipping 2 hooks from"
    )
    assert [g.scope for g in listener.groups] == ["user"]
    lifecycle = Lifecycle(lambda: common(project))
    lifecycle.add(listener)
    await lifecycle.announce("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t")
    assert not marker.exists()
    trusted = build_hook_listener(loaded, trusted=True)
    assert trusted is not None and len(trusted.groups) == 3 and trusted.warnings == []


def test_trust_comes_from_the_trust_record(project: Path, home: Path):
    from yoke.config.trust import trust_folder

    write(project / ".claude" / "settings.json", {"hooks": hook("true")})
    loaded = settings_in(project, home)
    assert settings_hooks(loaded).groups == []
    trust_folder(project, loaded.yoke_home)
    assert len(settings_hooks(loaded).groups) == 1


def test_disable_all_hooks_and_managed_only(project: Path, home: Path, tmp_path: Path):
    write(home / ".claude" / "settings.json", {"hooks": hook("echo user"), "disableAllHooks": True})
    managed = tmp_path / "managed" / "managed-settings.json"
    write(managed, {"hooks": hook("echo policy")})
    loaded = settings_in(project, home, managed=[managed])
    assert [g.handlers[0].command for g in settings_hooks(loaded, trusted=True).groups] == ["echo policy"]
    write(home / ".claude" / "settings.json", {"hooks": hook("echo user")})
    write(managed, {"hooks": hook("echo policy"), "allowManagedHooksOnly": True})
    loaded = settings_in(project, home, managed=[managed])
    hooks = settings_hooks(loaded, trusted=True)
    assert [g.handlers[0].command for g in hooks.groups] == ["echo policy"]
    assert [g.handlers[0].command for g in hooks.skipped] == ["echo user"]


def test_malformed_entries_are_skipped_with_a_warning_each():
    warnings: list[str] = []
    groups = parse_hooks(
        {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command"}, {"type": "command", "command": "ok"}]},
                "not a group",
            ],
            "NoSuchEvent": [],
            "Stop": {"hooks": []},
            "PostToolUse": [
                {
                    "hooks": [
                        {"type": "telepathy", "command": "x"},
                        {"type": "command", "command": "y", "timeout": -1},
                    ]
                }
            ],
        },
        scope="user",
        source="/h/.claude/settings.json",
        warnings=warnings,
    )
    assert [(g.event, [h.command for h in g.handlers]) for g in groups] == [
        ("PreToolUse", ["ok"]),
        ("PostToolUse", ["y"]),
    ]
    assert groups[1].handlers[0].timeout is None
    assert len(warnings) == 6
    assert all(w.startswith("/h/.claude/settings.json: ") for w in warnings)
    assert any("unknown hook event 'NoSuchEvent'" in w for w in warnings)


async def test_plugin_hooks_get_their_root_and_data(tmp_path: Path, project: Path):
    plugin = tmp_path / "formatter-plugin"
    data = tmp_path / "plugin-data"
    write(
        plugin / "hooks" / "hooks.json",
        {
            "description": "format after edits",
            "hooks": {
                "PostToolUse": [
                    {
                        "matcher": "Write|Edit",
                        "hooks": [
                            {
                                "type": "command",
                                "command": "${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh",
                            }
                        ],
                    }
                ]
            },
        },
    )
    fmt = plugin / "scripts" / "fmt.sh"
    fmt.parent.mkdir()
    fmt.write_text(
        '#!/usr/bin/env bash\ncat > /dev/null\necho "$CLAUDE_PLUGIN_ROOT|$CLAUDE_PLUGIN_DATA" > "$CLAUDE_PROJECT_DIR/plugin.out"\n'
    )
    fmt.chmod(0o755)
    loaded = load_plugin_hooks(plugin, plugin_name="formatter", plugin_data=data)
    assert loaded.warnings == []
    [group] = loaded.groups
    assert (group.scope, group.tag, group.plugin_root) == ("plugin", "plugin formatter", plugin)
    listener = HookListener(loaded, project_dir=project)
    lifecycle = Lifecycle(lambda: common(project))
    lifecycle.add(listener)
    await lifecycle.announce(
        "PostToolUse", tool_name="Write", tool_input={}, tool_response={}, tool_use_id="t"
    )
    assert (project / "plugin.out").read_text() == f"{plugin}|{data}\n"
    listener.remove_tag("plugin formatter")
    assert not listener.wants("PostToolUse")


def test_yoke_hooks_lists_what_is_configured_where(yoke, project: Path, home: Path):
    write(home / ".claude" / "settings.json", {"hooks": hook(script("guard_rm_rf.sh"))})
    write(
        project / ".claude" / "settings.json",
        {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo done", "timeout": 5}]}]}},
    )
    run = yoke("hooks")
    assert run.code == 0, run.stderr
    assert "PreToolUse\n  [Bash] command: " in run.stdout and "guard_rm_rf.sh" in run.stdout
    assert f"from {home}/.claude/settings.json (user)" in run.stdout
    assert "  [*] command: echo done (timeout 5 s) [skipped]" in run.stdout
    assert run.stderr.count("has not been trusted") == 1
    rows = json.loads(yoke("hooks", "--json").stdout)
    assert [(r["event"], r["scope"], r["state"]) for r in rows] == [
        ("PreToolUse", "user", "active"),
        ("Stop", "project", "skipped"),
    ]
    assert yoke("hooks", "--bogus").code == 2
