"""Histories the provider tests share."""

from __future__ import annotations

from typing import Any


def read_exchange(turn: int) -> list[dict[str, Any]]:
    """An assistant message calling Read (call id `c<turn>`) and the user message with its result."""
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": f"c{turn}", "name": "Read", "input": {"n": turn}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": f"c{turn}", "content": f"line {turn}"}],
        },
    ]
