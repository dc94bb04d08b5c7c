"""The parts without a server: definitions as Claude Code's schema has them, a plugin's lspServers in each
of its forms, the defaults found on PATH, the framing's bounds, what counts as new, the note's cap."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest

from yoke.lsp.config import builtin_servers, parse_servers
from yoke.lsp.diagnostics import FileReport, model_note, new_problems, summary
from yoke.lsp.rpc import MAX_BODY, ProtocolError, frame, read_frame
from yoke.plugins.plugin import load_plugin


def test_definitions_that_do_not_fit_are_left_out_with_a_warning():
    warnings: list[str] = []
    raw = {
        "ok": {
            "command": "srv",
            "args": ["--stdio"],
            "extensionToLanguage": {"py": "python"},
            "maxRestarts": 0,
        },
        "spaced": {"command": "my srv", "extensionToLanguage": {".x": "x"}},
        "nolang": {"command": "srv"},
        "socket": {"command": "srv", "extensionToLanguage": {".x": "x"}, "transport": "socket"},
        "badtime": {"command": "srv", "extensionToLanguage": {".x": "x"}, "startupTimeout": -1},
    }
    specs = parse_servers(raw, "settings.json", warnings)
    assert [s.name for s in specs] == ["ok"]
    assert specs[0].extensions == {".py": "python"} and specs[0].max_restarts == 0
    assert len(warnings) == 4 and all("not started" in w for w in warnings)


def test_a_plugins_servers_in_each_form(tmp_path):
    root = tmp_path / "p"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".lsp.json").write_text(json.dumps({"a": {"command": "a"}}))
    (root / "more.json").write_text(json.dumps({"b": {"command": "b"}}))
    manifest = {"name": "p", "lspServers": ["./more.json", {"c": {"command": "${CLAUDE_PLUGIN_ROOT}/c"}}]}
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    plugin = load_plugin(root, tmp_path / "data")
    configs = plugin.expand(plugin.lsp_configs())
    assert sorted(configs) == ["a", "b", "c"]
    assert configs["c"]["command"] == f"{root}/c"


def test_builtin_defaults_are_found_on_path_one_per_language(tmp_path):
    for program in ("pylsp", "pyright-langserver", "gopls"):
        path = tmp_path / program
        path.write_text("#!/bin/sh\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    found = {s.name: s for s in builtin_servers({"PATH": str(tmp_path)})}
    assert sorted(found) == ["gopls", "pyright"]  # pyright before pylsp for Python
    assert builtin_servers({"PATH": str(tmp_path / "empty")}) == []


async def _read(data: bytes):
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return await read_frame(reader)


async def test_frames_are_bounded_and_must_be_json():
    assert await _read(frame({"a": 1})) == {"a": 1}
    assert await _read(b"") is None
    with pytest.raises(ProtocolError):
        await _read(b"Content-Length: %d\r\n\r\n" % (MAX_BODY + 1))
    with pytest.raises(ProtocolError):
        await _read(b"Content-Length: 3\r\n\r\nabc")
    with pytest.raises(ProtocolError):
        await _read(b"X: " + b"y" * 9000 + b"\r\n\r\n")


def _diag(message: str, severity: int = 1, line: int = 0) -> dict:
    start = {"line": line, "character": 0}
    return {"message": message, "severity": severity, "range": {"start": start, "end": start}}


def test_new_means_not_there_before_wherever_it_moved_and_warnings_only_when_asked():
    before = [_diag("old", line=1)]
    after = [_diag("old", line=5), _diag("new"), _diag("warn", severity=2)]
    assert [d["message"] for d in new_problems(before, after, False)] == ["new"]
    assert [d["message"] for d in new_problems(before, after, True)] == ["new", "warn"]


def test_the_note_is_capped_and_the_summary_is_one_line():
    report = FileReport(Path("/p/a.py"), new=[_diag(f"e{i}", line=i) for i in range(5)])
    note = model_note([report], Path("/p"), max_items=2)
    assert note.count("\u2718") == 2 and "... and 3 more" in note
    assert summary([report]) == "5 new errors: e0"
    assert summary([FileReport(Path("/p/a.py"), unavailable="x is still starting")]).endswith(
        "still starting"
    )


def test_doctor_lists_the_servers_and_where_they_come_from(tmp_path):
    from yoke.config.settings import load_settings
    from yoke.session.doctor import language_server_checks

    home, project = tmp_path / "home", tmp_path / "p"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    server = {"mine": {"command": "my-server", "extensionToLanguage": {".zz": "zz"}}}
    (home / ".claude" / "settings.json").write_text(json.dumps({"lspServers": server}))
    (tmp_path / "bin").mkdir()
    gopls = tmp_path / "bin" / "gopls"
    gopls.write_text("#!/bin/sh\n")
    gopls.chmod(0o755)
    env = {"HOME": str(home), "PATH": str(tmp_path / "bin"), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
    checks = language_server_checks(load_settings(project, home=home), project, env)
    found = {c.label: c.detail for c in checks}
    assert found["mine"].startswith("my-server (.zz;") and "settings.json" in found["mine"]
    assert found["gopls"] == f"{gopls} (.go; builtin)"


def test_a_second_definition_of_an_extension_is_said_and_the_first_wins(tmp_path):
    from types import SimpleNamespace

    from yoke.lsp.config import by_extension
    from yoke.session.language_servers import server_specs

    def source(servers):
        return SimpleNamespace(scope="user", label="settings.json", data={"lspServers": servers})  # noqa: E731

    settings = SimpleNamespace(
        sources=[source({"one": {"command": "a", "extensionToLanguage": {".q": "q"}}}),
                 source({"two": {"command": "b", "extensionToLanguage": {".q": "q", ".r": "r"}}})],
        merged={"lsp": {"builtinServers": False}},
    )  # fmt: skip
    warnings: list[str] = []
    specs = server_specs(settings, [], {"PATH": ""}, warnings)
    table = by_extension(specs)
    assert (table[".q"].name, table[".r"].name) == ("one", "two")
    assert warnings == ["language server two is not used for .q files: one is"]


def test_what_the_model_is_offered_is_what_the_tool_takes():
    from yoke.lsp.offer import ENTRY
    from yoke.lsp.tool import LspTool
    from yoke.tools.lazy import LazyTool, manifest_entry

    assert json.loads(json.dumps(manifest_entry(LspTool()))) == ENTRY  # as a manifest stores it
    assert LazyTool(ENTRY).input_schema() == LspTool().input_schema()
