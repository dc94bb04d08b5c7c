"""`--json-schema`: the StructuredOutput tool, validation, retries, and the result's `structured_output`."""

from __future__ import annotations

import json

import pytest
from tests.conftest import anthropic_env, openai_env

SCHEMA = {
    "type": "object",
    "properties": {"color": {"type": "string"}, "legs": {"type": "integer"}},
    "required": ["color", "legs"],
}


def call(tool_id: str, data: dict) -> dict:
    return {"content": [{"type": "tool_use", "id": tool_id, "name": "StructuredOutput", "input": data}]}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_invalid_output_is_retried_then_returned(yoke, wire):
    from yoke.testing import ScriptedServer

    turns = [
        call("toolu_1", {"color": "blue", "legs": "four"}),
        call("toolu_2", {"color": "blue", "legs": 4}),
        {"content": [{"type": "text", "text": "Done."}]},
    ]
    with ScriptedServer(turns) as srv:
        env = anthropic_env(srv) if wire == "anthropic" else openai_env(srv)
        run = yoke(
            "-p", "sky and cat", "--json-schema", json.dumps(SCHEMA), "--output-format", "stream-json",
            "--verbose", env=env,
        )  # fmt: skip
        first = srv.requests[0].body
    assert run.code == 0, run.stderr
    lines = run.lines()
    assert "StructuredOutput" in lines[0]["tools"]
    tools = first["tools"]
    names = [t.get("name") or t.get("function", {}).get("name") for t in tools]
    assert "StructuredOutput" in names
    results = [b for line in lines if line["type"] == "user" for b in line["message"]["content"]]
    assert results[0]["is_error"] is True and "legs" in str(results[0]["content"])
    assert not results[1].get("is_error")
    result = lines[-1]
    assert result["subtype"] == "success" and result["is_error"] is False
    assert result["structured_output"] == {"color": "blue", "legs": 4}
    assert json.loads(result["result"]) == {"color": "blue", "legs": 4}


def test_text_mode_prints_the_json(yoke):
    from yoke.testing import ScriptedServer

    turns = [call("toolu_1", {"color": "red", "legs": 2}), {"content": [{"type": "text", "text": "ok"}]}]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "x", "--json-schema", json.dumps(SCHEMA), env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout) == {"color": "red", "legs": 2}


def test_an_answer_without_the_tool_is_sent_back_once_then_is_the_result(yoke):
    """As 2.1.330 on the same script (tests/cli/cc_2_1_330/json_schema_plain.jsonl): one reminder, and a
    second plain answer ends the query with success and that text."""
    from yoke.testing import ScriptedServer

    turns = [{"content": [{"type": "text", "text": f"plain {i}"}]} for i in range(3)]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "x", "--json-schema", json.dumps(SCHEMA), "--output-format", "json", env=anthropic_env(srv)
        )  # fmt: skip
        reminders = [json.dumps(r.body["messages"][-1]) for r in srv.requests[1:]]
    assert run.code == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["subtype"] == "success" and result["is_error"] is False
    assert result["result"] == "plain 1" and "structured_output" not in result
    assert len(reminders) == 1 and "StructuredOutput" in reminders[0]


def test_no_reminders_allowed_gives_up_at_once(yoke):
    from yoke.testing import ScriptedServer

    with ScriptedServer([{"content": [{"type": "text", "text": "plain"}]}]) as srv:
        run = yoke(
            "-p", "x", "--json-schema", json.dumps(SCHEMA), "--output-format", "json",
            env=dict(anthropic_env(srv), MAX_STRUCTURED_OUTPUT_RETRIES="0"),
        )  # fmt: skip
    assert run.code == 1
    result = json.loads(run.stdout)
    assert result["subtype"] == "error_max_structured_output_retries" and result["is_error"] is True
    assert "structured_output" not in result and "result" not in result


@pytest.mark.parametrize("schema", ["{not json", '{"type": "array"}', '{"type": 12}'])
def test_a_bad_schema_is_refused_before_any_work(yoke, schema):
    run = yoke("-p", "x", "--json-schema", schema)
    assert run.code != 0
    assert "--json-schema" in run.stderr and len(run.stderr.strip().splitlines()) == 1
