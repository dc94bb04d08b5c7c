"""Sessions through the real command: --continue, --resume keeping todos and cost, sessions list, fork."""

from __future__ import annotations

import json

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

TODOS = [{"content": "Write the parser", "status": "in_progress", "activeForm": "Writing the parser"}]


def test_continue_keeps_history_todos_and_cost(yoke):
    first = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_t1", "name": "TodoWrite", "input": {"todos": TODOS}}
            ],
            "usage": {"input_tokens": 1000, "output_tokens": 100},
        },
        {
            "content": [{"type": "text", "text": "planned"}],
            "usage": {"input_tokens": 1000, "output_tokens": 100},
        },
    ]
    new_todos = [dict(TODOS[0], status="completed")]
    second = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_t2", "name": "TodoWrite", "input": {"todos": new_todos}}
            ]
        },
        {"content": [{"type": "text", "text": "all done"}]},
    ]
    model = {"ANTHROPIC_MODEL": "claude-sonnet-4-5"}
    with ScriptedServer(first) as srv:
        one = yoke("-p", "plan it", "--output-format", "json", env=dict(anthropic_env(srv), **model))
    assert one.code == 0, one.stderr
    first_result = json.loads(one.stdout)
    with ScriptedServer(second) as srv:
        two = yoke(
            "-p",
            "finish it",
            "-c",
            "--output-format",
            "stream-json",
            "--verbose",
            env=dict(anthropic_env(srv), **model),
        )
        history = srv.requests[0].body["messages"]
    assert two.code == 0, two.stderr
    assert "plan it" in json.dumps(history[0]) and "finish it" in json.dumps(history[-1])
    todo_result = [o for o in two.lines() if o["type"] == "user"][0]["tool_use_result"]
    assert todo_result["oldTodos"] == TODOS
    result = two.result()
    assert result["session_id"] == first_result["session_id"]
    assert result["total_cost_usd"] > first_result["total_cost_usd"] > 0

    listing = yoke("sessions", "list")
    assert listing.code == 0 and first_result["session_id"] in listing.stdout and "plan it" in listing.stdout


def test_fork_session_gets_new_id_and_leaves_the_original(yoke, home, project):
    with ScriptedServer([{"content": [{"type": "text", "text": "one"}]}]) as srv:
        first = json.loads(yoke("-p", "hello", "--output-format", "json", env=anthropic_env(srv)).stdout)
    with ScriptedServer([{"content": [{"type": "text", "text": "two"}]}]) as srv:
        forked = yoke(
            "-p",
            "again",
            "-r",
            first["session_id"],
            "--fork-session",
            "--output-format",
            "json",
            env=anthropic_env(srv),
        )
        sent = srv.requests[0].body["messages"]
    assert forked.code == 0, forked.stderr
    new_id = json.loads(forked.stdout)["session_id"]
    assert new_id != first["session_id"]
    assert len(sent) == 3  # hello, one, again
    from yoke.session.transcript import sanitize_project

    folder = home / ".yoke" / "projects" / sanitize_project(project)
    original = (folder / f"{first['session_id']}.jsonl").read_text()
    assert "again" not in original


def test_resume_unknown_session_is_one_line(yoke):
    run = yoke("-p", "x", "--resume", "00000000-0000-4000-8000-000000000000")
    assert run.code != 0
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


def test_manual_compact_then_continue(yoke):
    with ScriptedServer([{"content": [{"type": "text", "text": "The parser lives in parse.py."}]}]) as srv:
        assert yoke("-p", "where is the parser?", env=anthropic_env(srv)).code == 0
    summary = "## Goal\nFind the parser.\n## State\nIt is in parse.py."
    with ScriptedServer([{"content": [{"type": "text", "text": summary}]}]) as srv:
        run = yoke(
            "-p",
            "/compact keep file names",
            "-c",
            "--output-format",
            "stream-json",
            "--verbose",
            env=anthropic_env(srv),
        )
        asked = json.dumps(srv.requests[0].body["messages"])
    assert run.code == 0, run.stderr
    assert "keep file names" in asked
    assert any(o.get("subtype") == "compact_boundary" for o in run.lines())
    assert run.result()["subtype"] == "success"
    with ScriptedServer([{"content": [{"type": "text", "text": "still parse.py"}]}]) as srv:
        after = yoke("-p", "and now?", "-c", env=anthropic_env(srv))
        history = json.dumps(srv.requests[0].body["messages"])
    assert after.code == 0, after.stderr
    assert "It is in parse.py." in history  # the summary replaced the old exchange


def test_rewind_restores_files_edited_by_a_run(yoke, home, project):
    target = project / "config.txt"
    target.write_text("mode = safe\n")
    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_r", "name": "Read", "input": {"file_path": str(target)}}
            ]
        },
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_e",
                    "name": "Edit",
                    "input": {"file_path": str(target), "old_string": "safe", "new_string": "fast"},
                }
            ]
        },
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_w",
                    "name": "Write",
                    "input": {"file_path": str(project / "new.txt"), "content": "created\n"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "changed"}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "switch to fast",
            "--permission-mode",
            "acceptEdits",
            "--output-format",
            "json",
            env=anthropic_env(srv),
        )
    assert run.code == 0, run.stderr
    assert target.read_text() == "mode = fast\n" and (project / "new.txt").exists()
    from yoke.session.transcript import sanitize_project

    session_id = json.loads(run.stdout)["session_id"]
    transcript = home / ".yoke" / "projects" / sanitize_project(project) / f"{session_id}.jsonl"
    prompt = next(json.loads(x) for x in transcript.read_text().splitlines() if '"type":"user"' in x)
    rewound = yoke("rewind", prompt["uuid"], "--files-only")
    assert rewound.code == 0, rewound.stderr
    assert target.read_text() == "mode = safe\n"
    assert not (project / "new.txt").exists()
