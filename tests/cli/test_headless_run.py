"""A multi-step tool-using run through the real `yoke -p`, in every output format and both wire formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import anthropic_env, openai_env

from yoke.testing import ScriptedServer


def fix_bug_script(project: Path) -> list[dict]:
    """The model reads a file, edits it, runs a command, then reports."""
    target = str(project / "greet.py")
    return [
        {
            "content": [
                {"type": "text", "text": "Let me look at the file."},
                {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": target}},
            ]
        },
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_edit",
                    "name": "Edit",
                    "input": {"file_path": target, "old_string": "Helo", "new_string": "Hello"},
                },
            ]
        },
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_bash",
                    "name": "Bash",
                    "input": {"command": "python3 greet.py", "description": "Run the script"},
                },
            ]
        },
        {"content": [{"type": "text", "text": "Fixed the greeting; the script prints Hello, world."}]},
    ]


FLAGS = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash(python3 greet.py)"]


@pytest.fixture
def greet(project: Path) -> Path:
    path = project / "greet.py"
    path.write_text('print("Helo, world")\n')
    return path


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_stream_json_multi_step(yoke, project, greet, wire):
    with ScriptedServer(fix_bug_script(project)) as srv:
        env = anthropic_env(srv) if wire == "anthropic" else openai_env(srv)
        run = yoke("-p", "fix the greeting", "--output-format", "stream-json", "--verbose", *FLAGS, env=env)
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert greet.read_text() == 'print("Hello, world")\n'
    lines = run.lines()
    assert lines[0]["type"] == "system" and lines[0]["subtype"] == "init"
    init = lines[0]
    for key in (
        "cwd",
        "session_id",
        "tools",
        "model",
        "permissionMode",
        "claude_code_version",
        "mcp_servers",
    ):
        assert key in init
    assert {"Read", "Edit", "Bash"} <= set(init["tools"])
    assistants = [o for o in lines if o["type"] == "assistant"]
    # one assistant line per content block: the first message (text + tool_use) gives two lines, same id
    assert len(assistants) == 5
    assert assistants[0]["message"]["id"] == assistants[1]["message"]["id"]
    assert [len(a["message"]["content"]) for a in assistants] == [1] * 5
    users = [o for o in lines if o["type"] == "user"]
    assert [u["message"]["content"][0]["tool_use_id"] for u in users] == [
        "toolu_read",
        "toolu_edit",
        "toolu_bash",
    ]
    # as Claude Code: a successful result carries `is_error: false` for Bash only, and no flag otherwise
    assert all(u["message"]["content"][0].get("is_error", False) is False for u in users), users
    assert "Hello, world" in json.dumps(users[2]["message"]["content"][0]["content"])
    result = lines[-1]
    assert result["type"] == "result" and result["subtype"] == "success" and result["is_error"] is False
    assert result["result"] == "Fixed the greeting; the script prints Hello, world."
    assert result["num_turns"] == 4
    assert result["session_id"] == init["session_id"]
    for key in (
        "duration_ms",
        "duration_api_ms",
        "total_cost_usd",
        "usage",
        "permission_denials",
        "modelUsage",
    ):
        assert key in result
    assert len(requests) == 4
    assert all(r.format == wire for r in requests)


def test_json_output_is_one_result_object(yoke, project, greet):
    with ScriptedServer(fix_bug_script(project)) as srv:
        run = yoke("-p", "fix it", "--output-format", "json", *FLAGS, env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["type"] == "result" and result["subtype"] == "success"
    assert result["num_turns"] == 4 and result["result"].startswith("Fixed the greeting")
    assert result["usage"]["input_tokens"] > 0


def test_text_output_prints_final_answer(yoke, project, greet):
    with ScriptedServer(fix_bug_script(project)) as srv:
        run = yoke("-p", "fix it", *FLAGS, env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "Fixed the greeting; the script prints Hello, world."
    assert greet.read_text() == 'print("Hello, world")\n'


def test_prompt_from_stdin(yoke, project):
    with ScriptedServer([{"content": [{"type": "text", "text": "pong"}]}]) as srv:
        run = yoke("-p", env=anthropic_env(srv), input="ping from stdin")
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "pong"
    assert "ping from stdin" in json.dumps(body["messages"])


def test_partial_messages_stream_raw_events(yoke, project):
    with ScriptedServer([{"content": [{"type": "text", "text": "streamed words"}]}]) as srv:
        run = yoke(
            "-p",
            "hi",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            env=anthropic_env(srv),
        )
    assert run.code == 0, run.stderr
    kinds = [o["event"]["type"] for o in run.lines() if o["type"] == "stream_event"]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert "content_block_delta" in kinds
    text = "".join(
        o["event"]["delta"].get("text", "")
        for o in run.lines()
        if o["type"] == "stream_event" and o["event"]["type"] == "content_block_delta"
    )
    assert text == "streamed words"


def test_transcript_written_under_yoke_home(yoke, project, home):
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        run = yoke("-p", "hello", "--output-format", "json", env=anthropic_env(srv))
    session_id = json.loads(run.stdout)["session_id"]
    from yoke.session.transcript import sanitize_project

    path = home / ".yoke" / "projects" / sanitize_project(project) / f"{session_id}.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    chain = [r for r in records if r["type"] in ("user", "assistant")]
    assert [r["type"] for r in chain] == ["user", "assistant"]
    assert chain[0]["message"]["content"] == "hello"
    assert chain[1]["parentUuid"] == chain[0]["uuid"]
    assert all(r["sessionId"] == session_id for r in chain)


def test_stream_json_requires_verbose(yoke):
    run = yoke("-p", "hi", "--output-format", "stream-json")
    assert run.code != 0
    assert "requires --verbose" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_max_turns_result_matches_claude_code(yoke, project):
    turns = [
        {"content": [{"type": "tool_use", "id": f"toolu_{i}", "name": "Glob", "input": {"pattern": f"*{i}"}}]}
        for i in range(3)
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "go", "--max-turns", "2", "--output-format", "json", env=anthropic_env(srv))
        text = yoke("-p", "go", "--max-turns", "1", env=anthropic_env(srv))
    assert run.code == 1
    result = json.loads(run.stdout)
    assert result["subtype"] == "error_max_turns" and result["is_error"] is True
    assert result["num_turns"] == 3 and result["errors"] == ["Reached maximum number of turns (2)"]
    assert "result" not in result
    assert text.code == 1 and text.stdout == "Error: Reached max turns (1)\n"


def test_verbose_text_shows_steps_and_the_todo_list(yoke, project):
    todos = [
        {"content": "Write the parser", "status": "in_progress", "activeForm": "Writing the parser"},
        {"content": "Test it", "status": "pending", "activeForm": "Testing it"},
    ]
    turns = [
        {
            "content": [
                {"type": "text", "text": "Planning."},
                {"type": "tool_use", "id": "toolu_t", "name": "TodoWrite", "input": {"todos": todos}},
            ]
        },
        {"content": [{"type": "text", "text": "Planned."}]},
    ]
    with ScriptedServer(turns) as srv:
        # a family offered the todo list (providers/models.json `task_list`)
        run = yoke("-p", "plan", "--verbose", "--model", "claude-sonnet-4-5", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert run.stdout == "Planned.\n"  # the live view goes to stderr; stdout stays pipe-clean
    assert "● TodoWrite(" in run.stderr
    assert "◐ Write the parser" in run.stderr and "☐ Test it" in run.stderr
    assert "── done" in run.stderr


def test_debug_explains_each_step_on_stderr(yoke, project, greet):
    with ScriptedServer(fix_bug_script(project)) as srv:
        run = yoke("-p", "fix it", "--debug", *FLAGS, env=anthropic_env(srv))
    assert run.code == 0
    debug = [line for line in run.stderr.splitlines() if line.startswith("[debug]")]
    assert any("turn 1: requesting" in line for line in debug)
    assert any("permission Edit toolu_edit: allow" in line for line in debug)
    assert any(line.startswith("[debug] result completed") for line in debug)
    assert run.stdout.strip() == "Fixed the greeting; the script prints Hello, world."


def test_local_model_text_tool_call_is_run(yoke, project):
    from tests.conftest import openai_env

    (project / "notes.txt").write_text("remember the milk\n")
    call = {"name": "Read", "arguments": {"file_path": str(project / "notes.txt")}}
    turns = [
        {"content": [{"type": "text", "text": f"<tool_call>{json.dumps(call)}</tool_call>"}]},
        {"content": [{"type": "text", "text": "It says: remember the milk."}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "what do my notes say?", env=openai_env(srv))
        second = srv.requests[1].body["messages"]
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "It says: remember the milk."
    assert second[-1]["role"] == "tool" and "remember the milk" in second[-1]["content"]
