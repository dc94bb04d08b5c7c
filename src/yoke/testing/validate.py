"""The few request checks the real APIs enforce that a harness most easily gets wrong.

Each function returns None for an acceptable request or the 400 message the real API would give, so a
harness bug (a tool call left without its result, a missing field) fails in tests the way it would live.
"""

from __future__ import annotations

from typing import Any


def anthropic_request_problem(body: dict[str, Any]) -> str | None:
    for name, kind in (("model", str), ("max_tokens", int), ("messages", list)):
        if not isinstance(body.get(name), kind):
            return f"{name}: Field required"
    messages = body["messages"]
    if not messages:
        return "messages: at least one message is required"
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        if not isinstance(msg.get("content"), str | list):
            return f"messages.{i}.content: Field required"
    if messages[0]["role"] != "user":
        return 'messages: first message must use the "user" role'
    for i in range(len(messages)):
        problem = _anthropic_tool_pairing(messages, i)
        if problem:
            return problem
    return None


def openai_request_problem(body: dict[str, Any]) -> str | None:
    if not isinstance(body.get("model"), str):
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' is a required property"
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or msg.get("role") not in (
            "system",
            "developer",
            "user",
            "assistant",
            "tool",
        ):
            return f"Invalid value for 'messages[{i}].role'"
        if msg.get("role") != "assistant" or not msg.get("tool_calls"):
            continue
        wanted = [call.get("id") for call in msg["tool_calls"]]
        answered = set()
        for later in messages[i + 1 :]:
            if later.get("role") != "tool":
                break
            answered.add(later.get("tool_call_id"))
        missing = [w for w in wanted if w not in answered]
        if missing:
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(missing)}"
            )
    return None


def _anthropic_tool_pairing(messages: list[dict[str, Any]], i: int) -> str | None:
    """A tool_use needs its tool_result in the very next message, and a tool_result needs its tool_use."""
    msg = messages[i]
    if msg["role"] == "assistant" and i + 1 < len(messages):
        wanted = _ids(msg, "tool_use", "id")
        following = messages[i + 1]
        missing = [w for w in wanted if w not in _ids(following, "tool_result", "tool_use_id")]
        if wanted and (following["role"] != "user" or missing):
            return (
                f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                f"{', '.join(map(str, missing or wanted))}. Each `tool_use` block must have a corresponding "
                "`tool_result` block in the next message."
            )
    if msg["role"] == "user":
        previous = messages[i - 1] if i else {"role": "user", "content": []}
        offered = _ids(previous, "tool_use", "id") if previous["role"] == "assistant" else []
        unexpected = [r for r in _ids(msg, "tool_result", "tool_use_id") if r not in offered]
        if unexpected:
            return (
                f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{', '.join(map(str, unexpected))}. Each `tool_result` block must have a corresponding "
                "`tool_use` block in the previous message."
            )
    return None


def _ids(msg: dict[str, Any], block_type: str, key: str) -> list[Any]:
    content = msg["content"]
    if not isinstance(content, list):
        return []
    return [b.get(key) for b in content if isinstance(b, dict) and b.get("type") == block_type]
