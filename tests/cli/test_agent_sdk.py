"""The unmodified Claude Agent SDK (Python) drives `yoke` as its CLI (`cli_path=`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from yoke.testing import ScriptedServer

sdk = pytest.importorskip("claude_agent_sdk")

YOKE = str(Path(sys.executable).parent / "yoke")


def options(srv, project: Path, home: Path, **kwargs):
    env = {
        "ANTHROPIC_BASE_URL": srv.url,
        "ANTHROPIC_API_KEY": "sk-test",
        "YOKE_HOME": str(home / ".yoke"),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
    }
    return sdk.ClaudeAgentOptions(cli_path=YOKE, cwd=str(project), env=env, **kwargs)


async def test_query_one_shot(project, home):
    with ScriptedServer([{"content": [{"type": "text", "text": "4"}]}]) as srv:
        messages = [
            m
            async for m in sdk.query(
                prompt="2+2?", options=options(srv, project, home, system_prompt="Be terse.")
            )
        ]
        system = srv.requests[0].body["system"]
    kinds = [type(m).__name__ for m in messages]
    assert kinds == ["SystemMessage", "AssistantMessage", "ResultMessage"]
    assert messages[0].subtype == "init"  # no status line without partial messages, as 2.1.330
    assert messages[-1].result == "4" and messages[-1].is_error is False
    assert system[0]["text"] == "Be terse."


async def test_client_with_can_use_tool(project, home):
    from claude_agent_sdk.types import PermissionResultAllow

    target = project / "notes.txt"
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_w",
                    "name": "Write",
                    "input": {"file_path": str(target), "content": "hi\n"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "done writing"}]},
    ]
    asked = []

    async def can_use_tool(tool, tool_input, context):
        asked.append((tool, tool_input["file_path"]))
        return PermissionResultAllow(updated_input=tool_input)

    with ScriptedServer(turns) as srv:
        opts = options(srv, project, home, can_use_tool=can_use_tool, max_turns=5)
        async with sdk.ClaudeSDKClient(options=opts) as client:
            await client.query("write notes")
            received = [m async for m in client.receive_response()]
    assert asked == [("Write", str(target))]
    assert target.read_text() == "hi\n"
    result = received[-1]
    assert type(result).__name__ == "ResultMessage" and result.result == "done writing"
    tool_results = [b for m in received if type(m).__name__ == "UserMessage" for b in m.content]
    assert tool_results[0].tool_use_id == "toolu_w" and not tool_results[0].is_error


async def test_client_interrupt_stops_a_running_tool(project, home):
    import asyncio

    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_s",
                    "name": "Bash",
                    "input": {"command": "sleep 30; touch late.txt"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "after the interrupt"}]},
    ]
    with ScriptedServer(turns) as srv:
        opts = options(srv, project, home, permission_mode="bypassPermissions")
        async with sdk.ClaudeSDKClient(options=opts) as client:
            await client.query("run the slow thing")
            received = []
            async for message in client.receive_response():
                received.append(message)
                if type(message).__name__ == "AssistantMessage" and any(
                    type(b).__name__ == "ToolUseBlock" for b in message.content
                ):
                    await asyncio.sleep(0.3)
                    await client.interrupt()
            result = received[-1]
            assert type(result).__name__ == "ResultMessage" and result.is_error
            assert result.subtype == "error_during_execution"
            # the session goes on: the next query answers normally
            await client.query("and now?")
            after = [m async for m in client.receive_response()]
    assert after[-1].result == "after the interrupt"
    assert not (project / "late.txt").exists()


async def test_allow_with_a_session_rule_is_not_asked_again(project, home):
    from claude_agent_sdk.types import PermissionResultAllow, PermissionRuleValue, PermissionUpdate

    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": f"toolu_{i}",
                    "name": "Bash",
                    "input": {"command": f"touch f{i}.txt"},
                }
            ]
        }
        for i in range(2)
    ] + [{"content": [{"type": "text", "text": "done"}]}]
    asked = []

    async def can_use_tool(tool, tool_input, context):
        asked.append(tool_input["command"])
        rule = PermissionRuleValue(tool_name="Bash", rule_content="touch:*")
        update = PermissionUpdate(type="addRules", rules=[rule], behavior="allow", destination="session")
        return PermissionResultAllow(updated_input=tool_input, updated_permissions=[update])

    with ScriptedServer(turns) as srv:
        opts = options(srv, project, home, can_use_tool=can_use_tool)
        async with sdk.ClaudeSDKClient(options=opts) as client:
            await client.query("make two files")
            [m async for m in client.receive_response()]
    assert asked == ["touch f0.txt"]  # the second touch matched the session rule
    assert (project / "f0.txt").exists() and (project / "f1.txt").exists()


async def test_slash_command_through_the_sdk(project, home):
    """The SDK loads a project's commands with setting_sources=["project"]; `/name` runs one."""
    command = project / ".claude" / "commands" / "greet.md"
    command.parent.mkdir(parents=True)
    command.write_text("---\ndescription: Greets\n---\nGreet $ARGUMENTS warmly.\n", encoding="utf-8")
    with ScriptedServer([{"content": [{"type": "text", "text": "Hello Ann!"}]}]) as srv:
        opts = options(srv, project, home, setting_sources=["project"])
        messages = [m async for m in sdk.query(prompt="/greet Ann", options=opts)]
        blocks = srv.requests[0].body["messages"][0]["content"]
    init = messages[0]
    assert "greet" in init.data["slash_commands"] and "compact" in init.data["slash_commands"]
    assert blocks[0]["text"].startswith("<command-message>greet</command-message>")
    assert blocks[1]["text"].startswith("Greet Ann warmly.")
    assert messages[-1].result == "Hello Ann!"
