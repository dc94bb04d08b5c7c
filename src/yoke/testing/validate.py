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


# ---- model-bound signatures and the newer wire formats -------------------------------------------------

SKIP_SIGNATURE = "skip_thought_signature_validator"
GEMINI_PART_KEYS = {
    "text",
    "thought",
    "thoughtSignature",
    "functionCall",
    "functionResponse",
    "inlineData",
    "fileData",
}


def anthropic_signature_problem(body: dict[str, Any], issued: dict[str, str]) -> str | None:
    """Thinking must carry a signature this server made for this very model; other blocks carry none."""
    model = body.get("model")
    for i, msg in enumerate(body.get("messages") or []):
        content = msg.get("content") if isinstance(msg, dict) else None
        if msg.get("role") != "assistant" or not isinstance(content, list):
            continue
        for j, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "thinking":
                signature = block.get("signature")
                if not signature:
                    return f"messages.{i}.content.{j}.thinking.signature: Field required"
                if ":" in str(signature) or issued.get(str(signature), model) != model:
                    return f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
            elif isinstance(block, dict) and "signature" in block:
                return f"messages.{i}.content.{j}.{kind}.signature: Extra inputs are not permitted"
    return None


def gemini_request_problem(body: dict[str, Any], model: str, issued: dict[str, str]) -> str | None:
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return "* GenerateContentRequest.contents: contents is not specified"
    for i in range(len(contents)):
        problem = _gemini_content_problem(contents, i, model, issued)
        if problem:
            return problem
    return None


def _gemini_content_problem(contents: list[Any], i: int, model: str, issued: dict[str, str]) -> str | None:
    content = contents[i]
    if not isinstance(content, dict) or content.get("role") not in ("user", "model"):
        return f"* GenerateContentRequest.contents[{i}].role: Please use a valid role: user, model."
    parts = content.get("parts")
    if not isinstance(parts, list) or not parts:
        return f"* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty."
    for j, part in enumerate(parts):
        unknown = set(part) - GEMINI_PART_KEYS if isinstance(part, dict) else {"?"}
        if unknown:
            name = sorted(unknown)[0]
            return f"Invalid JSON payload received. Unknown name \"{name}\" at 'contents[{i}].parts[{j}]'"
        signature = part.get("thoughtSignature")
        if signature and signature != SKIP_SIGNATURE and issued.get(signature) != model:
            return f"Corrupted thought signature in contents[{i}].parts[{j}]."
    calls = [p["functionCall"].get("name") for p in parts if "functionCall" in p]
    if content["role"] == "model" and calls:
        first = next(p for p in parts if "functionCall" in p)
        if not first.get("thoughtSignature"):
            return (
                f"Function call is missing a thought_signature in functionCall parts. This is required for "
                f"tools to work correctly (contents[{i}])."
            )
        following = contents[i + 1] if i + 1 < len(contents) else None
        answered = [
            p["functionResponse"].get("name")
            for p in (following or {}).get("parts") or []
            if isinstance(p, dict) and "functionResponse" in p
        ]
        if following is not None and sorted(answered) != sorted(calls):
            return (
                "Please ensure that the number of function response parts is equal to the number of function "
                f"call parts of the function call turn (contents[{i + 1}])."
            )
    responses = [p for p in parts if "functionResponse" in p]
    if responses:
        previous = contents[i - 1] if i else {}
        if previous.get("role") != "model" or not any(
            "functionCall" in p for p in previous.get("parts") or []
        ):
            return (
                "Please ensure that function response turn comes immediately after a function call turn "
                f"(contents[{i}])."
            )
    return None


RESPONSES_ITEM_TYPES = ("message", "function_call", "function_call_output", "reasoning")


def responses_request_problem(body: dict[str, Any], issued: dict[str, str]) -> str | None:
    if not isinstance(body.get("model"), str):
        return "Missing required parameter: 'model'."
    items = body.get("input")
    if isinstance(items, str):
        return None
    if not isinstance(items, list) or not items:
        return "Missing required parameter: 'input'."
    calls: dict[str, int] = {}
    outputs: set[str] = set()
    for i, item in enumerate(items):
        kind = item.get("type") or ("message" if "role" in item else None)
        if kind not in RESPONSES_ITEM_TYPES:
            return f"Invalid value for 'input[{i}].type'."
        if kind == "function_call":
            calls[str(item.get("call_id"))] = i
        elif kind == "function_call_output":
            if str(item.get("call_id")) not in calls:
                return f"No tool call found for function call output with call_id {item.get('call_id')}."
            outputs.add(str(item.get("call_id")))
        elif kind == "reasoning":
            if item.get("id") and body.get("store") is False:
                return (
                    f"Item with id '{item['id']}' not found. Items are not persisted when `store` is set to "
                    "false. Try again with `store` set to true, or remove this item from your input."
                )
            if issued.get(str(item.get("encrypted_content"))) != body["model"]:
                return f"The encrypted content for item input[{i}] could not be verified."
    missing = [c for c in calls if c not in outputs]
    if missing:
        return f"No tool output found for function call {missing[0]}."
    return None
