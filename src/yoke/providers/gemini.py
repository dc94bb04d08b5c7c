"""Google's Gemini API natively (`generateContent`, `streamGenerateContent?alt=sse`) over Yoke's HTTP layer.

Configured with GEMINI_API_KEY (sent as `x-goog-api-key`), GEMINI_BASE_URL (default
`https://generativelanguage.googleapis.com/v1beta`) and GEMINI_MODEL. The Anthropic-shaped history is
converted here: tool calls become `functionCall` parts and their results `functionResponse` parts (matched by
name, which Gemini needs, and by id when the model gave one), images `inlineData`, and Gemini's own thought
summaries and thought signatures (kept in the history tagged `gemini:`) go back exactly as received.
Material from other providers (Anthropic's signed thinking) is left out.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any
from urllib.parse import quote

from yoke.messages import Block, Message, result_text
from yoke.prefix import PrefixMemo
from yoke.providers.base import ModelRequest, ProviderError
from yoke.providers.gemini_stream import GeminiAssembler
from yoke.providers.history import untagged
from yoke.providers.http import USER_AGENT, WireCall, one_line, prompt_too_long_message
from yoke.providers.http_provider import HttpProvider, access_error, status_error
from yoke.providers.transport import HttpResponse

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
# Google's documented stand-in for function calls whose signature was lost (history from another model).
SKIP_SIGNATURE = "skip_thought_signature_validator"
# JSON Schema keywords Gemini's OpenAPI-subset schema rejects.
UNSUPPORTED_SCHEMA_KEYS = frozenset(
    {"$schema", "additionalProperties", "$defs", "definitions", "$ref", "$id"}
)


class GeminiProvider(HttpProvider):
    name = "gemini"
    default_base_url = DEFAULT_BASE_URL
    key_vars = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    base_url_vars = ("GEMINI_BASE_URL",)
    history_key = "contents"

    def __init__(self, **settings: Any) -> None:  # HttpProvider's
        super().__init__(**settings)
        # the history's turns and their JSON are kept across requests (yoke/prefix.py, providers/encode.py).
        # A function's response names its function, which the call in an earlier message gave: every call
        # seen is remembered, by id (ids are unique: the model's, or made from the response id).
        self._names: dict[str, str] = {}
        self._wire: PrefixMemo[dict[str, Any] | None] = PrefixMemo(partial(gemini_turn, names=self._names))

    def wire_call(self, request: ModelRequest) -> WireCall:
        endpoint = f"{self.base_url}/models/{quote(request.model.removeprefix('models/'), safe='.-_')}"
        return WireCall(
            url=f"{endpoint}:streamGenerateContent?alt=sse",
            unstreamed_url=f"{endpoint}:generateContent",
            headers=self._headers(),
            body_for=lambda stream: build_request_body(request, self._wire),
            new_assembler=lambda: GeminiAssembler(request.model),
            error_for=lambda response: gemini_error(response, request.model, self.base_url),
            connection_hint="check GEMINI_BASE_URL and your network",
            encoder=self._encoder,
        )

    def _headers(self) -> dict[str, str]:
        if not self.api_key:
            raise ProviderError(
                "authentication",
                "No Gemini API key · set GEMINI_API_KEY, or choose another provider with --provider",
            )
        return {"content-type": "application/json", "user-agent": USER_AGENT, "x-goog-api-key": self.api_key}


def gemini_error(response: HttpResponse, model: str, base_url: str) -> ProviderError:
    status = response.status
    body = response.json()
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(body, list) and body and isinstance(body[0], dict):  # some proxies wrap it in a list
        error = body[0].get("error")
    if isinstance(error, dict):
        message = one_line(str(error.get("message") or error.get("status") or response.text()))
        code = str(error.get("status") or "")
    else:
        message, code = one_line(response.text()) or "no details", ""
    lowered = message.lower()
    if status == 401 or "api key not valid" in lowered or code == "UNAUTHENTICATED":
        return ProviderError("authentication", f"Invalid API key · check GEMINI_API_KEY ({message})", status)
    if (denied := access_error(status, message, model, base_url)) is not None:
        return denied
    if "exceeds the maximum number of tokens" in lowered or "input token count" in lowered:
        return ProviderError("prompt_too_long", prompt_too_long_message(message), status)
    if status == 429:
        return ProviderError("rate_limit", f"Rate limited by the API (429 {code}): {message}", status)
    if status in (503, 529) and "overloaded" in lowered:
        return ProviderError("overloaded", f"The API is overloaded ({status}): {message}", status)
    return status_error(status, message)


# ---- request conversion --------------------------------------------------------------------------------


def build_request_body(
    request: ModelRequest, memo: PrefixMemo[dict[str, Any] | None] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"contents": to_gemini_contents(request.messages, memo)}
    system = "\n\n".join(
        b.get("text", "") for b in request.system if b.get("type") == "text" and b.get("text")
    )
    if system:
        body["systemInstruction"] = {"parts": [{"text": system}]}
    if request.tools:
        declarations = [
            {"name": t.name, "description": t.description, "parameters": clean_schema(t.input_schema)}
            for t in request.tools
        ]
        body["tools"] = [{"functionDeclarations": declarations}]
    config: dict[str, Any] = {"maxOutputTokens": request.max_tokens}
    if request.temperature is not None:
        config["temperature"] = request.temperature
    if request.stop_sequences:
        config["stopSequences"] = list(request.stop_sequences)
    thinking = thinking_config(request)
    if thinking:
        config["thinkingConfig"] = thinking
    body["generationConfig"] = config
    return body


def thinking_config(request: ModelRequest) -> dict[str, Any] | None:
    """Gemini 3 takes `thinkingLevel` (the session's effort fitted to the model's levels; `high` when only a
    thinking budget is asked) and refuses `thinkingBudget`; Gemini 2.5 takes the budget and no level."""
    from yoke.providers.effort import effort_for, thinking_by_level

    if thinking_by_level(request.model):
        level = effort_for(request.model, request.effort) if request.effort else None
        if level is None and request.thinking_budget:
            level = "high"
        if level is None:
            return None
        config: dict[str, Any] = {"thinkingLevel": level}
        if request.thinking_budget:
            config["includeThoughts"] = True
        return config
    if request.thinking_budget:
        return {"thinkingBudget": request.thinking_budget, "includeThoughts": True}
    return None


def to_gemini_contents(
    messages: list[Message], memo: PrefixMemo[dict[str, Any] | None] | None = None
) -> list[dict[str, Any]]:
    """The history as Gemini's contents. With `memo` (over `gemini_turn`), the turns of the leading messages an
    earlier request shared are reused, not converted again."""
    turns = memo.values(messages) if memo is not None else map(partial(gemini_turn, names={}), messages)
    contents: list[dict[str, Any]] = []
    for turn in turns:
        if turn is None:
            continue
        if contents and contents[-1]["role"] == turn["role"]:  # Gemini wants turns to alternate
            merged = contents[-1]
            contents[-1] = {
                "role": merged["role"],
                "parts": merged["parts"] + turn["parts"],
            }  # kept turns stay
        else:
            contents.append(turn)
    return contents


def gemini_turn(message: Message, names: dict[str, str]) -> dict[str, Any] | None:
    """One message as a Gemini turn (None when nothing of it goes to Gemini). `names`: the function name of
    each call id seen so far, which this message's calls are added to and its responses name."""
    content = message["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if message["role"] == "assistant":
        parts = _model_parts(blocks, names)
        role = "model"
    else:
        parts = _user_parts(blocks, names)
        role = "user"
    return {"role": role, "parts": parts} if parts else None


def _model_parts(blocks: list[Block], names: dict[str, str]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    first_call = True
    for block in blocks:
        kind = block.get("type")
        signature = untagged(str(block.get("signature") or ""), "gemini")
        if kind == "text" and block.get("text"):
            part: dict[str, Any] = {"text": block["text"]}
        elif kind == "thinking" and signature is not None:
            part = {"text": block.get("thinking", ""), "thought": True}
        elif kind == "tool_use":
            names[str(block.get("id"))] = str(block.get("name"))
            call = {"name": block.get("name"), "args": block.get("input") or {}}
            if not str(block.get("id", "")).startswith("gemini_"):
                call["id"] = block.get("id")  # an id the model gave is echoed back
            part = {"functionCall": call}
            if signature is None and first_call:
                signature = SKIP_SIGNATURE  # made elsewhere: tell Gemini there is no signature to check
            first_call = False
        else:
            continue
        if signature:
            part["thoughtSignature"] = signature
        parts.append(part)
    return parts


def _user_parts(blocks: list[Block], names: dict[str, str]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "tool_result":
            tool_id = str(block.get("tool_use_id", ""))
            text = result_text(block.get("content", ""))
            key = "error" if block.get("is_error") else "output"
            response: dict[str, Any] = {"name": names.get(tool_id, "unknown_tool"), "response": {key: text}}
            if not tool_id.startswith("gemini_"):
                response["id"] = tool_id
            results.append({"functionResponse": response})
            content = block.get("content")
            if isinstance(content, list):  # images a tool returned follow as parts of their own
                others.extend(_inline(b) for b in content if b.get("type") == "image")
        elif kind == "text" and block.get("text"):
            others.append({"text": block["text"]})
        elif kind in ("image", "document"):
            others.append(_inline(block))
    return results + [p for p in others if p]


def _inline(block: Block) -> dict[str, Any]:
    source = block.get("source") or {}
    if source.get("type") == "base64":
        return {
            "inlineData": {"mimeType": source.get("media_type", "image/png"), "data": source.get("data", "")}
        }
    if source.get("type") == "url":
        return {
            "fileData": {"fileUri": source.get("url", ""), "mimeType": source.get("media_type", "image/png")}
        }
    if source.get("type") == "text":
        return {"text": str(source.get("data", ""))}
    return {}


def clean_schema(schema: Any) -> Any:
    """A tool's JSON Schema without the keywords Gemini's schema subset rejects."""
    if isinstance(schema, dict):
        return {k: clean_schema(v) for k, v in schema.items() if k not in UNSUPPORTED_SCHEMA_KEYS}
    if isinstance(schema, list):
        return [clean_schema(v) for v in schema]
    return schema


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
