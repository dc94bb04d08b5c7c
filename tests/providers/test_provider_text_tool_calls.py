"""Tool calls a local model wrote into its text (`<tool_call>…</tool_call>`) are recovered as real calls."""

from __future__ import annotations

import json

from yoke.providers.base import BlockStart, MessageStop
from yoke.providers.openai_stream import OpenAIAssembler


def finish(text: str, tools: frozenset[str]) -> MessageStop:
    body = {
        "id": "x",
        "model": "qwen",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }
    events = OpenAIAssembler("qwen", tools).from_body(body)
    return [e for e in events if isinstance(e, MessageStop)][0]


def test_a_known_tool_in_text_becomes_a_call():
    text = 'Let me look.\n<tool_call>\n{"name": "Read", "arguments": {"file_path": "/a.py"}}\n</tool_call>'
    stop = finish(text, frozenset({"Read", "Bash"}))
    assert stop.stop_reason == "tool_use"
    content = stop.message["content"]
    assert content[0] == {"type": "text", "text": "Let me look."}
    assert content[1]["type"] == "tool_use" and content[1]["name"] == "Read"
    assert content[1]["input"] == {"file_path": "/a.py"}


def test_arguments_as_a_json_string_and_several_calls():
    calls = "".join(
        f"<tool_call>{json.dumps({'name': 'Bash', 'arguments': json.dumps({'command': c})})}</tool_call>"
        for c in ("ls", "pwd")
    )
    stop = finish(calls, frozenset({"Bash"}))
    assert [b["input"]["command"] for b in stop.message["content"] if b["type"] == "tool_use"] == [
        "ls",
        "pwd",
    ]


def test_unknown_tools_and_prose_stay_text():
    text = 'Use <tool_call>{"name": "rm_rf", "arguments": {}}</tool_call> never.'
    stop = finish(text, frozenset({"Read"}))
    assert stop.stop_reason == "end_turn"
    assert stop.message["content"] == [{"type": "text", "text": text}]
    assert finish(text, frozenset()).message["content"] == [{"type": "text", "text": text}]


def test_recovered_call_is_announced_as_a_block():
    body = {
        "id": "x",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "content": '<tool_call>{"name": "Glob", "arguments": {"pattern": "*.py"}}</tool_call>'
                },
            }
        ],
    }
    events = OpenAIAssembler("m", frozenset({"Glob"})).from_body(body)
    assert any(isinstance(e, BlockStart) and e.block.get("name") == "Glob" for e in events)
