"""The operations front-ends reach the core through (`session/admin/`, `session/views.py`), called in process
as another front-end would: plain values in, data or one `AdminError` line out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yoke.session.admin import AdminError, plugins
from yoke.session.admin import mcp as servers
from yoke.session.views import edit_preview, permission_mode_name


@pytest.fixture
def isolated(monkeypatch, home: Path, project: Path) -> Path:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("YOKE_HOME", str(home / ".yoke"))
    monkeypatch.chdir(project)
    return project


def test_an_mcp_server_is_added_found_and_removed_in_claude_codes_files(isolated: Path, home: Path):
    entry = {"type": "stdio", "command": "server-bin", "args": ["--flag"], "env": {}}
    path = servers.add_server("project", "tools", entry, isolated)
    assert path == isolated / ".mcp.json"
    assert json.loads(path.read_text())["mcpServers"]["tools"] == entry
    local = servers.add_server(
        "local", "mine", {"type": "http", "url": "https://example.invalid/mcp"}, isolated
    )
    assert local == home / ".claude" / ".claude.json"
    assert "mine" in json.loads(local.read_text())["projects"][str(isolated.resolve())]["mcpServers"]
    with pytest.raises(AdminError, match='"tools" already exists in project scope'):
        servers.add_server("project", "tools", entry, isolated)
    assert servers.find_server("tools", isolated).command == "server-bin"
    assert servers.remove_server("tools", None, isolated) == ("project", isolated / ".mcp.json")
    with pytest.raises(AdminError, match='no MCP server named "tools" in any scope'):
        servers.remove_server("tools", None, isolated)


def test_a_broken_mcp_file_is_one_line_and_left_as_it_was(isolated: Path):
    (isolated / ".mcp.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(AdminError) as failure:
        servers.add_server("project", "tools", {"command": "x"}, isolated)
    assert "\n" not in str(failure.value) and "fix or move the file first" in str(failure.value)
    assert (isolated / ".mcp.json").read_text(encoding="utf-8") == "{broken"


def test_an_invalid_server_entry_is_refused_before_any_file_is_written(isolated: Path):
    with pytest.raises(AdminError):
        servers.add_server("project", "tools", {"type": "http"}, isolated)  # no url
    assert not (isolated / ".mcp.json").exists()


def test_validating_an_empty_folder_says_what_is_missing(isolated: Path, tmp_path: Path):
    empty = tmp_path / "empty-plugin"
    empty.mkdir()
    with pytest.raises(AdminError, match="no .claude-plugin/plugin.json and no plugin components"):
        plugins.validate(empty)
    assert plugins.installed(isolated) == []


def test_an_edit_preview_is_the_hunk_the_edit_would_make(tmp_path: Path):
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    hunks = edit_preview(
        "Edit", {"file_path": "a.txt", "old_string": "two", "new_string": "2"}, str(tmp_path)
    )
    assert [line for hunk in hunks for line in hunk["lines"]] == [" one", "-two", "+2", " three"]
    assert (
        edit_preview("Edit", {"file_path": "a.txt", "old_string": "absent", "new_string": "x"}, str(tmp_path))
        == []
    )
    assert permission_mode_name("manual") == "default"
