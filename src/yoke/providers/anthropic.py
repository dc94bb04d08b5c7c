"""The Anthropic Messages API, spoken directly over httpx (the `anthropic` package is slow to import)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from yoke.messages import Block, Message
from yoke.prefix import PrefixMemo
from yoke.providers.anthropic_stream import AnthropicAssembler
from yoke.providers.base import ModelRequest, ProviderError
from yoke.providers.history import foreign_to_anthropic, sanitize_for_anthropic
from yoke.providers.http import (
    USER_AGENT,
    WireCall,
    missing_key_error,
    one_line,
    prompt_too_long_message,
)
from yoke.providers.http_provider import HttpProvider, access_error, parse_custom_headers, status_error
from yoke.providers.transport import HttpResponse, Transport

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
MAX_CACHE_BREAKPOINTS = 4
UNCACHEABLE_BLOCKS = ("thinking", "redacted_thinking")


class AnthropicProvider(HttpProvider):
    name = "anthropic"
    default_base_url = DEFAULT_BASE_URL
    key_vars = ("ANTHROPIC_API_KEY",)
    base_url_vars = ("ANTHROPIC_BASE_URL",)

    def __init__(
        self,
        *,
        auth_token: str | None = None,
        extra_headers: Mapping[str, str] | None = None,
        **settings: Any,
    ) -> None:
        super().__init__(**settings)  # HttpProvider's: api_key, base_url, retry, transport, api_timeout
        self.auth_token = auth_token or None
        self._wire = wire_memo()
        self.extra_headers = dict(extra_headers or {})

    @classmethod
    def env_settings(
        cls, env: Mapping[str, str], *, base_url: str | None = None, transport: Transport | None = None
    ) -> dict[str, Any]:
        """Also ANTHROPIC_AUTH_TOKEN and ANTHROPIC_CUSTOM_HEADERS."""
        settings = super().env_settings(env, base_url=base_url, transport=transport)
        settings["auth_token"] = env.get("ANTHROPIC_AUTH_TOKEN")
        settings["extra_headers"] = parse_custom_headers(env.get("ANTHROPIC_CUSTOM_HEADERS", ""))
        return settings

    def wire_call(self, request: ModelRequest) -> WireCall:
        return WireCall(
            url=f"{self.base_url}/v1/messages",
            headers=self._headers(),
            body_for=lambda stream: build_request_body(request, stream, self._wire),
            new_assembler=lambda: AnthropicAssembler(request.model),
            error_for=lambda response: self.error_for(response, request.model),
            connection_hint="check ANTHROPIC_BASE_URL and your network",
            encoder=self._encoder,
        )

    def _headers(self) -> dict[str, str]:
        headers = {
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
            "user-agent": USER_AGENT,
        }
        if self.api_key:
            headers["x-api-key"] = self.api_key
        elif self.auth_token:
            headers["authorization"] = f"Bearer {self.auth_token}"
        elif urlsplit(self.base_url).hostname == urlsplit(DEFAULT_BASE_URL).hostname:
            raise ProviderError(
                "authentication",
                "No Anthropic API key · set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), "
                "or choose another provider with --provider",
            )
        headers.update(self.extra_headers)
        return headers

    def error_for(self, response: HttpResponse, model: str) -> ProviderError:
        key_var = "ANTHROPIC_API_KEY" if self.api_key or not self.auth_token else "ANTHROPIC_AUTH_TOKEN"
        if not self.api_key and not self.auth_token:
            key_var = ""  # no key at all: say that, not that a key was wrong
        return anthropic_error(
            response.status, response.json(), response.text(), model, self.base_url, key_var
        )


def anthropic_error(
    status: int, body: Any, text: str, model: str, base_url: str, key_var: str = "ANTHROPIC_API_KEY"
) -> ProviderError:
    """One clear line for a failed Anthropic response (shared with the Bedrock/Vertex provider)."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        error_type = str(error.get("type") or "")
        message = one_line(str(error.get("message") or error_type or text))
    else:
        error_type, message = "", one_line(text) or "no details"
    lowered = message.lower()
    if status == 401 and not key_var:
        return missing_key_error("ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)", status)
    if status == 401:
        return ProviderError("authentication", f"Invalid API key · check {key_var} ({message})", status)
    if (denied := access_error(status, message, model, base_url)) is not None:
        return denied
    if status == 413 or "prompt is too long" in lowered or error_type == "request_too_large":
        return ProviderError("prompt_too_long", prompt_too_long_message(message), status)
    if status == 429:
        return ProviderError("rate_limit", f"Rate limited by the API (429): {message}", status)
    if status == 529 or error_type == "overloaded_error":
        return ProviderError("overloaded", f"The API is overloaded ({status}): {message}", status)
    return status_error(status, message)


# ---- request body --------------------------------------------------------------------------------------


def wire_message(message: Message) -> Message:
    """A history message as the Messages API takes it."""
    content = message["content"]
    if isinstance(content, str):
        # String content goes out as one text block, always: a prompt then has the same bytes whether or not
        # it carries a cache breakpoint this turn, so each request's prefix is the previous request's.
        return {**message, "content": [{"type": "text", "text": content}]}
    return message


def cache_marks(message: Message) -> int:
    """The cache_control marks a wire message already carries."""
    return sum("cache_control" in b for b in message["content"])


FOREIGN, MARKS = 0, 1  # the wire memo's tallies: messages another provider's thinking is in, cache marks


def wire_memo() -> PrefixMemo[Message]:
    """The provider's memo of the history's wire form, with what the request body needs to know of it."""
    return PrefixMemo(wire_message, tallies=(foreign_to_anthropic, cache_marks))


def build_request_body(
    request: ModelRequest, stream: bool, memo: PrefixMemo[Message] | None = None
) -> dict[str, Any]:
    """The Messages API body for a request, with prompt-caching breakpoints; never mutates `request`.
    `memo` (the provider's) keeps the wire form of the history's leading messages from earlier requests."""
    system = [dict(b) for b in request.system if not _is_empty_text(b)]
    tools = [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools
    ]
    if memo is None:
        memo = wire_memo()
    messages = list(memo.values(request.messages))
    marks = memo.total(MARKS)
    if memo.total(FOREIGN):  # rare: a history from another provider that a switch did not convert
        messages = [wire_message(m) for m in sanitize_for_anthropic(request.messages)]
        marks = sum(map(cache_marks, messages))
    place_cache_breakpoints(system, tools, messages, marks)
    body: dict[str, Any] = {"model": request.model, "max_tokens": request.max_tokens, "messages": messages}
    if system:
        body["system"] = system
    if tools:
        body["tools"] = tools
    thinking = None
    if request.thinking_budget is not None:
        # The API requires budget < max_tokens and takes no temperature with thinking on; the newest
        # models take no budget at all, only adaptive thinking.
        from yoke.providers.effort import thinking_body

        thinking = thinking_body(
            request.model, request.thinking_budget, request.max_tokens, request.thinking_display
        )
    if thinking is not None:
        body["thinking"] = thinking
    if request.temperature is not None and (thinking is None or thinking["type"] == "disabled"):
        body["temperature"] = request.temperature
    if request.stop_sequences:
        body["stop_sequences"] = list(request.stop_sequences)
    if request.effort:
        from yoke.providers.effort import effort_for

        level = effort_for(request.model, request.effort)
        if level:  # models without effort refuse the field
            body["output_config"] = {"effort": level}
    body["stream"] = stream
    return body


USER_TURN_BREAKPOINTS = 2  # the latest user turn and the one before: the next request then reads both


def place_cache_breakpoints(
    system: list[Block], tools: list[dict[str, Any]], messages: list[Message], in_messages: int | None = None
) -> None:
    """Mark the last content block of the last two user messages, the last system block and the last tool as
    cache breakpoints, in that order of value, within the API's limit of four (counting any already present;
    `in_messages`, those in `messages`, when the caller knows).

    `system` and `tools` must be fresh copies (they are edited in place); in `messages` only marked messages
    are replaced, by copies, so the caller's history is untouched.
    """
    if in_messages is None:
        in_messages = sum(cache_marks(wire_message(m)) for m in messages)
    present = sum("cache_control" in b for b in system) + sum("cache_control" in t for t in tools)
    budget = MAX_CACHE_BREAKPOINTS - present - in_messages
    marked = 0
    for index in range(len(messages) - 1, -1, -1):
        if budget <= 0 or marked >= USER_TURN_BREAKPOINTS:
            break
        if messages[index]["role"] != "user":
            continue
        outcome = _mark_last_block(messages, index)
        if outcome != "none":
            marked += 1
            budget -= outcome == "added"
    for group in (system, tools):
        if budget > 0 and group and "cache_control" not in group[-1]:
            group[-1]["cache_control"] = {"type": "ephemeral"}
            budget -= 1


def _mark_last_block(messages: list[Message], index: int) -> str:
    """Put a breakpoint on the message's last cacheable block: "added", "present" (the caller placed one),
    or "none" (nothing in it can carry one)."""
    message = messages[index]
    content = message["content"]
    blocks: list[dict[str, Any]] = (
        [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    )
    for i in range(len(blocks) - 1, -1, -1):
        block = blocks[i]
        if "cache_control" in block:
            return "present"
        if block.get("type") in UNCACHEABLE_BLOCKS or _is_empty_text(block):
            continue
        blocks[i] = {**block, "cache_control": {"type": "ephemeral"}}
        messages[index] = {**message, "content": blocks}  # type: ignore[typeddict-item]
        return "added"
    return "none"


def _is_empty_text(block: Block) -> bool:
    return block.get("type") == "text" and not str(block.get("text", "")).strip()
