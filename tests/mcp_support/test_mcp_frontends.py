"""MCP servers through every way in: both SDKs' `mcp_servers` option (claude-agent-sdk drives the `yoke`
command, `yoke.sdk` runs in process), the `mcp_status` control request, and an ACP client's mcpServers."""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path

import pytest
from tests.conftest import anthropic_env
from tests.mcp_support.helpers import stdio_entry, text, tool_use

from yoke.testing import ScriptedServer

YOKE = str(Path(sys.executable).parent / "yoke")


@pytest.mark.parametrize("sdk_name", ["claude_agent_sdk", "yoke.sdk"])
async def test_sdk_mcp_servers_option(sdk_name, project, home):
    sdk = (
        pytest.importorskip(sdk_name) if sdk_name == "claude_agent_sdk" else importlib.import_module(sdk_name)
    )
    turns = [tool_use("mcp__t__add", {"a": 1, "b": 2}), text("3")]
    with ScriptedServer(turns) as srv:
        env = {
            **anthropic_env(srv),
            "YOKE_HOME": str(home / ".yoke"),
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        }
        opts = sdk.ClaudeAgentOptions(
            cli_path=YOKE,
            cwd=str(project),
            env=env,
            mcp_servers={"t": stdio_entry()},
            allowed_tools=["mcp__t"],
        )
        messages = []
        async with sdk.ClaudeSDKClient(options=opts) as client:
            status = await client.get_mcp_status() if hasattr(client, "get_mcp_status") else None
            await client.query("add")
            async for message in client.receive_response():
                messages.append(message)
    init = next(m for m in messages if type(m).__name__ == "SystemMessage" and m.subtype == "init")
    assert init.data["mcp_servers"] == [{"name": "t", "status": "connected"}]
    assert messages[-1].result == "3" and not messages[-1].is_error
    if status is not None:
        servers = status["mcpServers"] if isinstance(status, dict) else status.mcp_servers
        assert [s["name"] if isinstance(s, dict) else s.name for s in servers] == ["t"]


async def test_acp_client_mcp_servers(project, base_env):
    import acp
    from acp import schema
    from tests.protocols.test_acp import RecordingClient, start, stop

    entry = stdio_entry()
    server = schema.McpServerStdio(name="t", command=entry["command"], args=entry["args"], env=[])
    turns = [tool_use("mcp__t__echo", {"text": "via acp"}), text("done")]
    client = RecordingClient("allow_once")
    with ScriptedServer(turns) as srv:
        proc, conn = await start(client, {**base_env, **anthropic_env(srv)}, project)
        try:
            init = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            assert init.agent_capabilities.mcp_capabilities.http
            session = await conn.new_session(cwd=str(project), mcp_servers=[server])
            await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("echo")])
        finally:
            await stop(proc, conn)
    done = [u for u in client.of("tool_call_update") if u.status == "completed"]
    assert any("echo: via acp" in str(u.content) for u in done)


async def test_official_sdk_toggles_and_reconnects_a_server(project, home):
    sdk = pytest.importorskip("claude_agent_sdk")
    turns = [text("first"), text("second"), text("third")]
    with ScriptedServer(turns) as srv:
        env = {
            **anthropic_env(srv),
            "YOKE_HOME": str(home / ".yoke"),
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        }
        opts = sdk.ClaudeAgentOptions(
            cli_path=YOKE, cwd=str(project), env=env, mcp_servers={"t": stdio_entry()}
        )
        async with sdk.ClaudeSDKClient(options=opts) as client:
            await client.query("one")
            _ = [m async for m in client.receive_response()]
            await client.toggle_mcp_server("t", False)
            disabled = await client.get_mcp_status()
            await client.query("two")
            _ = [m async for m in client.receive_response()]
            await client.toggle_mcp_server("t", True)
            await client.reconnect_mcp_server("t")
            for _attempt in range(100):  # the server comes back up in the background
                status = await client.get_mcp_status()
                if status["mcpServers"][0]["status"] == "connected":
                    break
                await asyncio.sleep(0.1)
            await client.query("three")
            _ = [m async for m in client.receive_response()]
            with pytest.raises(Exception, match="no MCP server"):
                await client.reconnect_mcp_server("nope")
        bodies = [r.body for r in srv.requests]
    names = [{t["name"] for t in b.get("tools", [])} for b in bodies]
    assert disabled["mcpServers"][0]["status"] == "disabled"
    assert "mcp__t__add" in names[0] and "mcp__t__add" not in names[1] and "mcp__t__add" in names[2]
    assert status["mcpServers"][0]["status"] == "connected"
