"""stream-json's progress lines as Claude Code writes them: `system/status` "requesting" as each model request
starts, `system/status` with `permissionMode` when the mode changes, `system/thinking_tokens` while the
model thinks."""

from __future__ import annotations

import json
import math

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

STREAM = ("-p", "--output-format", "stream-json", "--verbose")


def kinds(lines: list[dict]) -> list[str]:
    return [f"{o['type']}/{o.get('subtype') or o.get('status') or ''}".rstrip("/") for o in lines]


def test_each_model_request_starts_with_status_requesting(yoke, project):
    """Under --include-partial-messages only: 2.1.330 writes no status line without it."""
    turns = [
        {"content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "notes.txt"}}]},
        {"content": [{"type": "text", "text": "It says hi."}]},
    ]
    (project / "notes.txt").write_text("hi\n")
    with ScriptedServer(turns * 2) as srv:
        plain = yoke(*STREAM, "read notes.txt", env=anthropic_env(srv))
        run = yoke(*STREAM, "--include-partial-messages", "read notes.txt", env=anthropic_env(srv))
    assert plain.code == 0, plain.stderr
    assert "system/status" not in kinds(plain.lines())
    assert run.code == 0, run.stderr
    lines = [o for o in run.lines() if o["type"] != "stream_event"]
    assert kinds(lines) == [
        "system/init",
        "system/status",
        "assistant",
        "user",
        "system/status",
        "assistant",
        "result/success",
    ]
    statuses = [o for o in lines if o.get("subtype") == "status"]
    assert all(o["status"] == "requesting" and "permissionMode" not in o for o in statuses)
    session_id = lines[0]["session_id"]
    assert all(o["session_id"] == session_id and o["uuid"] for o in statuses)
    assert len({o["uuid"] for o in statuses}) == 2


def test_thinking_is_reported_as_estimated_tokens_per_request(yoke):
    first = "Let me think about which file holds the answer. " * 5
    second = "Short."
    turns = [
        {
            "content": [
                {"type": "thinking", "thinking": first, "signature": "sig-1"},
                {"type": "tool_use", "id": "t1", "name": "Glob", "input": {"pattern": "*.txt"}},
            ]
        },
        {
            "content": [
                {"type": "thinking", "thinking": second, "signature": "sig-2"},
                {"type": "text", "text": "ok"},
            ]
        },
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            *STREAM, "--include-partial-messages", "--max-thinking-tokens", "4000", "find it",
            env=anthropic_env(srv),
        )  # fmt: skip
    assert run.code == 0, run.stderr
    lines = run.lines()
    requests = [i for i, o in enumerate(lines) if o.get("subtype") == "status"]
    assert len(requests) == 2
    for start, end, text in ((requests[0], requests[1], first), (requests[1], len(lines), second)):
        thinking = [o for o in lines[start:end] if o.get("subtype") == "thinking_tokens"]
        assert thinking, f"no thinking_tokens after request at line {start}"
        totals = [o["estimated_tokens"] for o in thinking]
        assert totals == sorted(totals) and totals[-1] == math.ceil(len(text) / 4)
        assert sum(o["estimated_tokens_delta"] for o in thinking) == totals[-1]  # counted from zero again
        assert all(o["estimated_tokens_delta"] > 0 for o in thinking)
        thinking_line = next(
            i for i, o in enumerate(lines) if i > start and o["type"] == "assistant"
            and o["message"]["content"][0]["type"] == "thinking"
        )  # fmt: skip
        assert all(lines.index(o) < thinking_line for o in thinking)


def test_a_permission_mode_change_is_a_status_line(yoke):
    frames = [
        {"type": "control_request", "request_id": "r1", "request": {"subtype": "initialize", "hooks": None}},
        {"type": "control_request", "request_id": "r2", "request": {"subtype": "set_permission_mode", "mode": "acceptEdits"}},
        {"type": "control_request", "request_id": "r3", "request": {"subtype": "set_permission_mode", "mode": "acceptEdits"}},
        {"type": "user", "message": {"role": "user", "content": "hi"}},
    ]  # fmt: skip
    stdin = "".join(json.dumps(f) + "\n" for f in frames)
    with ScriptedServer([{"content": [{"type": "text", "text": "hello"}]}]) as srv:
        run = yoke(*STREAM, "--input-format", "stream-json", env=anthropic_env(srv), input=stdin)
    assert run.code == 0, run.stderr
    lines = run.lines()
    changes = [o for o in lines if o.get("subtype") == "status" and "permissionMode" in o]
    assert len(changes) == 1  # the second request changed nothing
    change = changes[0]
    assert change["status"] is None and change["permissionMode"] == "acceptEdits"
    acks = [o["response"]["request_id"] for o in lines if o["type"] == "control_response"]
    assert acks == ["r1", "r2", "r3"]
    ack_r2 = next(
        i
        for i, o in enumerate(lines)
        if o["type"] == "control_response" and o["response"]["request_id"] == "r2"
    )
    assert lines[ack_r2 + 1] is change
    init = next(o for o in lines if o.get("subtype") == "init")
    assert init["permissionMode"] == "acceptEdits"


def test_text_and_json_output_carry_no_progress_lines(yoke):
    with ScriptedServer([{"content": [{"type": "text", "text": "hello"}]}] * 2) as srv:
        text = yoke("-p", "hi", env=anthropic_env(srv))
        as_json = yoke("-p", "--output-format", "json", "hi", env=anthropic_env(srv))
    assert text.stdout == "hello\n"
    assert [json.loads(line)["type"] for line in as_json.stdout.splitlines()] == ["result"]
