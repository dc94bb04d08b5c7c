"""OpenAI Chat Completions (and the many servers compatible with it), spoken directly over httpx.

The internal messages are Anthropic-shaped; they are converted here, at the edge, and the answer is turned
back into the same provider events the Anthropic provider emits (see openai_stream.py).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from typing import Any

from yoke.messages import Block, Message, result_text
from yoke.prefix import PrefixMemo
from yoke.providers.base import ModelRequest, ProviderError, ProviderEvent
from yoke.providers.http import WireCall, run_call
from yoke.providers.http_provider import first_set
from yoke.providers.openai_api import (
    REASONING_MODEL_PREFIXES,
    OpenAIHttpProvider,
    openai_error,
    reasoning_effort,
    should_retry,
)
from yoke.providers.openai_stream import OpenAIAssembler
from yoke.providers.transport import Transport

XAI_BASE_URL = "https://api.x.ai/v1"


class OpenAIProvider(OpenAIHttpProvider):
    name = "openai"
    missing_key_message = (
        "No OpenAI API key · set OPENAI_API_KEY, or set OPENAI_BASE_URL to a server that needs none"
    )

    def __init__(self, **settings: Any) -> None:  # HttpProvider's
        super().__init__(**settings)
        self._windows: dict[str, int] = {}  # model -> context window learnt from a rejection
        self._estimates: PrefixMemo[int] | None = (
            None  # the history's token estimates, once a window is known
        )
        self._wire: PrefixMemo[list[dict[str, Any]]] = PrefixMemo(openai_messages)

    @classmethod
    def for_grok(
        cls, env: Mapping[str, str], *, base_url: str | None = None, transport: Transport | None = None
    ) -> OpenAIProvider:
        """xAI's Grok over its OpenAI-compatible API: XAI_API_KEY (or GROK_API_KEY), GROK_BASE_URL or
        XAI_BASE_URL (default https://api.x.ai/v1)."""
        settings = cls.env_settings(env, transport=transport)
        settings["api_key"] = first_set(env, ("XAI_API_KEY", "GROK_API_KEY"))
        settings["base_url"] = base_url or first_set(env, ("GROK_BASE_URL", "XAI_BASE_URL")) or XAI_BASE_URL
        provider = cls(**settings)
        provider.name = "grok"
        if not provider.api_key:
            raise ProviderError("authentication", "No xAI API key · set XAI_API_KEY (or GROK_API_KEY)")
        return provider

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        return self._stream(request)

    async def _stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        from yoke.providers.openai_budget import (
            after_rejection,
            fitted,
            is_budget_rejection,
            window_in_error,
        )
        from yoke.providers.tokens import estimate_memo

        window = self._windows.get(request.model)  # a window learnt earlier
        if window and self._estimates is None:
            self._estimates = estimate_memo()
        request = fitted(request, window, self._estimates)
        try:
            async with aclosing(self._call(request)) as events:
                async for event in events:
                    yield event
        except ProviderError as exc:
            # "prompt plus max_tokens exceed the window": learn the window (from the error, else from the
            # server's /models listing) and ask once more with a budget that fits
            if not is_budget_rejection(exc):
                raise
            window = window_in_error(exc) or await self._window(request.model)
            if window:
                self._windows[request.model] = window
            smaller = after_rejection(request, exc, window)
            if smaller is None:
                raise
            async with aclosing(self._call(smaller)) as events:  # the 400 came before any output
                async for event in events:
                    yield event

    async def _window(self, model: str) -> int | None:
        """The model's context window as the server's /models listing gives it (None: it does not say)."""
        if self.is_openai_api:
            return None
        from yoke.providers.openai_budget import window_from_models
        from yoke.providers.transport import ConnectionFailure, HttpRequest

        try:
            response = await self.transport.send(
                HttpRequest(f"{self.base_url}/models", self._headers(), {}, False, method="GET")
            )
        except (ConnectionFailure, ProviderError, OSError):
            return None
        return window_from_models(response.json(), model) if response.ok else None

    def _call(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        return run_call(self.transport, self.retry, self.wire_call(request), request.stream)

    def wire_call(self, request: ModelRequest) -> WireCall:
        return WireCall(
            url=f"{self.base_url}/chat/completions",
            headers=self._headers(),
            body_for=lambda stream: build_request_body(request, stream, self.is_openai_api, self._wire),
            new_assembler=lambda: OpenAIAssembler(request.model, frozenset(t.name for t in request.tools)),
            error_for=lambda response: openai_error(
                response, request.model, self.base_url, bool(self.api_key)
            ),
            connection_hint="check OPENAI_BASE_URL and that the server is running",
            should_retry=should_retry,
            encoder=self._encoder,
        )


# ---- request conversion --------------------------------------------------------------------------------


def build_request_body(
    request: ModelRequest,
    stream: bool,
    openai_api: bool,
    memo: PrefixMemo[list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """The Chat Completions body. `memo` (the provider's) keeps the converted form of the history's leading
    messages from earlier requests, so each request converts (and encodes) only what is new."""
    body: dict[str, Any] = {
        "model": request.model,
        "messages": to_openai_messages(request.system, request.messages, memo),
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
            }
            for t in request.tools
        ]
    # OpenAI's own API renamed the limit (reasoning models reject the old name); compatible servers
    # mostly know only the old one.
    body["max_completion_tokens" if openai_api else "max_tokens"] = request.max_tokens
    reasoning_model = openai_api and request.model.startswith(REASONING_MODEL_PREFIXES)
    if request.temperature is not None and not reasoning_model:
        body["temperature"] = request.temperature
    effort = reasoning_effort(request) if request.effort else None
    if effort:  # any server: the model table says the model takes it (OpenRouter, Azure serve these too)
        body["reasoning_effort"] = effort
    elif reasoning_model and request.thinking_budget:
        budget = request.thinking_budget
        body["reasoning_effort"] = "low" if budget <= 4096 else "medium" if budget <= 16384 else "high"
    if request.stop_sequences:
        body["stop"] = list(request.stop_sequences)
    body["stream"] = stream
    if stream:
        body["stream_options"] = {"include_usage": True}
    return body


def to_openai_messages(
    system: list[Block], messages: list[Message], memo: PrefixMemo[list[dict[str, Any]]] | None = None
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    system_text = "\n\n".join(b.get("text", "") for b in system if b.get("type") == "text" and b.get("text"))
    if system_text:
        out.append({"role": "system", "content": system_text})
    for converted in memo.values(messages) if memo is not None else map(openai_messages, messages):
        out.extend(converted)
    return out


def openai_messages(message: Message) -> list[dict[str, Any]]:
    """One history message as Chat Completions messages (a user message's tool results become several)."""
    if message["role"] == "assistant":
        return [_assistant_message(message["content"])]
    return _user_messages(message["content"])


def _assistant_message(content: str | list[Block]) -> dict[str, Any]:
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    text = "\n".join(b.get("text", "") for b in content if b.get("type") == "text" and b.get("text"))
    calls = [
        {
            "id": b["id"],
            "type": "function",
            "function": {
                "name": b["name"],
                "arguments": json.dumps(b.get("input") or {}, ensure_ascii=False),
            },
        }
        for b in content
        if b.get("type") == "tool_use"
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text or (None if calls else "")}
    if calls:
        message["tool_calls"] = calls
    return message


def _user_messages(content: str | list[Block]) -> list[dict[str, Any]]:
    """Tool results become `tool` messages (which must directly follow the assistant's calls); whatever
    else the user message holds follows as one user message."""
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    out: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for block in content:
        kind = block.get("type")
        if kind == "tool_result":
            text = result_text(block.get("content", ""))
            out.append({"role": "tool", "tool_call_id": block.get("tool_use_id", ""), "content": text})
        elif kind == "text" and block.get("text"):
            parts.append({"type": "text", "text": block["text"]})
        elif kind == "image":
            parts.append({"type": "image_url", "image_url": {"url": _image_url(block)}})
        elif kind == "document":
            parts.append({"type": "text", "text": "[document]"})
    if parts:
        if all(p["type"] == "text" for p in parts):
            out.append({"role": "user", "content": "\n\n".join(p["text"] for p in parts)})
        else:
            out.append({"role": "user", "content": parts})
    return out


def _image_url(block: Block) -> str:
    source = block.get("source") or {}
    if source.get("type") == "url":
        return str(source.get("url", ""))
    return f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
