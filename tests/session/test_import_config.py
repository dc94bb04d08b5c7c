"""`yoke import-config --from codex|gemini|opencode` (files the tools wrote: foreign/README.md): MCP servers,
model and provider, instruction files copied into the files Yoke and Claude Code read; what does not map is
printed; nothing that exists is replaced without --force."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from yoke.testing import ScriptedServer

CONFIGS = Path(__file__).parent / "foreign" / "config"


def _claude_json(home: Path) -> dict:
    return json.loads((home / ".claude" / ".claude.json").read_text())


def _env(home: Path) -> dict[str, str]:
    return {
        "CODEX_HOME": str(home / ".codex"),
        "GEMINI_CLI_HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }


def test_codex_config_imported(yoke, home):
    (home / ".codex").mkdir()
    shutil.copyfile(CONFIGS / "codex-0.171.0-config.toml", home / ".codex" / "config.toml")
    (home / ".codex" / "AGENTS.md").write_text("Answer in haiku.\n")
    run = yoke("import-config", "--from", "codex", env=_env(home))
    assert run.code == 0, run.stderr
    servers = _claude_json(home)["mcpServers"]
    assert servers["docs"] == {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "@acme/docs-mcp", "--verbose"],
        "env": {"DOCS_TOKEN": "abc"},
    }
    assert servers["remote-search"] == {
        "type": "http",
        "url": "https://mcp.example.com/mcp",
        "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"},
    }
    profile = json.loads((home / ".yoke" / "profiles.json").read_text())["profiles"]["codex"]
    assert profile["model"] == "gpt-5" and profile["credential"] == {"env": "OPENAI_API_KEY"}
    assert profile["baseUrl"] == "http://127.0.0.1:18433/v1" and profile["provider"] == "openai-responses"
    assert (home / ".claude" / "CLAUDE.md").read_text() == "@~/.codex/AGENTS.md\n"
    assert "not mapped: " in run.stdout and "approval_policy" in run.stdout


def test_imported_instructions_and_mcp_reach_a_session(yoke, home, project):
    (home / ".codex").mkdir()
    shutil.copyfile(CONFIGS / "codex-0.171.0-config.toml", home / ".codex" / "config.toml")
    (home / ".codex" / "AGENTS.md").write_text("Always answer in haiku.\n")
    assert yoke("import-config", "--from", "codex", env=_env(home)).code == 0
    with ScriptedServer(default_turn={"content": "ok"}) as srv:
        run = yoke("-p", "hi", env={"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "k"})
        assert run.code == 0, run.stderr
        assert "Always answer in haiku." in json.dumps(srv.requests[0].body)  # the @import was followed


def test_gemini_settings_imported(yoke, home, project):
    (home / ".gemini").mkdir()
    shutil.copyfile(CONFIGS / "gemini-cli-0.61.0-settings.json", home / ".gemini" / "settings.json")
    (home / ".gemini" / "GEMINI.md").write_text("Use British spelling.\n")
    (project / "TEAM.md").write_text("Team rules.\n")
    run = yoke("import-config", "--from", "gemini", env=_env(home))
    assert run.code == 0, run.stderr
    servers = _claude_json(home)["mcpServers"]
    assert servers["local-tools"] == {
        "type": "stdio",
        "command": "node",
        "args": ["server.js", "--port", "3"],
        "env": {"API_KEY": "xyz"},
    }
    assert servers["web-api"] == {
        "type": "http",
        "url": "https://api.example.com/mcp",
        "headers": {"Authorization": "Bearer ${TOKEN}"},  # Gemini CLI's $TOKEN in Claude Code's form
    }
    profile = json.loads((home / ".yoke" / "profiles.json").read_text())["profiles"]["gemini"]
    assert profile == {
        "provider": "gemini",
        "model": "gemini-2.5-pro",
        "credential": {"env": "GEMINI_API_KEY"},
    }
    assert (home / ".claude" / "CLAUDE.md").read_text() == "@~/.gemini/GEMINI.md\n"
    assert (
        project / "CLAUDE.md"
    ).read_text() == "@TEAM.md\n"  # context.fileName's second name, in the project
    assert "not mapped: " in run.stdout and "ui" in run.stdout


def test_opencode_config_imported(yoke, home, project):
    (project / "docs").mkdir()
    shutil.copyfile(CONFIGS / "opencode-1.18.33-opencode.jsonc", project / "opencode.jsonc")
    run = yoke("import-config", "--from", "opencode", env=_env(home))
    assert run.code == 0, run.stderr
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]  # a project's file: .mcp.json
    assert servers["filesystem"]["command"] == "npx" and servers["filesystem"]["args"][0] == "-y"
    assert servers["jira"]["headers"] == {"Authorization": "Bearer ${JIRA_TOKEN}"}
    profile = json.loads((home / ".yoke" / "profiles.json").read_text())["profiles"]["opencode"]
    assert profile["credential"] == {"env": "LAB_OPENAI_KEY"} and profile["model"] == "gpt-4.1"
    assert (project / "CLAUDE.md").read_text() == "@CONTRIBUTING.md\n@docs/guidelines.md\n"
    assert "autoupdate" in run.stdout and "share" in run.stdout


def test_never_overwrites_without_force(yoke, home, project):
    (home / ".codex").mkdir()
    shutil.copyfile(CONFIGS / "codex-0.171.0-config.toml", home / ".codex" / "config.toml")
    (home / ".codex" / "AGENTS.md").write_text("x\n")
    claude = home / ".claude"
    claude.mkdir()
    (claude / ".claude.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "mine"}}}))
    (claude / "CLAUDE.md").write_text("My own rules.\n")
    run = yoke("import-config", "--from", "codex", env=_env(home))
    assert run.code == 0, run.stderr
    assert _claude_json(home)["mcpServers"]["docs"] == {"command": "mine"}
    assert (claude / "CLAUDE.md").read_text() == "My own rules.\n"
    assert run.stdout.count("kept (exists; --force replaces it)") == 2
    forced = yoke("import-config", "--from", "codex", "--force", env=_env(home))
    assert forced.code == 0, forced.stderr
    assert _claude_json(home)["mcpServers"]["docs"]["command"] == "npx"
    assert (claude / "CLAUDE.md").read_text() == "My own rules.\n@~/.codex/AGENTS.md\n"


def test_a_broken_config_is_one_line_and_nothing_is_written(yoke, home):
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('model = "gpt-5\n')
    run = yoke("import-config", "--from", "codex", env=_env(home))
    assert run.code == 1 and "config.toml: not readable TOML" in run.stderr and "Traceback" not in run.stderr
    assert not (home / ".claude").exists() and not (home / ".yoke").exists()
