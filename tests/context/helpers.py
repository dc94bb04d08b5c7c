"""Histories for compaction tests, and the validity check for both wire formats."""

from __future__ import annotations

from yoke.context.history import history_problems
from yoke.messages import Message
from yoke.providers.openai import to_openai_messages
from yoke.testing.validate import anthropic_request_problem, openai_request_problem


def assert_valid(messages: list[Message]) -> None:
    """The history is acceptable to Yoke's own check, the Anthropic API and the OpenAI API."""
    assert history_problems(messages) == [], history_problems(messages)
    assert anthropic_request_problem({"model": "m", "max_tokens": 10, "messages": messages}) is None
    wire = to_openai_messages([{"type": "text", "text": "sys"}], messages)
    assert openai_request_problem({"model": "m", "messages": wire}) is None


def tool_exchange(i: int, result_chars: int, tool: str = "Read", thinking: bool = False) -> list[Message]:
    blocks = []
    if thinking:
        blocks.append({"type": "thinking", "thinking": f"thought {i}", "signature": f"sig{i}"})
    blocks.append({"type": "text", "text": f"step {i}"})
    blocks.append(
        {"type": "tool_use", "id": f"toolu_{i:04d}", "name": tool, "input": {"file_path": f"/src/f{i}.py"}}
    )
    return [
        {"role": "assistant", "content": blocks},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": f"toolu_{i:04d}",
                    "content": f"r{i} " + "x" * result_chars,
                }
            ],
        },
    ]


def conversation(
    turns: int, result_chars: int, goal: str = "GOAL: port the parser to Rust", **kw
) -> list[Message]:
    messages: list[Message] = [{"role": "user", "content": goal}]
    for i in range(turns):
        messages += tool_exchange(i, result_chars, **kw)
    return messages


class FakeSummarizer:
    """Records every call; returns a summary, or raises when told to fail."""

    def __init__(self, reply: str = "<summary>SUMMARY TEXT</summary>", fail: bool = False):
        self.reply = reply
        self.fail = fail
        self.calls: list[tuple[list[Message], str]] = []

    async def __call__(self, messages: list[Message], instruction: str) -> str:
        self.calls.append((list(messages), instruction))
        if self.fail:
            raise RuntimeError("model unavailable")
        return self.reply
