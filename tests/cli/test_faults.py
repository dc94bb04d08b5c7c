"""Every injected fault is recovered, or reported in one clear line, through the real `yoke -p`."""

from __future__ import annotations

import socket

import pytest
from tests.conftest import anthropic_env, openai_env

from yoke.testing import ScriptedServer

DONE = {"content": [{"type": "text", "text": "recovered"}]}


def env_for(srv, wire: str) -> dict[str, str]:
    return anthropic_env(srv) if wire == "anthropic" else openai_env(srv)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize(
    "fault",
    [
        {"status": 429, "retry_after": 0, "times": 2},
        {"status": 529, "times": 1},
        {"status": 500, "times": 2},
        {"cut_after": 3},
        {"stream_error_after": 2},
    ],
    ids=["429", "529", "500", "cut", "stream-error"],
)
def test_transient_faults_recover(yoke, wire, fault):
    with ScriptedServer([dict(DONE, fault=fault)]) as srv:
        run = yoke("-p", "hi", "--output-format", "stream-json", "--verbose", env=env_for(srv, wire))
        attempts = len(srv.requests)
    assert run.code == 0, run.stderr
    assert run.result()["result"] == "recovered"
    assert attempts >= 2
    if "status" in fault:
        retries = [o for o in run.lines() if o.get("subtype") == "api_retry"]
        assert len(retries) == fault["times"]
        assert retries[0]["error_status"] == fault["status"]
        assert {"attempt", "max_retries", "retry_delay_ms"} <= set(retries[0])


def test_retry_after_is_honoured(yoke):
    with ScriptedServer([dict(DONE, fault={"status": 429, "retry_after": 1})]) as srv:
        run = yoke("-p", "hi", "--output-format", "stream-json", "--verbose", env=anthropic_env(srv))
    retry = [o for o in run.lines() if o.get("subtype") == "api_retry"][0]
    assert retry["retry_delay_ms"] == 1000
    assert run.code == 0


def test_idle_stream_is_retried_without_streaming(yoke):
    with ScriptedServer([dict(DONE, fault={"idle_after": 2, "idle_seconds": 5})]) as srv:
        run = yoke(
            "-p",
            "hi",
            "--output-format",
            "json",
            env=dict(anthropic_env(srv), YOKE_STREAM_IDLE_TIMEOUT="0.5"),
        )
        streams = [r.stream for r in srv.requests]
    assert run.code == 0, run.stderr
    assert run.result()["result"] == "recovered"
    assert streams == [True, False]


@pytest.mark.parametrize(
    ("status", "needle"),
    [(401, "API key"), (403, "ermission"), (404, "model")],
)
def test_fatal_status_is_one_clear_line(yoke, status, needle):
    with ScriptedServer([dict(DONE, fault={"status": status, "times": "always"})]) as srv:
        run = yoke("-p", "hi", env=anthropic_env(srv))
    assert run.code == 1
    lines = run.stdout.strip().splitlines()  # the API error is the result: stdout, as Claude Code
    assert len(lines) == 1, run.stdout
    assert needle in lines[0]
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_prompt_too_long(yoke, wire):
    with ScriptedServer(
        [dict(DONE, fault={"status": 400, "prompt_too_long": True, "times": "always"})]
    ) as srv:
        run = yoke("-p", "hi", "--output-format", "json", env=env_for(srv, wire))
    result = run.result()
    assert run.code == 1
    assert result["is_error"] is True and result["terminal_reason"] == "prompt_too_long"


def test_retries_exhausted_is_model_error(yoke):
    with ScriptedServer([dict(DONE, fault={"status": 529, "times": "always"})]) as srv:
        run = yoke("-p", "hi", "--output-format", "json", env=dict(anthropic_env(srv), YOKE_MAX_RETRIES="2"))
        attempts = len(srv.requests)
    assert attempts == 3
    result = run.result()
    assert result["is_error"] and result["terminal_reason"] == "model_error"
    assert result["api_error_status"] == 529


def test_unreachable_base_url(yoke):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    run = yoke(
        "-p",
        "hi",
        env={
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
            "ANTHROPIC_API_KEY": "k",
            "YOKE_MAX_RETRIES": "1",
        },
    )
    assert run.code == 1
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 1 and f"127.0.0.1:{port}" in lines[0], run.stdout


def test_malformed_tool_json_reaches_the_model(yoke, project):
    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_bad", "name": "Read", "raw_input": '{"file_path": "/x"'}
            ]
        },
        {"content": [{"type": "text", "text": "I will fix my JSON"}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "read", "--output-format", "json", env=anthropic_env(srv))
        second = srv.requests[1].body
    assert run.code == 0, run.stderr
    result_block = second["messages"][-1]["content"][0]
    assert result_block["type"] == "tool_result" and result_block["is_error"] is True
    assert "JSON" in str(result_block["content"])
