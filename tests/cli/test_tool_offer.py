"""Which tools each model is offered, as Claude Code 2.1.330 offers them (providers/models.json `tool_offer`),
and the tools it added: ToolSearch for deferred built-ins, Monitor and ListAgents. Through `yoke -p` against
the scripted server, reading the requests."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

TEXT = {"content": [{"type": "text", "text": "done"}]}
STREAM = ("--output-format", "stream-json", "--verbose")


def names(body: dict[str, Any]) -> list[str]:
    return [t["name"] for t in body["tools"]]


def init_tools(stdout: str) -> list[str]:
    return next(json.loads(line)["tools"] for line in stdout.splitlines() if '"init"' in line)


def call(id_: str, tool: str, **input: Any) -> dict:
    return {"content": [{"type": "tool_use", "id": id_, "name": tool, "input": input}]}


def test_each_model_is_offered_the_tools_claude_code_offers_it(yoke, project):
    offered = {}
    for model in ("claude-sonnet-5-5", "claude-sonnet-4-5", "claude-3-7-sonnet-20250219"):
        with ScriptedServer([TEXT]) as srv:
            run = yoke("-p", "hi", *STREAM, "--model", model, env=anthropic_env(srv))
            offered[model] = (names(srv.requests[0].body), init_tools(run.stdout))
        assert run.code == 0, run.stderr
    newest, newest_init = offered["claude-sonnet-5-5"]
    # the newest families get no todo or task-list tools at all; rarely used tools wait behind ToolSearch
    assert not {"TodoWrite", "TaskCreate", "TaskList"} & set(newest_init)
    assert "ToolSearch" in newest and {"WebFetch", "Monitor", "NotebookEdit"} <= set(newest_init)
    assert not {"WebFetch", "Monitor", "NotebookEdit", "SendMessage"} & set(newest)
    assert {"Bash", "Read", "Edit", "Write", "Agent", "ListAgents"} <= set(newest)
    older, older_init = offered["claude-sonnet-4-5"]
    assert {"TodoWrite", "TaskCreate"} <= set(older_init) and "TaskCreate" not in older
    # Claude 3 models have no tool search: everything is sent in full
    legacy, _ = offered["claude-3-7-sonnet-20250219"]
    assert "ToolSearch" not in legacy and {"TaskCreate", "Monitor", "WebFetch"} <= set(legacy)


def test_toolsearch_loads_a_deferred_built_in_for_the_next_request(yoke, project):
    turns = [call("s1", "ToolSearch", query="select:WebFetch"), TEXT]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "fetch it", *STREAM, env=anthropic_env(srv))
        first, second = (r.body for r in srv.requests)
    assert run.code == 0, run.stderr
    search = next(t for t in first["tools"] if t["name"] == "ToolSearch")
    assert "WebFetch" in search["description"] and "WebFetch" not in names(first)
    assert "WebFetch" in names(second)
    assert "WebFetch" in second["messages"][-1]["content"][0]["content"]
    # sending every tool in full stays a choice; tools picked by name are sent in full
    with ScriptedServer([TEXT]) as srv:
        yoke("-p", "hi", env={**anthropic_env(srv), "ENABLE_TOOL_SEARCH": "false"})
        assert {"WebFetch", "Monitor"} <= set(names(srv.requests[0].body))
    with ScriptedServer([TEXT]) as srv:
        yoke("-p", "hi", "--tools", "Bash,WebFetch", env=anthropic_env(srv))
        assert names(srv.requests[0].body) == ["Bash", "WebFetch"]


def test_monitor_wakes_the_model_with_each_line_the_command_prints(yoke, project):
    command = "for i in 1 2; do echo tick-$i; sleep 0.2; done; echo 'ERROR disk full'"
    turns = [
        call("m1", "Monitor", description="watch the build log", command=command, timeout_ms=20000),
        call("b1", "Bash", command="sleep 2"),
        TEXT,
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "watch it", *STREAM, "--permission-mode", "bypassPermissions", env=anthropic_env(srv)
        )
        third = srv.requests[2].body
    assert run.code == 0, run.stderr
    seen = json.dumps(third["messages"])
    assert "<task-notification>" in seen and "watch the build log" in seen
    assert "tick-1" in seen and "tick-2" in seen and "ERROR disk full" in seen
    assert "exited with code 0" in seen


def test_list_agents_shows_the_agents_send_message_can_reach(yoke, project):
    def answer(body: dict[str, Any]) -> dict:
        first = json.dumps(body["messages"][0]["content"])
        if "SCOUT job" in first:
            return TEXT
        steps = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if steps == 0:
            return call(
                "a1", "Agent", run_in_background=False, description="scout", prompt="SCOUT job", name="scout"
            )
        if steps == 1:
            return call("l1", "ListAgents")
        return TEXT

    with ScriptedServer(default_turn=answer) as srv:
        run = yoke("-p", "go", *STREAM, "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
        last = srv.requests[-1].body
    assert run.code == 0, run.stderr
    result = last["messages"][-1]["content"][0]
    assert result["tool_use_id"] == "l1" and "scout (general-purpose, id " in json.dumps(result)
    assert "finished" in json.dumps(result)
