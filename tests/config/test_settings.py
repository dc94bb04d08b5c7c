"""Settings files read from disk, file by file: precedence, merging, malformed files, isolation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yoke.config.settings import load_settings, local_settings_path, merge_settings


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home = tmp_path / "home"
    project = tmp_path / "proj"
    managed = tmp_path / "etc" / "managed-settings.json"
    for folder in (home, project, managed.parent):
        folder.mkdir(parents=True)
    monkeypatch.delenv("YOKE_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return {"home": home, "project": project, "managed": managed}


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def load(env: dict[str, Path], **kw):  # type: ignore[no-untyped-def]
    return load_settings(env["project"], home=env["home"], managed_paths=[env["managed"]], **kw)


# Every level, highest first, each setting `model` and one allow rule.
LEVELS = [
    ("managed", lambda e: e["managed"]),
    ("flag", None),
    ("yoke-local", lambda e: e["project"] / ".yoke" / "settings.local.json"),
    ("claude-local", lambda e: e["project"] / ".claude" / "settings.local.json"),
    ("yoke-project", lambda e: e["project"] / ".yoke" / "settings.json"),
    ("claude-project", lambda e: e["project"] / ".claude" / "settings.json"),
    ("yoke-user", lambda e: e["home"] / ".yoke" / "settings.json"),
    ("claude-user", lambda e: e["home"] / ".claude" / "settings.json"),
]


@pytest.mark.parametrize("winner", range(len(LEVELS)), ids=[name for name, _ in LEVELS])
def test_each_level_outranks_the_ones_below(env: dict[str, Path], winner: int) -> None:
    flag = None
    for index, (name, where) in enumerate(LEVELS):
        if index < winner:
            continue  # higher levels stay silent
        data = {"model": name, "permissions": {"allow": [f"Bash(echo {name})"]}}
        if where is None:
            flag = json.dumps(data)
        else:
            write(where(env), data)
    loaded = load(env, flag_settings=flag)
    assert loaded.merged["model"] == LEVELS[winner][0]
    expected = [f"Bash(echo {name})" for name, _ in LEVELS[winner:]]
    assert loaded.merged["permissions"]["allow"] == expected  # lists concatenate, highest first
    assert loaded.warnings == []


def test_scopes_and_base_dirs_are_recorded(env: dict[str, Path]) -> None:
    write(env["project"] / ".claude" / "settings.json", {"a": 1})
    write(env["home"] / ".claude" / "settings.json", {"b": 2})
    loaded = load(env)
    scopes = {s.scope: s for s in loaded.sources}
    assert scopes["project"].base_dir == env["project"].resolve()
    assert scopes["user"].base_dir == env["home"] / ".claude"
    assert scopes["project"].path == env["project"].resolve() / ".claude" / "settings.json"


def test_objects_merge_key_by_key(env: dict[str, Path]) -> None:
    write(
        env["home"] / ".claude" / "settings.json",
        {"env": {"A": "user", "B": "user"}, "sandbox": {"enabled": True}},
    )
    write(env["project"] / ".claude" / "settings.json", {"env": {"A": "project"}})
    merged = load(env).merged
    assert merged["env"] == {"A": "project", "B": "user"}
    assert merged["sandbox"] == {"enabled": True}


def test_merge_dedupes_and_keeps_whole_list_exceptions() -> None:
    merged = merge_settings(
        [{"availableModels": ["a"], "x": [1, 2]}, {"availableModels": ["b"], "x": [2, 3]}]
    )
    assert merged["availableModels"] == ["a"]
    assert merged["x"] == [1, 2, 3]


def test_invalid_json_is_one_warning_and_ignored(env: dict[str, Path]) -> None:
    bad = write(env["project"] / ".claude" / "settings.json", '{"permissions": {"allow": ["Bash"],}')
    write(env["home"] / ".claude" / "settings.json", {"permissions": {"deny": ["WebFetch"]}})
    loaded = load(env)
    assert len(loaded.warnings) == 1
    assert str(bad) in loaded.warnings[0] and "invalid JSON at line 1" in loaded.warnings[0]
    assert "\n" not in loaded.warnings[0]
    assert loaded.merged["permissions"] == {"deny": ["WebFetch"]}  # nothing from the broken file


def test_non_object_file_is_ignored(env: dict[str, Path]) -> None:
    write(env["project"] / ".claude" / "settings.json", "[1, 2]")
    loaded = load(env)
    assert loaded.merged == {}
    assert "expected a JSON object" in loaded.warnings[0]


def test_mistyped_key_is_dropped_rest_kept(env: dict[str, Path]) -> None:
    write(env["managed"], {"permissions": {"allow": "Bash", "deny": ["Bash(rm *)"]}, "model": "m"})
    loaded = load(env)
    assert loaded.merged["permissions"] == {"deny": ["Bash(rm *)"]}  # the deny list survives the typo
    assert loaded.merged["model"] == "m"
    assert "permissions.allow" in loaded.warnings[0]


def test_empty_file_is_fine(env: dict[str, Path]) -> None:
    write(env["project"] / ".claude" / "settings.json", "  \n")
    loaded = load(env)
    assert loaded.warnings == [] and loaded.merged == {}


def test_unreadable_file_warns(env: dict[str, Path]) -> None:
    (env["project"] / ".claude" / "settings.json").mkdir(parents=True)  # a directory where a file belongs
    loaded = load(env)
    assert "cannot be read" in loaded.warnings[0]


def test_flag_settings_file_and_errors(env: dict[str, Path]) -> None:
    path = write(env["project"] / "extra.json", {"model": "from-file"})
    loaded = load(env, flag_settings="extra.json")
    assert loaded.merged["model"] == "from-file"
    assert loaded.source("flag")[0].base_dir == env["project"].resolve()
    missing = load(env, flag_settings="nope.json")
    assert "does not exist" in missing.warnings[0]
    bad = load(env, flag_settings="{not json")
    assert bad.warnings[0].startswith("--settings: invalid JSON")
    assert path.exists()


def test_setting_sources_restricts_levels(env: dict[str, Path]) -> None:
    write(env["managed"], {"m": 1})
    write(env["home"] / ".claude" / "settings.json", {"u": 1})
    write(env["project"] / ".claude" / "settings.json", {"p": 1})
    write(env["project"] / ".claude" / "settings.local.json", {"l": 1})
    assert load(env, setting_sources=[]).merged == {"m": 1}
    assert load(env, setting_sources=["project"]).merged == {"m": 1, "p": 1}
    assert load(env, setting_sources=["user", "local"]).merged == {"m": 1, "u": 1, "l": 1}
    assert "unknown source" in load(env, setting_sources=["bogus"]).warnings[0]


def test_env_vars_move_homes(env: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("YOKE_HOME", str(tmp_path / "yh"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    write(tmp_path / "yh" / "settings.json", {"y": 1})
    write(tmp_path / "cc" / "settings.json", {"c": 1})
    write(env["home"] / ".claude" / "settings.json", {"ignored": 1})
    loaded = load(env)
    assert loaded.merged == {"y": 1, "c": 1}
    assert loaded.yoke_home == tmp_path / "yh"


def test_managed_drop_ins_override_main_file(env: dict[str, Path]) -> None:
    write(env["managed"], {"model": "main", "permissions": {"deny": ["A"]}})
    write(
        env["managed"].parent / "managed-settings.d" / "10-a.json",
        {"model": "a", "permissions": {"deny": ["B"]}},
    )
    write(env["managed"].parent / "managed-settings.d" / "20-b.json", {"model": "b"})
    merged = load(env).merged
    assert merged["model"] == "b"
    assert sorted(merged["permissions"]["deny"]) == ["A", "B"]


def test_local_settings_live_at_the_git_root(env: dict[str, Path]) -> None:
    (env["project"] / ".git").mkdir()
    sub = env["project"] / "pkg"
    sub.mkdir()
    write(env["project"] / ".claude" / "settings.local.json", {"local": True})
    write(sub / ".claude" / "settings.json", {"project": True})
    loaded = load_settings(sub, home=env["home"], managed_paths=[])
    assert loaded.merged == {"local": True, "project": True}
    assert local_settings_path(sub) == env["project"] / ".claude" / "settings.local.json"


def test_a_mistyped_model_setting_is_dropped_with_a_warning(env: dict[str, Path]) -> None:
    write(env["project"] / ".claude" / "settings.json", {"model": "opus", "fallbackModel": 7, "provider": ""})
    write(env["home"] / ".claude" / "settings.json", {"fallbackModel": "haiku"})
    loaded = load(env)
    assert loaded.merged["model"] == "opus"
    assert loaded.merged["fallbackModel"] == "haiku"  # the user's good value survives the project's typo
    assert "provider" not in loaded.merged
    assert sorted(w.split("`")[1] for w in loaded.warnings) == ["fallbackModel", "provider"]
