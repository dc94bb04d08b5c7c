"""stream-json details a parser relies on: assistant lines as blocks end under partial messages, replayed
user messages, `is_error` only where Claude Code writes it, Write's `userModified`, the protocol version."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

TWO_BLOCKS = {
    "content": [
        {"type": "text", "text": "Writing it."},
        {
            "type": "tool_use",
            "id": "toolu_w",
            "name": "Write",
            "input": {"file_path": "PLACEHOLDER", "content": "x\n"},
        },
    ]
}


def test_partial_messages_write_each_assistant_line_when_its_block_ends(yoke, project):
    turn = json.loads(json.dumps(TWO_BLOCKS).replace("PLACEHOLDER", str(project / "a.txt")))
    with ScriptedServer([turn, {"content": [{"type": "text", "text": "done"}]}]) as srv:
        run = yoke(
            "-p", "write", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
            "--permission-mode", "acceptEdits", env=anthropic_env(srv),
        )  # fmt: skip
    assert run.code == 0, run.stderr
    kinds = []
    for line in run.lines():
        if line["type"] == "stream_event":
            kinds.append(line["event"]["type"])
        elif line["type"] in ("assistant", "user"):
            kinds.append(line["type"])
    first_stop = kinds.index("content_block_stop")
    assert kinds[first_stop - 1] == "assistant"  # the text block's line, just before its stop (2.1.330)
    assert kinds[first_stop + 1] == "content_block_start"
    assistants = [line for line in run.lines() if line["type"] == "assistant"]
    assert [a["message"]["content"][0]["type"] for a in assistants] == ["text", "tool_use", "text"]
    assert assistants[1]["message"]["content"][0]["input"]["content"] == "x\n"
    users = [line for line in run.lines() if line["type"] == "user"]
    block = users[0]["message"]["content"][0]
    assert "is_error" not in block  # a successful Write: Claude Code leaves the flag out
    assert users[0]["tool_use_result"]["userModified"] is False
    init = run.lines()[0]
    assert init["claude_code_version"] == "2.1.330"


def test_bash_success_keeps_is_error_false(yoke):
    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": "echo hello"}}
            ]
        },
        {"content": [{"type": "text", "text": "done"}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "go", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash(echo:*)", "--",
            env=anthropic_env(srv),
        )  # fmt: skip
    assert run.code == 0, run.stderr
    block = [line for line in run.lines() if line["type"] == "user"][0]["message"]["content"][0]
    assert block["is_error"] is False


def _stream_session(env: dict, cwd, flags: list[str], frames: list[dict]) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "yoke", "--input-format", "stream-json", *flags],
        input="".join(json.dumps(f) + "\n" for f in frames),
        capture_output=True, text=True, env=env, cwd=cwd, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_replay_user_messages_echoes_them(base_env, project):
    frame = {"type": "user", "message": {"role": "user", "content": "hello"}, "uuid": "u-1"}
    with ScriptedServer([{"content": [{"type": "text", "text": "hi"}]}]) as srv:
        out = _stream_session(
            dict(base_env, **anthropic_env(srv)), project,
            ["--output-format", "stream-json", "--verbose", "--replay-user-messages"], [frame],
        )  # fmt: skip
    lines = [json.loads(line) for line in out.splitlines()]
    replays = [line for line in lines if line["type"] == "user" and line.get("isReplay")]
    assert len(replays) == 1 and replays[0]["message"]["content"] == "hello" and replays[0]["uuid"] == "u-1"


def test_stream_json_input_with_json_output_is_refused(yoke):
    """2.1.330 refuses stream-json input unless the output is stream-json too (exit 1, before any work)."""
    for output in ("json", "text"):
        run = yoke("-p", "--input-format", "stream-json", "--output-format", output, input="")
        assert run.code == 1 and "--output-format stream-json" in run.stderr and not run.stdout
