"""`yoke mcp add|add-json|list|get|remove|serve` as a user runs them: the files Claude Code writes."""

from __future__ import annotations

import json
import os
import sys

from tests.mcp_support.helpers import PY, SERVER


def claude_json(home):
    return json.loads((home / ".claude" / ".claude.json").read_text())


def test_add_scopes_write_claude_codes_files(yoke, project, home):
    run = yoke("mcp", "add", "loc", "-e", "K=v", "--", PY, SERVER, "stdio")
    assert run.code == 0, run.stderr
    entry = claude_json(home)["projects"][str(project.resolve())]["mcpServers"]["loc"]
    assert entry == {"type": "stdio", "command": PY, "args": [SERVER, "stdio"], "env": {"K": "v"}}
    run = yoke(
        "mcp", "add", "-s", "project", "-t", "http", "web", "http://127.0.0.1:9/mcp", "-H", "X-Key: abc"
    )
    assert run.code == 0, run.stderr
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["web"] == {
        "type": "http",
        "url": "http://127.0.0.1:9/mcp",
        "headers": {"X-Key": "abc"},
    }
    run = yoke("mcp", "add-json", "-s", "user", "u", json.dumps({"command": PY, "args": [SERVER, "stdio"]}))
    assert run.code == 0 and "u" in claude_json(home)["mcpServers"]
    again = yoke("mcp", "add", "loc", "--", "x")
    assert again.code == 1 and "already exists" in again.stderr
    bad = yoke("mcp", "add-json", "bad", "{nope")
    assert bad.code == 1 and "not valid JSON" in bad.stderr and "Traceback" not in bad.stderr


def test_list_connects_and_get_remove(yoke, project, home):
    yoke("mcp", "add", "good", "--", PY, SERVER, "stdio")
    yoke("mcp", "add", "broken", "--", "/nonexistent/server")
    run = yoke("mcp", "list")
    assert run.code == 0, run.stderr
    lines = {line.split(":")[0]: line for line in run.stdout.splitlines() if ":" in line}
    assert "✔ Connected (" in lines["good"] and "tools)" in lines["good"]
    assert "✘ Failed to connect" in lines["broken"]
    got = yoke("mcp", "get", "good")
    assert "Scope: local" in got.stdout and "Type: stdio" in got.stdout
    gone = yoke("mcp", "remove", "good")
    assert (
        gone.code == 0 and "good" not in claude_json(home)["projects"][str(project.resolve())]["mcpServers"]
    )
    missing = yoke("mcp", "get", "good")
    assert missing.code == 1 and "no MCP server" in missing.stderr


def test_add_from_claude_desktop(yoke, home):
    desktop = home / ".config" / "Claude"
    desktop.mkdir(parents=True)
    (desktop / "claude_desktop_config.json").write_text(json.dumps({"mcpServers": {"d": {"command": "x"}}}))
    run = yoke("mcp", "add-from-claude-desktop", "-s", "user")
    assert run.code == 0, run.stderr
    assert claude_json(home)["mcpServers"]["d"] == {"command": "x"}


async def test_serve_applies_permission_rules(project, home):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    (project / "note.txt").write_text("hello\n")
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Write"]}}))
    env = {
        "HOME": str(home),
        "YOKE_HOME": str(home / ".yoke"),
        "PATH": os.environ["PATH"],
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
    }
    params = StdioServerParameters(
        command=os.path.join(os.path.dirname(sys.executable), "yoke"),
        args=["mcp", "serve"],
        cwd=str(project),
        env=env,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
        assert "Read" in names and "Bash" in names and "Write" not in names  # a bare deny hides the tool
        read = await session.call_tool("Read", {"file_path": str(project / "note.txt")})
        assert not read.is_error and "hello" in read.content[0].text
        bash = await session.call_tool("Bash", {"command": f"touch {project / 'made'}"})
        assert bash.is_error and "Permission denied" in bash.content[0].text
    assert not (project / "made").exists()
