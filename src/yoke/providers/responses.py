"""The OpenAI Responses API (`POST /responses`), the one OpenAI's reasoning models and tools are built for.

Used statelessly: `store: false`, the whole conversation sent each time (no `previous_response_id`), and
reasoning items kept between turns by asking for `include: ["reasoning.encrypted_content"]` and passing
them back. In the history a reasoning item is a thinking block (its summary as the text) whose signature is
`openai-responses:{"encrypted_content": …}` (see history.py). Configured like the Chat Completions provider
(OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL); chosen with `--provider openai-responses`, or automatically
for models OpenAI serves only here (flagged in models.json).
"""

from __future__ import annotations

import json
from typing import Any

from yoke.jsonsafe import loads as safe_json
from yoke.messages import Block, Message, result_text
from yoke.prefix import PrefixMemo
from yoke.providers.base import ModelRequest
from yoke.providers.history import untagged
from yoke.providers.http import WireCall
from yoke.providers.openai_api import (
    REASONING_MODEL_PREFIXES,
    OpenAIHttpProvider,
    openai_error,
    reasoning_effort,
    should_retry,
)
from yoke.providers.responses_stream import ORIGIN, ResponsesAssembler


class ResponsesProvider(OpenAIHttpProvider):
    name = "openai-responses"
    history_key = "input"
    missing_key_message = "No OpenAI API key · set OPENAI_API_KEY, or choose another provider with --provider"

    def __init__(self, **settings: Any) -> None:  # HttpProvider's
        super().__init__(**settings)
        # the history's items and their JSON are kept across requests (yoke/prefix.py, providers/encode.py)
        self._wire: PrefixMemo[list[dict[str, Any]]] = PrefixMemo(responses_items)

    def wire_call(self, request: ModelRequest) -> WireCall:
        return WireCall(
            url=f"{self.base_url}/responses",
            headers=self._headers(),
            body_for=lambda stream: build_request_body(request, stream, self._wire),
            new_assembler=lambda: ResponsesAssembler(request.model),
            error_for=lambda response: openai_error(
                response, request.model, self.base_url, bool(self.api_key)
            ),
            connection_hint="check OPENAI_BASE_URL and your network",
            should_retry=should_retry,
            encoder=self._encoder,
        )


def is_reasoning_model(model: str) -> bool:
    from yoke.providers.pricing import normalize_model

    return normalize_model(model).startswith((*REASONING_MODEL_PREFIXES, "codex"))


def _effort(request: ModelRequest) -> str | None:
    """The session's effort as `reasoning.effort`: the model table's answer, or for a reasoning model the
    table does not list, the level within low..high."""
    if not request.effort:
        return None
    chosen = reasoning_effort(request)
    if chosen is None and is_reasoning_model(request.model):
        from yoke.providers.effort import fit_level

        chosen = fit_level(request.effort, ("low", "medium", "high"))
    return chosen


def build_request_body(
    request: ModelRequest, stream: bool, memo: PrefixMemo[list[dict[str, Any]]] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": request.model, "input": to_responses_input(request.messages, memo)}
    instructions = "\n\n".join(
        b.get("text", "") for b in request.system if b.get("type") == "text" and b.get("text")
    )
    if instructions:
        body["instructions"] = instructions
    if request.tools:
        body["tools"] = [
            {"type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema}
            for t in request.tools
        ]
    body["max_output_tokens"] = request.max_tokens
    chosen = _effort(request)
    reasoning = chosen is not None or is_reasoning_model(request.model)
    if reasoning:
        effort = chosen or "medium"
        if not chosen and request.thinking_budget:
            budget = request.thinking_budget
            effort = "low" if budget <= 4096 else "medium" if budget <= 16384 else "high"
        body["reasoning"] = {"effort": effort, "summary": "auto"}
        body["include"] = ["reasoning.encrypted_content"]
    elif request.temperature is not None:
        body["temperature"] = request.temperature
    body["store"] = False
    body["stream"] = stream
    return body


def to_responses_input(
    messages: list[Message], memo: PrefixMemo[list[dict[str, Any]]] | None = None
) -> list[dict[str, Any]]:
    """The history as input items. With `memo`, the items of the leading messages an earlier request shared
    are reused, not converted again (and the same objects let the body encoder match them at once)."""
    items: list[dict[str, Any]] = []
    for converted in memo.values(messages) if memo is not None else map(responses_items, messages):
        items.extend(converted)
    return items


def responses_items(message: Message) -> list[dict[str, Any]]:
    """One history message as Responses API input items."""
    content = message["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    return _assistant_items(blocks) if message["role"] == "assistant" else _user_items(blocks)


def _assistant_items(blocks: list[Block]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "thinking":
            opaque = untagged(str(block.get("signature") or ""), ORIGIN)
            if opaque is None:
                continue  # another provider's reasoning: unreadable here
            item: dict[str, Any] = {"type": "reasoning", "summary": []}
            if block.get("thinking"):
                item["summary"] = [{"type": "summary_text", "text": block["thinking"]}]
            try:
                item.update(safe_json(opaque))
            except ValueError:
                continue
            items.append(item)
        elif kind == "text" and block.get("text"):
            items.append(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": block["text"]}],
                }
            )
        elif kind == "tool_use":
            arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
            items.append(
                {
                    "type": "function_call",
                    "call_id": block["id"],
                    "name": block["name"],
                    "arguments": arguments,
                }
            )
    return items


def _user_items(blocks: list[Block]) -> list[dict[str, Any]]:
    outputs: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "tool_result":
            text = result_text(block.get("content", ""))
            outputs.append(
                {"type": "function_call_output", "call_id": block.get("tool_use_id", ""), "output": text}
            )
            content = block.get("content")
            if isinstance(content, list):
                parts.extend(_image(b) for b in content if b.get("type") == "image")
        elif kind == "text" and block.get("text"):
            parts.append({"type": "input_text", "text": block["text"]})
        elif kind == "image":
            parts.append(_image(block))
        elif kind == "document":
            parts.append({"type": "input_text", "text": "[document]"})
    if parts:
        outputs.append({"role": "user", "content": parts})
    return outputs


def _image(block: Block) -> dict[str, Any]:
    source = block.get("source") or {}
    if source.get("type") == "url":
        return {"type": "input_image", "image_url": str(source.get("url", ""))}
    url = f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
    return {"type": "input_image", "image_url": url}
