"""A plugin installed from a local marketplace (a bare git repository) with the real `yoke plugin` command:
the files Claude Code writes, its command and skill invoked, its hooks/agents/MCP paths exposed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

TEXT = {"content": [{"type": "text", "text": "done"}]}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def marketplace_repo(tmp: Path) -> Path:
    """A marketplace working tree pushed into a bare repository, as a team would publish it."""
    work = tmp / "market-src"
    write(
        work / ".claude-plugin/marketplace.json",
        json.dumps(
            {
                "name": "team-tools",
                "owner": {"name": "Team"},
                "plugins": [{"name": "reviewer", "source": "./plugins/reviewer", "description": "Reviews"}],
            }
        ),
    )
    root = work / "plugins/reviewer"
    write(root / ".claude-plugin/plugin.json", json.dumps({"name": "reviewer", "version": "1.2.0"}))
    write(
        root / "commands/review.md",
        "---\ndescription: Review the change\n---\nReview $ARGUMENTS using "
        "${CLAUDE_PLUGIN_ROOT}/checklist.md; notes in ${CLAUDE_PLUGIN_DATA}.\n",
    )
    write(root / "skills/style/SKILL.md", "---\ndescription: House style rules\n---\nUse the house style.\n")
    write(
        root / "hooks/hooks.json",
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Bash",
                            "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/guard.sh"}],
                        }
                    ]
                }
            }
        ),
    )
    write(root / "agents/critic.md", "---\nname: critic\ndescription: Critiques\n---\nBe critical.\n")
    write(root / ".mcp.json", json.dumps({"mcpServers": {"notes": {"command": "${CLAUDE_PLUGIN_ROOT}/srv"}}}))
    write(root / "checklist.md", "- tests\n")
    git("init", "-q", cwd=work)
    git("add", "-A", cwd=work)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "market", cwd=work)
    bare = tmp / "market.git"
    git("clone", "-q", "--bare", str(work), str(bare), cwd=tmp)
    return bare


def test_install_from_a_local_marketplace_and_use_the_plugin(yoke, project, home, tmp_path):
    bare = marketplace_repo(tmp_path)
    added = yoke("plugin", "marketplace", "add", str(bare))
    assert added.code == 0, added.stderr
    assert "Added marketplace team-tools" in added.stdout
    installed = yoke("plugin", "install", "reviewer@team-tools")
    assert installed.code == 0, installed.stderr

    plugins_dir = home / ".claude/plugins"
    known = json.loads((plugins_dir / "known_marketplaces.json").read_text())
    assert known["team-tools"]["source"] == {"source": "git", "url": str(bare)}
    assert Path(known["team-tools"]["installLocation"]) == plugins_dir / "marketplaces/team-tools"
    record = json.loads((plugins_dir / "installed_plugins.json").read_text())
    assert record["version"] == 2
    entry = record["plugins"]["reviewer@team-tools"][0]
    cache = plugins_dir / "cache/team-tools/reviewer/1.2.0"
    assert entry["scope"] == "user" and entry["version"] == "1.2.0" and Path(entry["installPath"]) == cache
    assert len(entry["gitCommitSha"]) == 40
    settings = json.loads((home / ".claude/settings.json").read_text())
    assert settings["enabledPlugins"] == {"reviewer@team-tools": True}
    assert "reviewer@team-tools  1.2.0  user  enabled" in yoke("plugin", "list").stdout

    turns = [
        TEXT,
        {
            "content": [
                {"type": "tool_use", "id": "toolu_s", "name": "Skill", "input": {"skill": "reviewer:style"}}
            ]
        },
        TEXT,
    ]
    with ScriptedServer(turns) as srv:
        command = yoke("-p", "/reviewer:review the diff", env=anthropic_env(srv))
        skill = yoke("-p", "check the style", env=anthropic_env(srv))
        bodies = [r.body for r in srv.requests]
    assert command.code == 0 and skill.code == 0, command.stderr + skill.stderr
    text = bodies[0]["messages"][0]["content"][1]["text"]
    data_dir = plugins_dir / "data/reviewer-team-tools"
    assert text == f"Review the diff using {cache}/checklist.md; notes in {data_dir}."
    listing = next(t for t in bodies[1]["tools"] if t["name"] == "Skill")["description"]
    assert (
        "- reviewer:style: House style rules" in listing and "- reviewer:review: Review the change" in listing
    )
    assert "Use the house style." in json.dumps(bodies[2]["messages"][-1])

    disabled = yoke("plugin", "disable", "reviewer@team-tools")
    assert disabled.code == 0
    with ScriptedServer([TEXT]) as srv:
        yoke("-p", "/reviewer:review x", env=anthropic_env(srv))
        assert srv.requests[0].body["messages"][0]["content"] in (
            "/reviewer:review x",
            [{"type": "text", "text": "/reviewer:review x", "cache_control": {"type": "ephemeral"}}],
        )
    removed = yoke("plugin", "uninstall", "reviewer@team-tools")
    assert removed.code == 0 and not cache.exists()
    assert (
        "reviewer@team-tools"
        not in json.loads((plugins_dir / "installed_plugins.json").read_text())["plugins"]
    )


def test_plugin_components_for_hooks_agents_and_mcp(tmp_path, home, project, monkeypatch):
    from yoke.plugins import enabled_plugins

    bare = marketplace_repo(tmp_path)
    source = tmp_path / "market-src/plugins/reviewer"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    warnings: list[str] = []
    plugins = enabled_plugins({}, project, plugin_dirs=[str(source)], warnings=warnings)
    assert warnings == [] and [p.name for p in plugins] == ["reviewer"]
    plugin = plugins[0]
    assert plugin.hooks_files() == [source.resolve() / "hooks/hooks.json"]
    hooks = plugin.expand(plugin.hooks_configs()[0])
    assert hooks["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == f"{source.resolve()}/guard.sh"
    assert plugin.agent_files() == [source.resolve() / "agents/critic.md"]
    assert plugin.mcp_files() == [source.resolve() / ".mcp.json"]
    assert plugin.expand(plugin.mcp_configs()) == {"notes": {"command": f"{source.resolve()}/srv"}}
    assert bare.exists()


def test_plugin_dir_flag_and_bad_input(yoke, project, tmp_path):
    marketplace_repo(tmp_path)
    source = tmp_path / "market-src/plugins/reviewer"
    with ScriptedServer([TEXT]) as srv:
        run = yoke("-p", "/reviewer:review now", "--plugin-dir", str(source), env=anthropic_env(srv))
        text = srv.requests[0].body["messages"][0]["content"][1]["text"]
    assert run.code == 0 and text.startswith("Review now using")
    missing = yoke("plugin", "install", "reviewer@nowhere")
    assert missing.code == 1 and "unknown marketplace 'nowhere'" in missing.stderr
    assert "Traceback" not in missing.stderr
    bad = yoke("plugin", "marketplace", "add", str(project))
    assert bad.code == 1 and "has no .claude-plugin/marketplace.json" in bad.stderr


def test_validate(yoke, project, tmp_path):
    marketplace_repo(tmp_path)
    good = yoke("plugin", "validate", str(tmp_path / "market-src/plugins/reviewer"))
    assert good.code == 0 and "Plugin reviewer: 2 command(s)/skill(s), 1 agent(s), valid" in good.stdout
    market = yoke("plugin", "validate", str(tmp_path / "market-src"))
    assert market.code == 0 and "Marketplace team-tools: 1 plugin(s), valid" in market.stdout
    write(project / ".claude-plugin/plugin.json", "{not json")
    bad = yoke("plugin", "validate", str(project))
    assert bad.code == 1 and "invalid JSON at line 1" in bad.stderr and "Traceback" not in bad.stderr
