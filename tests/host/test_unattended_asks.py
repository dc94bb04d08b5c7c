"""Issue 46: "Scheduled and goal turns run under the session's permission mode. Headless, nobody can be asked,
so an ask is a deny unless the session is attached." Real processes against the scripted server and a real
host: a turn no person started (a goal's next turn, a `/loop` wake-up) that asks for Bash with no client
attached is denied at once and goes on; with a client attached it waits and the client's allow is used; a
person's own prompt in a `--bg` session still waits for a client."""

from __future__ import annotations

import json
import time

from tests.agents.test_subagents import call, text
from tests.conftest import anthropic_env
from tests.host.conftest import Raw, agents, socket_of, wait_for, yoke_cmd

from yoke.host.records import stream_log_path
from yoke.testing import ScriptedServer

DENIED = "Nobody is attached to this scheduled run to ask"


def _bg(env, project, *args) -> str:
    run = yoke_cmd(env, project, "--bg", *args)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()[0].split("· ")[1]


def _result_of(srv, tool_id: str) -> str:
    """The tool result the model was sent for `tool_id` (its content as JSON text), or ''."""
    for request in srv.requests:
        for message in (request.body or {}).get("messages") or []:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_id:
                    return json.dumps(block)
    return ""


def _asked(client: Raw, tool_id: str) -> str:
    message = client.until(
        lambda m: (
            m["type"] == "stream"
            and (m["payload"]["message"].get("request") or {}).get("tool_use_id") == tool_id
        )
    )
    return message["payload"]["message"]["request_id"]


def _goal(project, check_at: int) -> str:
    (project / "count.sh").write_text(
        f'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; [ "$n" -ge {check_at} ]\n'
    )
    return "/goal --check 'sh count.sh' --max-turns 3 the work is done"


def test_a_goal_s_next_turn_asking_with_nobody_attached_is_denied_at_once_and_the_goal_goes_on(
    host_env, project
):
    touch = call("b1", "Bash", command=f"touch {project / 'made.txt'}", description="make a file")
    turns = [text("one"), {"content": [touch]}, text("two")]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _bg(env, project, "--allowedTools=Bash(sh count.sh)", _goal(project, 2))
        shown = wait_for(
            lambda: "Goal verified" in (out := yoke_cmd(env, project, "logs", ident).stdout) and out
        )
        assert DENIED in _result_of(srv, "b1")  # the model read why
        assert not (project / "made.txt").exists() and "two" in shown
        assert "answered: deny" in shown  # the ask and its answer are in the stream log
        stream = stream_log_path(ident, env).read_text()
        assert stream.count('"subtype":"unattended_turn"') == 1  # the goal's turn, not the person's


def test_with_a_client_attached_a_goal_s_turn_waits_and_the_person_s_own_turn_waits_alone(host_env, project):
    first = call("b1", "Bash", command=f"touch {project / 'first.txt'}", description="first file")
    second = call("b2", "Bash", command=f"touch {project / 'second.txt'}", description="second file")
    turns = [{"content": [first]}, text("one"), {"content": [second]}, text("two")]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _bg(env, project, "--allowedTools=Bash(sh count.sh)", _goal(project, 2))
        # the person's own turn: nobody attached, it waits (no answer, no next request)
        wait_for(lambda: agents(env, project)[0]["state"] == "blocked")
        time.sleep(2)
        assert len(srv.requests) == 1 and agents(env, project)[0]["state"] == "blocked"
        client = Raw(socket_of(env))
        client.call("attach", {"session": ident, "since": 0})
        allow = {"behavior": "allow"}
        asked = _asked(client, "b1")
        assert (
            client.call("answer", {"session": ident, "request_id": asked, "response": allow})["type"]
            == "response"
        )
        # the goal's turn, with the client attached: it waits for the client, whose allow is used
        asked = _asked(client, "b2")
        time.sleep(1)
        assert agents(env, project)[0]["state"] == "blocked" and not _result_of(srv, "b2")
        assert (
            client.call("answer", {"session": ident, "request_id": asked, "response": allow})["type"]
            == "response"
        )
        wait_for(lambda: "Goal verified" in yoke_cmd(env, project, "logs", ident).stdout)
        assert (project / "first.txt").exists() and (project / "second.txt").exists()
        assert DENIED not in _result_of(srv, "b2")
        client.close()


def test_a_loop_wake_up_turn_s_permission_prompt_and_question_are_denied_with_nobody_attached(
    host_env, project
):
    wake = call("w1", "ScheduleWakeup", delaySeconds=60, reason="CI takes a minute", prompt="/loop check CI")
    touch = call("b1", "Bash", command=f"touch {project / 'woke.txt'}", description="mark the wake-up")
    options = [{"label": "Yes", "description": "go"}, {"label": "No", "description": "wait"}]
    question = {"question": "Deploy now?", "header": "Deploy", "options": options, "multiSelect": False}
    ask = call("q1", "AskUserQuestion", questions=[question])
    turns = [{"content": [wake]}, text("waiting"), {"content": [touch]}, {"content": [ask]}, text("checked")]
    with ScriptedServer(turns) as srv:
        env = dict(
            host_env, **anthropic_env(srv), YOKE_SCHEDULE_TIME_SCALE="0.01", ENABLE_TOOL_SEARCH="false"
        )
        ident = _bg(env, project, "/loop check CI")
        wait_for(lambda: "checked" in yoke_cmd(env, project, "logs", ident).stdout)
        assert DENIED in _result_of(srv, "b1") and not (project / "woke.txt").exists()
        assert DENIED in _result_of(srv, "q1")  # AskUserQuestion too: nobody to answer it
