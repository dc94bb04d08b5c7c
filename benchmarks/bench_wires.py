"""How fast each wire format's answer is parsed into provider events (no network): a long streamed answer
(thinking, 20 KB of text, three tool calls) as the scripted server frames it, through the SSE parser and the
wire's assembler. Prints milliseconds per answer for each format."""

from __future__ import annotations

import time

from yoke.providers.anthropic_stream import AnthropicAssembler
from yoke.providers.gemini_stream import GeminiAssembler
from yoke.providers.openai_stream import OpenAIAssembler
from yoke.providers.responses_stream import ResponsesAssembler
from yoke.providers.sse import SSEParser
from yoke.testing import anthropic_wire, gemini_wire, openai_wire, responses_wire
from yoke.testing.script import parse_turn

TURN = parse_turn(
    {
        "content": [
            {"type": "thinking", "thinking": "Plan the change carefully. " * 200, "signature": "sig"},
            {"type": "text", "text": "Here is the explanation of the change. " * 500},
            *[
                {
                    "type": "tool_use",
                    "id": f"t{i}",
                    "name": "Edit",
                    "input": {"file_path": f"/f{i}", "old": "a" * 500},
                }
                for i in range(3)
            ],
        ]
    }
)
REQUEST = {"model": "bench-model", "stream": True, "stream_options": {"include_usage": True}, "include": []}
WIRES = {
    "anthropic": (anthropic_wire.stream_frames, AnthropicAssembler),
    "openai": (openai_wire.stream_frames, OpenAIAssembler),
    "responses": (lambda t, r: responses_wire.stream_frames(t, r, {}), ResponsesAssembler),
    "gemini": (lambda t, r: gemini_wire.stream_frames(t, r, {}), GeminiAssembler),
}


def parse_once(body: str, assembler_type) -> int:
    assembler = assembler_type("bench-model")
    parser = SSEParser()
    count = 0
    for event in parser.feed(body) + parser.close():
        count += len(assembler.feed(event))
        if assembler.done:
            break
    if not assembler.done:
        count += len(assembler.end_of_stream())
    return count


def main() -> None:
    for name, (frames_of, assembler_type) in WIRES.items():
        body = b"".join(frames_of(TURN, REQUEST)).decode()
        runs = 50
        started = time.perf_counter()
        for _ in range(runs):
            events = parse_once(body, assembler_type)
        ms = (time.perf_counter() - started) * 1000 / runs
        print(f"{name:10s} {len(body) / 1024:6.1f} KB  {events:5d} events  {ms:6.2f} ms per answer")


if __name__ == "__main__":
    main()
