"""Model errors shaped as Claude Code's: a synthetic assistant message, the result's own stop reason, its
texts; a refused connection said on stderr and given up quickly."""

from __future__ import annotations

import json
import socket
import time

import pytest
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

DONE = {"content": [{"type": "text", "text": "ok"}]}


@pytest.mark.parametrize(
    ("status", "kind", "start"),
    [
        (500, "server_error", "API Error: 500"),
        (400, "invalid_request", "API Error: 400"),
        (401, "authentication_failed", "Invalid API key"),
        (529, "overloaded", "API Error: Repeated 529 Overloaded errors"),
    ],
)
def test_api_error_is_a_synthetic_assistant_message(yoke, status, kind, start):
    with ScriptedServer([dict(DONE, fault={"status": status, "times": "always"})]) as srv:
        run = yoke(
            "-p", "hi", "--output-format", "stream-json", "--verbose",
            env=dict(anthropic_env(srv), YOKE_MAX_RETRIES="1"),
        )  # fmt: skip
    assert run.code == 1
    lines = run.lines()
    assistant = [line for line in lines if line["type"] == "assistant"]
    assert len(assistant) == 1
    message = assistant[0]["message"]
    assert message["model"] == "<synthetic>" and assistant[0]["error"] == kind
    text = message["content"][0]["text"]
    assert text.startswith(start)
    result = lines[-1]
    assert result["subtype"] == "success" and result["is_error"] is True
    assert result["result"] == text and result["stop_reason"] == "stop_sequence"
    assert result["api_error_status"] == status


def test_text_mode_prints_the_api_error_on_stdout(yoke):
    with ScriptedServer([dict(DONE, fault={"status": 500, "times": "always"})]) as srv:
        run = yoke("-p", "hi", env=dict(anthropic_env(srv), YOKE_MAX_RETRIES="1"))
    assert run.code == 1
    assert run.stdout.startswith("API Error: 500") and len(run.stdout.splitlines()) == 1
    assert "retrying" in run.stderr  # the retry is said where a person sees it, not in the pipe


def test_refused_connection_says_so_and_gives_up_sooner(yoke):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    run = yoke(
        "-p", "hi", "--output-format", "json",
        env={"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}", "ANTHROPIC_API_KEY": "k",
             "YOKE_RETRY_BASE_DELAY": "0.05"},
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert run.code == 1
    retries = [line for line in run.stderr.splitlines() if "retrying" in line]
    assert len(retries) == 2 and all("refused" in line.lower() for line in retries), run.stderr
    result = json.loads(run.stdout)
    assert result["is_error"] is True and f"127.0.0.1:{port}" in result["result"]
    assert elapsed < 30
