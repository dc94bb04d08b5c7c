"""Token estimates and context windows."""

from __future__ import annotations

from yoke.providers.base import Usage
from yoke.providers.tokens import (
    IMAGE_TOKENS,
    context_window,
    effective_window,
    estimate_block,
    estimate_json,
    estimate_text,
    tokens_from_usage,
)


def test_estimates():
    assert estimate_text("a" * 400) == 100
    assert estimate_text("é" * 2) == 1  # bytes, not characters
    assert estimate_json({"k": "v" * 100}) == (len('{"k":"' + "v" * 100 + '"}') + 1) // 2
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A" * 100_000}}
    assert estimate_block(image) == IMAGE_TOKENS
    tool_use = {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls -la"}}
    assert estimate_block(tool_use) == estimate_text("Bash") + estimate_json({"command": "ls -la"})
    result = {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": [{"type": "text", "text": "x" * 40}, image],
    }
    assert estimate_block(result) == 4 + 10 + IMAGE_TOKENS


def test_windows():
    assert context_window("claude-sonnet-4-5", {}) == 200_000
    assert context_window("claude-sonnet-4-5[1m]", {}) == 1_000_000
    assert context_window("claude-sonnet-4-5[1m]", {"YOKE_MAX_CONTEXT_TOKENS": "50000"}) == 50_000
    assert context_window("claude-x", {"YOKE_MAX_CONTEXT_TOKENS": "junk"}) == 200_000
    assert context_window("some-local-model", {}) == 128_000  # unknown, not Claude: the price table's default
    assert context_window("gpt-4.1", {}) > 200_000
    assert effective_window("claude-x", {}) == 180_000
    assert effective_window("claude-x", {}, max_output=8_000) == 192_000
    assert effective_window("claude-x", {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "4000"}) == 196_000
    assert tokens_from_usage(Usage(10, 5, 100, 1000)) == 1115
