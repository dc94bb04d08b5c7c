"""`--input-format stream-json`: the Agent SDK's launch line and control protocol, driven like the SDK does."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

SDK_ARGV = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--system-prompt",
    "",
    "--max-turns",
    "5",
    "--permission-prompt-tool",
    "stdio",
    "--setting-sources=project",
    "--input-format",
    "stream-json",
]


def launch(project, env) -> subprocess.Popen:
    """yoke started the way the Agent SDK starts it: NDJSON both ways over pipes."""
    return subprocess.Popen(
        [sys.executable, "-m", "yoke", *SDK_ARGV],
        cwd=project,
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def send(proc, obj):
    proc.stdin.write(json.dumps(obj) + "\n")
    proc.stdin.flush()


def read_until(proc, predicate):
    seen = []
    while True:
        line = proc.stdout.readline()
        assert line, f"yoke exited early: {seen} {proc.stderr.read()}"
        obj = json.loads(line)
        seen.append(obj)
        if predicate(obj):
            return seen


def test_sdk_style_session_with_permission_prompt(project, base_env):
    target = project / "notes.txt"
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_w",
                    "name": "Write",
                    "input": {"file_path": str(target), "content": "from the sdk\n"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "written"}]},
        {"content": [{"type": "text", "text": "second answer"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv), CLAUDE_CODE_ENTRYPOINT="sdk-py")
        proc = launch(project, env)
        try:
            send(
                proc,
                {
                    "type": "control_request",
                    "request_id": "req_1_ab",
                    "request": {"subtype": "initialize", "hooks": None},
                },
            )
            init = read_until(proc, lambda o: o["type"] == "control_response")[-1]
            assert init["response"]["request_id"] == "req_1_ab" and init["response"]["subtype"] == "success"
            send(
                proc,
                {
                    "type": "user",
                    "message": {"role": "user", "content": "write notes"},
                    "parent_tool_use_id": None,
                    "session_id": "default",
                },
            )
            ask = read_until(proc, lambda o: o["type"] == "control_request")[-1]
            assert ask["request"]["subtype"] == "can_use_tool" and ask["request"]["tool_name"] == "Write"
            assert ask["request"]["tool_use_id"] == "toolu_w"
            send(
                proc,
                {
                    "type": "control_response",
                    "response": {
                        "subtype": "success",
                        "request_id": ask["request_id"],
                        "response": {"behavior": "allow", "updatedInput": ask["request"]["input"]},
                    },
                },
            )
            first = read_until(proc, lambda o: o["type"] == "result")
            assert first[-1]["subtype"] == "success" and first[-1]["result"] == "written"
            assert target.read_text() == "from the sdk\n"
            send(
                proc,
                {
                    "type": "user",
                    "message": {"role": "user", "content": "again"},
                    "parent_tool_use_id": None,
                    "session_id": "default",
                },
            )
            second = read_until(proc, lambda o: o["type"] == "result")
            assert any(o.get("subtype") == "init" for o in second)  # init at the start of each query
            assert second[-1]["result"] == "second answer"
            assert second[-1]["session_id"] == first[-1]["session_id"]
            proc.stdin.close()
            assert proc.wait(timeout=20) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
        # the second request carried the whole conversation
        assert len(srv.requests[-1].body["messages"]) == 5


def test_permission_denied_over_stdio(project, base_env):
    target = project / "denied.txt"
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_w",
                    "name": "Write",
                    "input": {"file_path": str(target), "content": "x"},
                }
            ]
        },
        {"content": [{"type": "text", "text": "ok, not writing"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv))
        proc = launch(project, env)
        try:
            send(proc, {"type": "user", "message": {"role": "user", "content": "write"}})
            ask = read_until(proc, lambda o: o["type"] == "control_request")[-1]
            send(
                proc,
                {
                    "type": "control_response",
                    "response": {
                        "subtype": "success",
                        "request_id": ask["request_id"],
                        "response": {"behavior": "deny", "message": "not today"},
                    },
                },
            )
            lines = read_until(proc, lambda o: o["type"] == "result")
            proc.stdin.close()
            proc.wait(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
    result = lines[-1]
    assert not target.exists()
    assert result["permission_denials"][0]["tool_name"] == "Write"
    tool_result = [o for o in lines if o["type"] == "user"][0]["message"]["content"][0]
    assert tool_result["is_error"] and "not today" in json.dumps(tool_result)


def test_a_user_message_with_priority_next_joins_the_running_query(project, base_env):
    """2.1.332's SDK user message carries `priority` (now/next/later): `next` sent while a query waits on a
    permission prompt is read at that query's next model request, with no query (no result) of its own."""
    write = {
        "type": "tool_use",
        "id": "toolu_w",
        "name": "Write",
        "input": {"file_path": str(project / "n.txt"), "content": "x"},
    }
    turns = [{"content": [write]}, {"content": [{"type": "text", "text": "saw both"}]}]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv), CLAUDE_CODE_ENTRYPOINT="sdk-py")
        proc = launch(project, env)
        try:
            user = {"type": "user", "parent_tool_use_id": None, "session_id": "default"}
            send(proc, user | {"message": {"role": "user", "content": "write n"}})
            ask = read_until(proc, lambda o: o["type"] == "control_request")[-1]
            send(proc, user | {"message": {"role": "user", "content": "also this"}, "priority": "next"})
            allow = {"behavior": "allow", "updatedInput": ask["request"]["input"]}
            reply = {"subtype": "success", "request_id": ask["request_id"], "response": allow}
            send(proc, {"type": "control_response", "response": reply})
            lines = read_until(proc, lambda o: o["type"] == "result")
            assert lines[-1]["result"] == "saw both"
            proc.stdin.close()
            assert proc.wait(timeout=20) == 0
            rest = [json.loads(line) for line in proc.stdout.read().splitlines() if line.strip()]
            assert not [o for o in rest if o["type"] == "result"]  # one query, one result
        finally:
            if proc.poll() is None:
                proc.kill()
        assert len(srv.requests) == 2 and "also this" in json.dumps(srv.requests[1].body["messages"][-1])
        assert "also this" not in json.dumps(srv.requests[0].body)
