"""Full tool-using sessions over every wire format, through the real `yoke` command and the scripted server.

One script, served in each provider's own wire format: the model thinks, says something and reads an image
(the first streamed attempt breaks off with an error mid-stream, so the non-streaming retry answers), then
runs a command after more thinking, then answers. The server checks every request the way the real API
would (tool calls paired with results, thought signatures and encrypted reasoning passed back intact and
only to the model that made them), so a conversion mistake fails the run.
"""

from __future__ import annotations

import base64
import struct
import zlib

import pytest

from yoke.testing import ScriptedServer

PNG = (
    b"\x89PNG\r\n\x1a\n"
    + struct.pack(">I", 13)
    + b"IHDR"
    + struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    + struct.pack(">I", zlib.crc32(b"IHDR" + struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)))
    + struct.pack(">I", len(zlib.compress(b"\x00\xff\x00\x00")))
    + b"IDAT"
    + zlib.compress(b"\x00\xff\x00\x00")
    + struct.pack(">I", zlib.crc32(b"IDAT" + zlib.compress(b"\x00\xff\x00\x00")))
    + struct.pack(">I", 0)
    + b"IEND"
    + struct.pack(">I", zlib.crc32(b"IEND"))
)


def script(image_path: str) -> list[dict]:
    return [
        {
            "content": [
                {
                    "type": "thinking",
                    "thinking": "The user wants the picture described.",
                    "signature": "sig-one",
                },
                {"type": "text", "text": "Let me look at the image."},
                {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": image_path}},
            ],
            "usage": {"input_tokens": 1000, "output_tokens": 50, "cache_read_input_tokens": 400},
            "fault": {"stream_error_after": 3},
        },
        {
            "content": [
                {"type": "thinking", "thinking": "Now count the files.", "signature": "sig-two"},
                {"type": "tool_use", "id": "toolu_bash", "name": "Bash", "input": {"command": "ls | wc -l"}},
            ],
            "usage": {"input_tokens": 1200, "output_tokens": 30},
        },
        {
            "content": "It is a single green pixel, and the folder holds 1 file.",
            "usage": {"input_tokens": 1300, "output_tokens": 20},
        },
    ]


PROVIDERS = {
    "anthropic": lambda srv: {"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "k"},
    "foundry": lambda srv: {
        "CLAUDE_CODE_USE_FOUNDRY": "1",
        "ANTHROPIC_FOUNDRY_BASE_URL": srv.url,
        "ANTHROPIC_FOUNDRY_API_KEY": "azure-key",
    },
    "gemini": lambda srv: {
        "CLAUDE_CODE_USE_GEMINI": "1",
        "GEMINI_BASE_URL": srv.gemini_url,
        "GEMINI_API_KEY": "g",
    },
    "openai-responses": lambda srv: {
        "YOKE_PROVIDER": "openai-responses",
        "OPENAI_BASE_URL": srv.openai_url,
        "OPENAI_API_KEY": "o",
    },
    "grok": lambda srv: {"CLAUDE_CODE_USE_GROK": "1", "XAI_BASE_URL": srv.openai_url, "XAI_API_KEY": "x"},
    "openai": lambda srv: {
        "OPENAI_BASE_URL": srv.openai_url,
        "OPENAI_API_KEY": "o",
        "YOKE_PROVIDER": "openai",
    },
}
MODELS = {"gemini": "gemini-2.5-pro", "openai-responses": "gpt-5.1", "grok": "grok-4", "openai": "gpt-5.1"}


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_tool_using_session_over_each_provider(provider, yoke, project):
    (project / "pixel.png").write_bytes(PNG)
    with ScriptedServer(script(str(project / "pixel.png"))) as srv:
        args = ["-p", "describe pixel.png", "--output-format", "json", "--allowedTools", "Bash,Read"]
        if provider in MODELS:
            args += ["--model", MODELS[provider]]
        run = yoke(*args, env=PROVIDERS[provider](srv))
        requests = [r for r in srv.requests if r.method == "POST"]
    assert run.code == 0, run.stderr
    result = run.result()
    assert result["subtype"] == "success" and result["result"].startswith("It is a single green pixel")
    assert result["num_turns"] == 3
    # four model requests: the broken stream, its non-streaming retry, and the two follow-ups
    assert len(requests) == 4 and [r.stream for r in requests] == [True, False, True, True]
    usage = result["usage"]
    assert usage["output_tokens"] == 100
    assert usage["cache_read_input_tokens"] == 400  # cached tokens counted apart on every wire
    assert result["total_cost_usd"] > 0
    check_wire(provider, requests)


def check_wire(provider: str, requests) -> None:
    second, third = requests[2].body, requests[3].body
    image = base64.b64encode(PNG).decode()
    if provider in ("anthropic", "foundry"):
        if provider == "foundry":
            assert requests[0].headers["api-key"] == "azure-key"
        thinking = [b for b in second["messages"][1]["content"] if b["type"] == "thinking"]
        assert thinking == [
            {"type": "thinking", "thinking": "The user wants the picture described.", "signature": "sig-one"}
        ]
        result = second["messages"][2]["content"][0]
        assert result["type"] == "tool_result" and result["content"][0]["source"]["data"] == image
    elif provider == "gemini":
        assert requests[0].path.endswith(":streamGenerateContent") and requests[1].path.endswith(
            ":generateContent"
        )
        model_turn, user_turn = second["contents"][1], second["contents"][2]
        assert model_turn["role"] == "model"
        assert model_turn["parts"][0] == {
            "text": "The user wants the picture described.",
            "thought": True,
            "thoughtSignature": "sig-one",
        }
        call = next(p for p in model_turn["parts"] if "functionCall" in p)
        assert call["functionCall"]["name"] == "Read" and call["thoughtSignature"]
        assert user_turn["parts"][0]["functionResponse"]["name"] == "Read"
        assert user_turn["parts"][1] == {"inlineData": {"mimeType": "image/png", "data": image}}
        assert second["generationConfig"]["maxOutputTokens"] > 0 and "systemInstruction" in second
    elif provider == "openai-responses":
        assert second["store"] is False and second["include"] == ["reasoning.encrypted_content"]
        reasoning = [i for i in second["input"] if i.get("type") == "reasoning"]
        assert reasoning == [
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "The user wants the picture described."}],
                "encrypted_content": "sig-one",
            }
        ]
        output = next(i for i in second["input"] if i.get("type") == "function_call_output")
        assert output["call_id"] == "toolu_read"
        images = [
            p
            for i in second["input"]
            if i.get("role") == "user"
            for p in i["content"]
            if p["type"] == "input_image"
        ]
        assert images == [{"type": "input_image", "image_url": f"data:image/png;base64,{image}"}]
        assert len([i for i in third["input"] if i.get("type") == "reasoning"]) == 2
    else:  # Chat Completions: reasoning is not sent back; the image follows the tool message
        assert all("reasoning_content" not in m for m in second["messages"])
        tool = next(m for m in second["messages"] if m["role"] == "tool")
        assert tool["tool_call_id"] == "toolu_read"
