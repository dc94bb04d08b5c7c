"""Pieces of the MCP client that need no server: configuration, expansion, approval, tool search."""

from __future__ import annotations

import json

from yoke.mcp.config import expand, load_config, parse_server
from yoke.tools.builtin import builtin_tools
from yoke.tools.registry import ToolRegistry


def test_specs_keep_builtins_lazy():
    registry = ToolRegistry(builtin_tools())
    registry.specs()
    assert all(t._real is None for t in registry if hasattr(t, "_real"))  # nothing was imported for deferral


def test_expansion_rules():
    missing: list[str] = []
    env = {"A": "1", "EMPTY": ""}
    assert expand("${A}/${B:-two}/${EMPTY}/${C}", env, missing) == "1/two//${C}"
    assert missing == ["C"]


def test_entry_checks():
    assert parse_server("x", {"url": "http://h"}, "flag", "", {}).type == "url_missing_type"
    assert parse_server("x", {"type": "grpc", "url": "h"}, "flag", "", {}).type == "unknown_type"
    assert parse_server("bad name", {"command": "x"}, "flag", "", {}).type == "invalid_config"
    assert parse_server("x", {"type": "streamable-http", "url": "http://h"}, "flag", "", {}).type == "http"


def test_precedence_and_approval(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (project / ".git").mkdir()
    env = {"HOME": str(home), "YOKE_HOME": str(home / ".yoke")}
    key = str(project.resolve())
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "mcpServers": {"same": {"command": "user"}, "u": {"command": "u"}},
                "projects": {key: {"mcpServers": {"same": {"command": "local"}}}},
            }
        )
    )
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"p": {"command": "p"}, "q": {"command": "q"}}})
    )
    config = load_config(project, {"enabledMcpjsonServers": ["p"], "disabledMcpjsonServers": ["q"]}, env=env)
    assert config.servers["same"].command == "local" and config.servers["same"].scope == "local"
    assert set(config.servers) == {"same", "u", "p"}
    assert set(config.rejected) == {"q"}
    policy = load_config(project, {"deniedMcpServers": [{"serverName": "u"}]}, env=env)
    assert "u" in policy.rejected and "u" not in policy.servers
