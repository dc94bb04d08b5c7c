"""Yoke's Python SDK: Anthropic's `claude-agent-sdk` interface, in process, on Yoke's session engine.

    from yoke.sdk import ClaudeAgentOptions, query

    async for message in query(prompt="Fix the failing test", options=ClaudeAgentOptions(cwd="repo")):
        print(message)

Names load on first use, so `import yoke.sdk` is cheap.
"""

from __future__ import annotations

from typing import Any

_TYPES = [
    "TextBlock",
    "ThinkingBlock",
    "ToolUseBlock",
    "ToolResultBlock",
    "ContentBlock",
    "UserMessage",
    "AssistantMessage",
    "SystemMessage",
    "ResultMessage",
    "StreamEvent",
    "Message",
    "PermissionUpdate",
    "ToolPermissionContext",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionResult",
    "CanUseTool",
    "HookCallback",
    "HookMatcher",
    "AgentDefinition",
    "ClaudeAgentOptions",
    "YokeAgentOptions",
]
__all__ = ["ClaudeSDKClient", "query", "tool", "create_sdk_mcp_server", "SdkMcpTool", *_TYPES]


def __getattr__(name: str) -> Any:
    if name in ("ClaudeSDKClient", "query"):
        from yoke.sdk import client

        return getattr(client, name)
    if name in ("tool", "create_sdk_mcp_server", "SdkMcpTool"):
        from yoke.sdk import mcp

        return getattr(mcp, name)
    if name in _TYPES:
        from yoke.sdk import types

        return getattr(types, name)
    raise AttributeError(f"module 'yoke.sdk' has no attribute {name!r}")
