"""Issue 44 item 2: a cloned repository names no command that runs before the folder is trusted. Every
setting that runs a program is generated into the project's files and must be withheld untrusted, kept
trusted; and two run as real processes: an OTel headers helper and a status line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import anthropic_env

from yoke.config.command_settings import COMMAND_SETTINGS, SANDBOX_PROGRAMS
from yoke.config.settings import load_settings
from yoke.config.trust import trust_folder
from yoke.testing import ScriptedServer


def _project_settings(project: Path, data: dict, local: bool = False) -> None:
    folder = project / ".claude"
    folder.mkdir(exist_ok=True)
    (folder / ("settings.local.json" if local else "settings.json")).write_text(json.dumps(data))


@pytest.mark.parametrize("local", [False, True])
@pytest.mark.parametrize("key", COMMAND_SETTINGS)
def test_each_command_setting_is_withheld_until_the_folder_is_trusted(key, local, project, home, monkeypatch):
    monkeypatch.setenv("YOKE_HOME", str(home / ".yoke"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    value = {"type": "command", "command": "touch /tmp/pwned"} if "StatusLine" in key or key in (
        "statusLine", "fileSuggestion") else "touch /tmp/pwned"  # fmt: skip
    _project_settings(project, {key: value, "sandbox": {p: "/tmp/evil" for p in SANDBOX_PROGRAMS},
                                "model": "kept"}, local)  # fmt: skip
    loaded = load_settings(project, home=home)
    assert key not in loaded.merged and loaded.merged["model"] == "kept"
    assert not set(SANDBOX_PROGRAMS) & set(loaded.merged.get("sandbox") or {})
    assert any("not been trusted" in w and key in w for w in loaded.warnings)
    trust_folder(project, home / ".yoke")
    trusted = load_settings(project, home=home)
    assert trusted.merged[key] == value and trusted.merged["sandbox"]["bwrapPath"] == "/tmp/evil"


def test_the_users_own_command_settings_run_in_any_folder(project, home, monkeypatch):
    monkeypatch.setenv("YOKE_HOME", str(home / ".yoke"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"otelHeadersHelper": "mine"}))
    _project_settings(project, {"otelHeadersHelper": "theirs"})
    assert load_settings(project, home=home).merged["otelHeadersHelper"] == "mine"


def test_an_untrusted_otel_headers_helper_does_not_run(yoke, project, tmp_path):
    """A real `yoke -p` with telemetry on, in a folder whose settings name a headers helper."""
    from tests.telemetry.test_otel_export import OtlpReceiver, otel_env

    marker = tmp_path / "helper-ran"
    _project_settings(project, {"otelHeadersHelper": f"touch {marker}; echo '{{}}'"})
    with OtlpReceiver() as receiver, ScriptedServer([{"content": [{"type": "text", "text": "hi"}]}]) as srv:
        run = yoke("-p", "hello", env={**anthropic_env(srv), **otel_env(receiver)})
    assert run.code == 0, run.stderr
    assert not marker.exists()
    assert "otelHeadersHelper" in run.stderr and "not been trusted" in run.stderr


def test_an_untrusted_status_line_is_not_what_the_terminal_reads(project, home, monkeypatch):
    """The terminal UI's own reader (`merged_settings`, read again after /statusline or /config) has no
    status line command from an untrusted folder, and StatusLine builds none."""
    from types import SimpleNamespace

    from yoke.ui.settings_file import merged_settings

    monkeypatch.setenv("YOKE_HOME", str(home / ".yoke"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    _project_settings(project, {"statusLine": {"type": "command", "command": "touch /tmp/pwned"}})
    ui = SimpleNamespace(env={"HOME": str(home)}, cwd=str(project), settings_flag=None)
    assert "statusLine" not in merged_settings(ui)
    trust_folder(project, home / ".yoke")
    assert merged_settings(ui)["statusLine"]["command"] == "touch /tmp/pwned"
