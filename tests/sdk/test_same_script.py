"""One script, two SDKs: Anthropic's `claude-agent-sdk` driving the `yoke` command, and `yoke.sdk` in
process. Only the import differs; what the script sees must be the same."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from yoke.testing import ScriptedServer

YOKE = str(Path(sys.executable).parent / "yoke")
SDKS = ["claude_agent_sdk", "yoke.sdk"]


def load(name: str) -> Any:
    return pytest.importorskip(name) if name == "claude_agent_sdk" else importlib.import_module(name)


def options(sdk: Any, srv: Any, project: Path, home: Path, **kwargs: Any) -> Any:
    env = {
        "ANTHROPIC_BASE_URL": srv.url,
        "ANTHROPIC_API_KEY": "sk-test",
        "YOKE_HOME": str(home / ".yoke"),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
    }
    return sdk.ClaudeAgentOptions(cli_path=YOKE, cwd=str(project), env=env, **kwargs)


def shape(messages: list[Any]) -> list[str]:
    out = []
    for m in messages:
        name = type(m).__name__
        if name == "AssistantMessage" or name == "UserMessage" and isinstance(m.content, list):
            name += ":" + type(m.content[0]).__name__
        elif name == "SystemMessage":
            name += ":" + m.subtype
        out.append(name)
    return out


TURNS = [
    {
        "content": [
            {
                "type": "tool_use",
                "id": "toolu_w1",
                "name": "Write",
                "input": {"file_path": "FILE_A", "content": "a"},
            },
            {
                "type": "tool_use",
                "id": "toolu_w2",
                "name": "Write",
                "input": {"file_path": "FILE_B", "content": "b"},
            },
        ]
    },
    {"content": [{"type": "text", "text": "first done"}]},
    {"content": [{"type": "text", "text": "second answer"}]},
]


async def script(sdk: Any, srv: Any, project: Path, home: Path) -> dict[str, Any]:
    """Multi-turn client with a can_use_tool that denies one write and rewrites the other."""
    asked: list[str] = []

    async def can_use_tool(name: str, input: dict, context: Any) -> Any:
        asked.append(input["file_path"])
        if input["file_path"].endswith("a.txt"):
            return sdk.PermissionResultDeny(message="not that one")
        return sdk.PermissionResultAllow(updated_input={**input, "content": "rewritten"})

    opts = options(sdk, srv, project, home, can_use_tool=can_use_tool, system_prompt="Be terse.")
    first: list[Any] = []
    second: list[Any] = []
    async with sdk.ClaudeSDKClient(options=opts) as client:
        await client.query("write both")
        first = [m async for m in client.receive_response()]
        await client.query("and now?")
        second = [m async for m in client.receive_response()]
    return {"first": first, "second": second, "asked": asked}


@pytest.mark.parametrize("sdk_name", SDKS)
async def test_same_script_both_sdks(sdk_name, project, home):
    sdk = load(sdk_name)
    a, b = project / "a.txt", project / "b.txt"
    turns = [dict(t) for t in TURNS]
    turns[0] = {
        "content": [
            {**turns[0]["content"][0], "input": {"file_path": str(a), "content": "a"}},
            {**turns[0]["content"][1], "input": {"file_path": str(b), "content": "b"}},
        ]
    }
    with ScriptedServer(turns) as srv:
        out = await script(sdk, srv, project, home)
        second_request = srv.requests[1].body
    # Over the CLI, 2.1.330 writes `system/permission_denied` for the denied call (and no status line
    # without partial messages).
    denial = ["SystemMessage:permission_denied"] if sdk_name == "claude_agent_sdk" else []
    assert shape(out["first"]) == [
        "SystemMessage:init",
        "AssistantMessage:ToolUseBlock",
        "AssistantMessage:ToolUseBlock",
        *denial,
        "UserMessage:ToolResultBlock",
        "UserMessage:ToolResultBlock",
        "AssistantMessage:TextBlock",
        "ResultMessage",
    ]
    denials = [m for m in out["first"] if shape([m]) == ["SystemMessage:permission_denied"]]
    assert all(m.data["tool_name"] == "Write" and "not that one" in m.data["message"] for m in denials)
    out["first"] = [m for m in out["first"] if m not in denials]
    assert shape(out["second"])[-2:] == ["AssistantMessage:TextBlock", "ResultMessage"]
    result = out["first"][-1]
    assert result.subtype == "success" and result.result == "first done" and result.is_error is False
    assert (
        result.num_turns == 3 and result.total_cost_usd is not None and result.usage["input_tokens"] > 0
    )  # two results + the answer, as 2.1.330 counts
    denied, allowed = out["first"][3].content[0], out["first"][4].content[0]
    assert denied.is_error is True and "not that one" in str(denied.content)
    assert not allowed.is_error
    assert not a.exists() and b.read_text() == "rewritten"
    assert out["asked"] == [str(a), str(b)]
    assert out["second"][-1].result == "second answer"
    assert out["first"][1].parent_tool_use_id is None
    assert second_request["system"][0]["text"] == "Be terse."


@pytest.mark.parametrize("sdk_name", SDKS)
async def test_interrupt_both_sdks(sdk_name, project, home):
    sdk = load(sdk_name)
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_s", "name": "Bash", "input": {"command": "sleep 30"}}]}
    ]
    with ScriptedServer(turns) as srv:
        opts = options(sdk, srv, project, home, permission_mode="bypassPermissions")
        async with sdk.ClaudeSDKClient(options=opts) as client:
            await client.query("wait")
            messages = []

            async def interrupt_when_running() -> None:
                while not any(type(m).__name__ == "AssistantMessage" for m in messages):
                    await asyncio.sleep(0.05)
                await asyncio.sleep(0.3)
                await client.interrupt()

            task = asyncio.create_task(interrupt_when_running())
            async for message in client.receive_response():
                messages.append(message)
            await task
    result = messages[-1]
    assert type(result).__name__ == "ResultMessage"
    assert result.subtype == "error_during_execution" and result.is_error is True


@pytest.mark.parametrize("sdk_name", SDKS)
async def test_python_hook_callback_blocks_both_sdks(sdk_name, project, home):
    sdk = load(sdk_name)
    seen: list[dict] = []

    async def guard(input: dict, tool_use_id: str | None, context: Any) -> dict:
        seen.append(input)
        if "rm -rf" in input["tool_input"].get("command", ""):
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "no recursive deletes",
                }
            }
        return {}

    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_rm", "name": "Bash", "input": {"command": "rm -rf build"}}
            ]
        },
        {"content": [{"type": "text", "text": "refused"}]},
    ]
    (project / "build").mkdir()
    with ScriptedServer(turns) as srv:
        opts = options(
            sdk,
            srv,
            project,
            home,
            permission_mode="bypassPermissions",
            hooks={"PreToolUse": [sdk.HookMatcher(matcher="Bash", hooks=[guard])]},
        )
        messages = [m async for m in sdk.query(prompt="clean up", options=opts)]
    assert (project / "build").exists()
    result = next(m for m in messages if type(m).__name__ == "UserMessage")
    assert result.content[0].is_error and "no recursive deletes" in str(result.content[0].content)
    assert seen[0]["hook_event_name"] == "PreToolUse" and seen[0]["tool_name"] == "Bash"
    assert messages[-1].result == "refused"


async def test_official_sdk_context_usage_and_unknown_requests(project, home):
    sdk = load("claude_agent_sdk")
    with ScriptedServer([{"content": [{"type": "text", "text": "hi"}]}]) as srv:
        async with sdk.ClaudeSDKClient(options=options(sdk, srv, project, home)) as client:
            await client.query("hello")
            _ = [m async for m in client.receive_response()]
            usage = await client.get_context_usage()
            with pytest.raises(Exception, match="no running task"):
                await client.stop_task("nope")
    names = [c["name"] for c in usage["categories"]]
    assert names[:3] == ["System prompt", "System tools", "Messages"]
    assert 0 < usage["totalTokens"] < usage["maxTokens"] and usage["model"].startswith("claude")


async def test_rewind_files_puts_back_what_the_session_changed(project, home):
    from yoke.session import SessionOptions, open_session

    target = project / "notes.txt"
    target.write_text("before\n")
    turns = [
        {"content": [{"type": "tool_use", "id": "r", "name": "Read", "input": {"file_path": str(target)}}]},
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "w",
                    "name": "Write",
                    "input": {"file_path": str(target), "content": "after\n"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "changed"}]},
    ]
    env = {"HOME": str(home), "YOKE_HOME": str(home / ".yoke"), "PATH": __import__("os").environ["PATH"]}
    with ScriptedServer(turns) as srv:
        env.update({"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-test"})
        session = await open_session(SessionOptions(cwd=project, env=env, permission_mode="acceptEdits"))
        try:
            _ = [e async for e in session.query("change it")]
            prompt_uuid = session.agent.recorder.last_prompt_uuid
            assert target.read_text() == "after\n"
            assert session.rewind_files(prompt_uuid) == [target]
        finally:
            await session.close()
    assert target.read_text() == "before\n"


@pytest.mark.parametrize("sdk_name", SDKS)
async def test_in_process_mcp_tool_both_sdks(sdk_name, project, home):
    """`create_sdk_mcp_server` tools live in the program's process: the official SDK's CLI reaches them
    with mcp_message control requests, yoke.sdk directly."""
    sdk = load(sdk_name)
    calls: list[dict] = []

    @sdk.tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict) -> dict:
        calls.append(args)
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    server = sdk.create_sdk_mcp_server(name="calc", version="1.0.0", tools=[add])
    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_add", "name": "mcp__calc__add", "input": {"a": 2, "b": 40}}
            ]
        },
        {"content": [{"type": "text", "text": "It is 42."}]},
    ]
    with ScriptedServer(turns) as srv:
        opts = options(
            sdk, srv, project, home, mcp_servers={"calc": server}, allowed_tools=["mcp__calc__add"]
        )
        messages = [m async for m in sdk.query(prompt="add them", options=opts)]
        tools = {t["name"] for t in srv.requests[0].body["tools"]}
        second = srv.requests[1].body["messages"]
    assert "mcp__calc__add" in tools
    assert calls == [{"a": 2, "b": 40}]
    assert "42" in json.dumps(second[-1])
    assert messages[-1].result == "It is 42."


@pytest.mark.parametrize("sdk_name", SDKS)
async def test_effort_option_reaches_the_model_both_sdks(sdk_name, project, home):
    sdk = load(sdk_name)
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        opts = options(sdk, srv, project, home, model="claude-opus-4-6", effort="max")
        messages = [m async for m in sdk.query(prompt="hi", options=opts)]
        body = srv.requests[0].body
    assert messages[-1].result == "ok"
    assert body["output_config"] == {"effort": "max"}


QUESTION = {
    "question": "Which database?",
    "header": "Database",
    "multiSelect": False,
    "options": [
        {"label": "SQLite", "description": "a file"},
        {"label": "Postgres", "description": "a server"},
    ],
}


@pytest.mark.parametrize("sdk_name", SDKS)
async def test_questions_and_plan_approval_through_can_use_tool(sdk_name, project, home):
    """AskUserQuestion and ExitPlanMode reach `can_use_tool` as Claude Code sends them: the answers go back in
    `updated_input["answers"]`, and a `setMode` update on the approved plan picks the mode after it."""
    sdk = load(sdk_name)
    target = project / "out.txt"
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_q", "name": "AskUserQuestion",
                      "input": {"questions": [QUESTION]}}]},
        {"content": [{"type": "tool_use", "id": "toolu_p", "name": "ExitPlanMode",
                      "input": {"plan": "1. write out.txt"}}]},
        {"content": [{"type": "tool_use", "id": "toolu_w", "name": "Write",
                      "input": {"file_path": str(target), "content": "x"}}]},
        {"content": [{"type": "text", "text": "done"}]},
    ]  # fmt: skip
    asked: list[str] = []

    async def can_use_tool(name: str, input: dict, context: Any) -> Any:
        asked.append(name)
        if name == "AskUserQuestion":
            return sdk.PermissionResultAllow(
                updated_input={**input, "answers": {"Which database?": "Postgres"}}
            )
        if name == "ExitPlanMode":
            accept = sdk.PermissionUpdate(type="setMode", mode="acceptEdits", destination="session")
            return sdk.PermissionResultAllow(updated_input=input, updated_permissions=[accept])
        return sdk.PermissionResultDeny(message="not asked for")

    with ScriptedServer(turns) as srv:
        opts = options(sdk, srv, project, home, can_use_tool=can_use_tool, permission_mode="plan")
        async with sdk.ClaudeSDKClient(options=opts) as client:
            await client.query("plan it")
            messages = [m async for m in client.receive_response()]
        bodies = [r.body for r in srv.requests]
    assert messages[-1].result == "done"
    assert asked == ["AskUserQuestion", "ExitPlanMode"]  # the Write ran in acceptEdits, unasked
    answered = json.dumps(bodies[1]["messages"][-1])
    assert '\\"Which database?\\"=\\"Postgres\\"' in answered, answered
    assert '"is_error": true' not in json.dumps(bodies[2]["messages"][-1])
    assert target.read_text() == "x"


@pytest.mark.parametrize("sdk_name", SDKS)
async def test_a_background_agent_and_its_follow_up_both_sdks(sdk_name, project, home):
    """The Agent tool runs a sub-agent in the background (as 2.1.330 does); its completion notice starts a
    follow-up query whose messages reach the SDK after the launching turn's result, in process as over
    the CLI."""
    from tests.agents.test_background_wait import quick_router

    sdk = load(sdk_name)
    router = quick_router()
    with ScriptedServer(default_turn=router) as srv:
        opts = options(sdk, srv, project, home, permission_mode="bypassPermissions")
        messages = [m async for m in sdk.query(prompt="delegate", options=opts)]
    results = [m.result for m in messages if type(m).__name__ == "ResultMessage"]
    assert results == ["launched", "after the notice"]
    assert "quick answer" in json.dumps(router.seen["delegate"][-1]["messages"][-1])
