"""Token accounting: estimates for what has not been sent yet, and the context window per model.

Exact counts come from the API's usage (see `tokens_from_usage`); everything else is estimated cheaply:
prose at 4 bytes per token, JSON (tool inputs, structured results) at 2 bytes per token because its
punctuation tokenizes densely, and a flat 1,600 tokens per image or document.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from yoke.messages import Block, Message
from yoke.prefix import PrefixMemo
from yoke.providers.base import Usage

DEFAULT_CONTEXT_WINDOW = 200_000
ONE_MILLION_WINDOW = 1_000_000
IMAGE_TOKENS = 1_600
MAX_OUTPUT_RESERVE = 20_000  # effective window = window - min(max output, 20K)
DEFAULT_MAX_OUTPUT = 32_000
WINDOW_ENV = "YOKE_MAX_CONTEXT_TOKENS"
_WINDOW_ENV_ALIASES = (WINDOW_ENV, "CLAUDE_CODE_MAX_CONTEXT_TOKENS")
_MAX_OUTPUT_ENV = ("YOKE_MAX_OUTPUT_TOKENS", "CLAUDE_CODE_MAX_OUTPUT_TOKENS")


def estimate_text(text: str) -> int:
    """Prose: bytes / 4, rounded up."""
    return (len(text.encode("utf-8", errors="replace")) + 3) // 4


def estimate_json(value: Any) -> int:
    """JSON: serialized bytes / 2, rounded up."""
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return (len(data.encode("utf-8", errors="replace")) + 1) // 2


def estimate_block(block: Block) -> int:
    kind = block.get("type")
    if kind == "text":
        return estimate_text(block.get("text", ""))
    if kind == "thinking":
        return estimate_text(block.get("thinking", "")) + estimate_text(block.get("signature", "")) // 4
    if kind == "redacted_thinking":
        return estimate_text(block.get("data", ""))
    if kind in ("image", "document"):
        return IMAGE_TOKENS
    if kind == "tool_use":
        return estimate_text(block.get("name", "")) + estimate_json(block.get("input", {}))
    if kind == "tool_result":
        return 4 + estimate_content(block.get("content", ""))
    return estimate_json(block)


def estimate_content(content: str | list[Block]) -> int:
    if isinstance(content, str):
        return estimate_text(content)
    return sum(estimate_block(b) for b in content)


def estimate_message(message: Message) -> int:
    """A message's tokens. Uncached: what estimates a history every turn keeps a `yoke.prefix.PrefixMemo`
    of this, so only new messages are estimated and a message that leaves the history is not kept alive."""
    return 4 + estimate_content(message["content"])  # a few tokens of role framing


def _itself(tokens: int) -> int:
    return tokens


def estimate_memo() -> PrefixMemo[int]:
    """Per-message estimates of a history, kept across turns; `total()` is the whole history's."""
    return PrefixMemo(estimate_message, tallies=(_itself,))


def estimate_messages(messages: Iterable[Message]) -> int:
    return sum(estimate_message(m) for m in messages)


def tokens_from_usage(usage: Usage) -> int:
    """The size of the context a response leaves behind: everything sent plus what came back."""
    return (
        usage.input_tokens
        + usage.cache_read_input_tokens
        + usage.cache_creation_input_tokens
        + usage.output_tokens
    )


def _env_int(env: Mapping[str, str], names: Iterable[str]) -> int | None:
    for name in names:
        raw = (env.get(name) or "").strip()
        if raw:
            try:
                value = int(raw)
            except ValueError:
                continue
            if value > 0:
                return value
    return None


def context_window(model: str, env: Mapping[str, str] | None = None) -> int:
    """Tokens the model accepts: env override (YOKE_MAX_CONTEXT_TOKENS), then a `[1m]` model suffix, then
    the model's own window from the price table (200K for Claude, 128K for models it does not know)."""
    env = os.environ if env is None else env
    override = _env_int(env, _WINDOW_ENV_ALIASES)
    if override:
        return override
    if model.lower().endswith("[1m]"):
        return ONE_MILLION_WINDOW
    from yoke.providers.pricing import context_window as known_window

    return known_window(model) if model else DEFAULT_CONTEXT_WINDOW


def max_output_tokens(model: str, env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    return _env_int(env, _MAX_OUTPUT_ENV) or DEFAULT_MAX_OUTPUT


# `--autocompact N`: compaction works as if the window were N tokens (when that is smaller)
AUTOCOMPACT_WINDOW_ENV = "YOKE_AUTOCOMPACT_WINDOW"


def effective_window(model: str, env: Mapping[str, str] | None = None, max_output: int | None = None) -> int:
    """The window minus the space reserved for the reply: min(max output, 20K); `--autocompact N` caps it."""
    reserve = min(max_output or max_output_tokens(model, env), MAX_OUTPUT_RESERVE)
    window = context_window(model, env) - reserve
    cap = (os.environ if env is None else env).get(AUTOCOMPACT_WINDOW_ENV, "")
    return min(window, int(cap)) if cap.isdigit() and int(cap) > 0 else window
