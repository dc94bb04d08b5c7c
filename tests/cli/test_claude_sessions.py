"""A user switching from Claude Code keeps their history: its transcripts are listed, resumed, continued."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

SID = "0381b11b-1111-4222-8333-944455556666"


def _sanitized(path: Path) -> str:
    return re.sub(r"[^a-zA-Z0-9]", "-", str(path.resolve()))


def _record(kind: str, uuid: str, parent: str | None, message: dict, project: Path, **extra) -> dict:
    return {
        "parentUuid": parent, "isSidechain": False, "type": kind, "message": message, "uuid": uuid,
        "timestamp": "2026-11-22T02:09:11.677Z", "userType": "external", "entrypoint": "cli",
        "cwd": str(project), "sessionId": SID, "version": "2.1.330", "gitBranch": "HEAD", **extra,
    }  # fmt: skip


def write_claude_transcript(home: Path, project: Path) -> Path:
    """A Claude Code transcript: one record per content block, a tool result, an abandoned branch."""
    folder = home / ".claude" / "projects" / _sanitized(project)
    folder.mkdir(parents=True)
    api = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
           "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}  # fmt: skip
    records = [
        _record("user", "u1", None, {"role": "user", "content": "edit notes please"}, project, promptId="p1"),
        _record("assistant", "a1", "u1", {**api, "content": [{"type": "text", "text": "Reading."}]}, project),
        _record(
            "assistant",
            "a2",
            "a1",
            {
                **api,
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "notes.txt"}}
                ],
            },
            project,
        ),  # fmt: skip
        _record(
            "user",
            "u2",
            "a2",
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "old"}],
            },
            project,
            toolUseResult={"type": "text"},
        ),  # fmt: skip
        _record(
            "assistant",
            "x1",
            "u2",
            {**api, "id": "msg_x", "content": [{"type": "text", "text": "DEAD"}]},
            project,
        ),  # fmt: skip
        _record(
            "assistant",
            "a3",
            "u2",
            {**api, "id": "msg_2", "content": [{"type": "text", "text": "Done."}]},
            project,
        ),  # fmt: skip
        {"type": "last-prompt", "lastPrompt": "edit notes please", "sessionId": SID},
    ]
    path = folder / f"{SID}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_sessions_list_shows_claude_code_sessions(yoke, home, project):
    write_claude_transcript(home, project)
    run = yoke("sessions", "list")
    assert run.code == 0, run.stderr
    assert SID in run.stdout and "edit notes please" in run.stdout


def _history_sent(home, project, yoke, *flags) -> tuple[list, object, object]:
    source = write_claude_transcript(home, project)
    before = source.read_text()
    with ScriptedServer([{"content": [{"type": "text", "text": "Next."}]}]) as srv:
        run = yoke("-p", "and now?", *flags, "--output-format", "json", env=anthropic_env(srv))
        messages = srv.requests[0].body["messages"]
    assert source.read_text() == before  # Claude Code's file is only read
    return messages, run, source


def _texts(messages: list) -> str:
    return json.dumps(messages)


def test_resume_a_claude_code_session_by_id(yoke, home, project):
    messages, run, _ = _history_sent(home, project, yoke, "--resume", SID)
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["session_id"] == SID
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    assistant = messages[1]["content"]
    assert [b["type"] for b in assistant] == ["text", "tool_use"]  # the per-block records joined
    assert "DEAD" not in _texts(messages)  # the abandoned branch is not part of the conversation
    assert "Done." in _texts(messages) and "and now?" in _texts(messages)
    listed = yoke("sessions", "list")
    assert listed.stdout.count(SID) == 1


def test_continue_picks_up_a_claude_code_session(yoke, home, project):
    messages, run, _ = _history_sent(home, project, yoke, "-c")
    assert run.code == 0, run.stderr
    assert "edit notes please" in _texts(messages) and "Done." in _texts(messages)


def test_continue_with_no_session_starts_one(yoke):
    with ScriptedServer([{"content": [{"type": "text", "text": "fresh"}]}]) as srv:
        run = yoke("-p", "-c", "hello", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert run.stdout == "fresh\n"
