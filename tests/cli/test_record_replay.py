"""A run recorded against the scripted server replays identically offline; divergence fails loudly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import anthropic_env, openai_env

from yoke.testing import ScriptedServer


def script(project: Path) -> list[dict]:
    return [
        {
            "content": [
                {"type": "text", "text": "Creating the file."},
                {
                    "type": "tool_use",
                    "id": "toolu_w",
                    "name": "Write",
                    "input": {"file_path": str(project / "out.txt"), "content": "hello\n"},
                },
            ]
        },
        {
            "content": [
                {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": "cat out.txt"}}
            ]
        },
        {"content": [{"type": "text", "text": "The file says hello."}]},
    ]


FLAGS = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    "Bash(cat:*)",
]


def comparable(lines: list[dict]) -> list:
    """The conversation a client saw, minus ids, timings and costs that differ per run."""
    out = []
    for o in lines:
        if o["type"] == "assistant":
            out.append(("assistant", o["message"]["content"]))
        elif o["type"] == "user":
            out.append(("user", o["message"]["content"]))
        elif o["type"] == "result":
            out.append(("result", o["subtype"], o["result"], o["num_turns"], o["usage"]["output_tokens"]))
    return out


def test_record_then_replay(yoke, project, tmp_path):
    cassette = tmp_path / "run.cassette.jsonl"
    for wire, env_of in (("anthropic", anthropic_env), ("openai", openai_env)):
        (project / "out.txt").unlink(missing_ok=True)
        with ScriptedServer(script(project)) as srv:
            recorded = yoke("-p", "make out.txt", "--record", str(cassette), *FLAGS, env=env_of(srv))
        assert recorded.code == 0, recorded.stderr
        header = json.loads(cassette.read_text().splitlines()[0])
        assert header["type"] == "cassette" and header["provider"] == wire
        assert "sk-test" not in cassette.read_text()
        (project / "out.txt").unlink()
        replayed = yoke("-p", "make out.txt", "--replay", str(cassette), *FLAGS)
        assert replayed.code == 0, replayed.stderr
        assert (project / "out.txt").read_text() == "hello\n"  # real tools ran again
        assert comparable(replayed.lines()) == comparable(recorded.lines())


NEW_WIRES = {
    "gemini": lambda srv: {
        "CLAUDE_CODE_USE_GEMINI": "1",
        "GEMINI_BASE_URL": srv.gemini_url,
        "GEMINI_API_KEY": "sk-test",
    },
    "openai-responses": lambda srv: {
        "YOKE_PROVIDER": "openai-responses",
        "OPENAI_BASE_URL": srv.openai_url,
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_MODEL": "gpt-5.1",
    },
    "grok": lambda srv: {
        "CLAUDE_CODE_USE_GROK": "1",
        "XAI_BASE_URL": srv.openai_url,
        "XAI_API_KEY": "sk-test",
    },
    "foundry": lambda srv: {
        "CLAUDE_CODE_USE_FOUNDRY": "1",
        "ANTHROPIC_FOUNDRY_BASE_URL": srv.url,
        "ANTHROPIC_FOUNDRY_API_KEY": "sk-test",
    },
}


@pytest.mark.parametrize("wire", list(NEW_WIRES))
def test_record_then_replay_every_other_wire(wire, yoke, project, tmp_path):
    cassette = tmp_path / "run.cassette.jsonl"
    turns = script(project)
    turns[0]["content"].insert(0, {"type": "thinking", "thinking": "Write it first.", "signature": "sig-w"})
    with ScriptedServer(turns) as srv:
        recorded = yoke("-p", "make out.txt", "--record", str(cassette), *FLAGS, env=NEW_WIRES[wire](srv))
    assert recorded.code == 0, recorded.stderr
    text = cassette.read_text()
    assert json.loads(text.splitlines()[0])["provider"] == wire and "sk-test" not in text
    (project / "out.txt").unlink()
    replayed = yoke("-p", "make out.txt", "--replay", str(cassette), *FLAGS)
    assert replayed.code == 0, replayed.stderr
    assert (project / "out.txt").read_text() == "hello\n"
    assert comparable(replayed.lines()) == comparable(recorded.lines())
    assert (
        len(comparable(recorded.lines())) == 8
    )  # one line per block: thinking, text, 2 calls, 2 results, answer, result


def test_replay_divergence_fails_loudly(yoke, project, tmp_path):
    cassette = tmp_path / "run.cassette.jsonl"
    with ScriptedServer(script(project)) as srv:
        assert yoke("-p", "make out.txt", "--record", str(cassette), *FLAGS, env=anthropic_env(srv)).code == 0
    run = yoke("-p", "something else entirely", "--replay", str(cassette), "--output-format", "json")
    assert run.code == 1
    result = run.result()
    assert result["is_error"] and "replay diverged" in result["result"]


def test_replay_missing_cassette_is_one_line(yoke, tmp_path):
    run = yoke("-p", "hi", "--replay", str(tmp_path / "nope.jsonl"))
    assert run.code != 0
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "nope.jsonl" in lines[0]


def test_a_prompt_sent_as_text_blocks_matches_the_same_prompt_as_a_string():
    from yoke.providers.cassette import diverges

    recorded = {"messages": [{"role": "user", "content": "fix it"}]}
    as_blocks = {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "fix it", "cache_control": {"type": "ephemeral"}}],
            }
        ]
    }
    assert diverges(recorded, as_blocks) is None
    assert diverges(recorded, {"messages": [{"role": "user", "content": "break it"}]}) is not None
