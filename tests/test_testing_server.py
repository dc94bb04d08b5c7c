"""The scripted test server, driven over real sockets with plain httpx, in both wire formats."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import Any

import httpx
import pytest

from yoke.testing import ScriptedServer, ScriptError, load_script

ANTHROPIC_HEADERS = {"x-api-key": "test-key", "anthropic-version": "2023-06-01"}
READ_INPUT = {"file_path": "/tmp/some file.txt", "offset": 10, "limit": 200, "note": "ünïcode ✓"}
BASH_INPUT = {"command": "ls -la /tmp && echo done", "description": "List the temporary directory"}


def anthropic_body(stream: bool, **extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-test",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "hi"}],
        "stream": stream,
        **extra,
    }


def openai_body(stream: bool, **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}], "stream": stream, **extra}


def post_anthropic(srv: ScriptedServer, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{srv.url}/v1/messages", json=body, headers=ANTHROPIC_HEADERS, timeout=10)


def post_openai(srv: ScriptedServer, body: dict[str, Any], path: str = "/chat/completions") -> httpx.Response:
    return httpx.post(f"{srv.openai_url}{path}", json=body, headers={"authorization": "Bearer k"}, timeout=10)


def anthropic_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Parse SSE frames, checking each frame's `event:` name matches its data's type."""
    events = []
    for frame in text.split("\n\n"):
        if not frame.strip():
            continue
        name_line, data_line = frame.split("\n")
        name, data = name_line.removeprefix("event: "), json.loads(data_line.removeprefix("data: "))
        assert data["type"] == name
        events.append((name, data))
    return events


def openai_chunks(text: str) -> list[Any]:
    """Parse `data:` lines; the [DONE] terminator is kept as the string "[DONE]"."""
    lines = [frame for frame in text.split("\n\n") if frame.strip()]
    assert all(line.startswith("data: ") for line in lines)
    return [p if (p := line.removeprefix("data: ")) == "[DONE]" else json.loads(p) for line in lines]


def assemble_anthropic(events: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Rebuild the content blocks the way a client does, from deltas only."""
    blocks: dict[int, dict[str, Any]] = {}
    for name, data in events:
        if name == "content_block_start":
            blocks[data["index"]] = dict(data["content_block"], _json="")
        elif name == "content_block_delta":
            block, delta = blocks[data["index"]], data["delta"]
            key = {
                "text_delta": "text",
                "thinking_delta": "thinking",
                "signature_delta": "signature",
                "input_json_delta": "_json",
            }[delta["type"]]
            value = delta["partial_json"] if key == "_json" else delta[key]
            block[key] = block.get(key, "") + value
    return [blocks[i] for i in sorted(blocks)]


def assemble_openai_tool_calls(chunks: list[Any]) -> dict[int, dict[str, str]]:
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        if chunk == "[DONE]" or not chunk["choices"]:
            continue
        for part in chunk["choices"][0]["delta"].get("tool_calls", []):
            call = calls.setdefault(part["index"], {"id": "", "name": "", "arguments": ""})
            call["id"] += part.get("id", "")
            call["name"] += part.get("function", {}).get("name", "")
            call["arguments"] += part.get("function", {}).get("arguments", "")
    return calls


TOOL_TURN = {
    "content": [
        {"type": "thinking", "thinking": "I should look at the file first.", "signature": "sig-abc"},
        {"type": "text", "text": "Let me read the file and list the directory."},
        {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": READ_INPUT},
        {"type": "tool_use", "name": "Bash", "input": BASH_INPUT},
    ],
    "usage": {
        "input_tokens": 100,
        "output_tokens": 42,
        "cache_read_input_tokens": 30,
        "cache_creation_input_tokens": 5,
    },
}


# -- Anthropic -------------------------------------------------------------------------------------------


def test_anthropic_non_streaming_message_shape() -> None:
    with ScriptedServer([{"content": "Hello, world"}]) as srv:
        response = post_anthropic(srv, anthropic_body(stream=False))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    message = response.json()
    assert message["id"].startswith("msg_")
    assert (message["type"], message["role"], message["model"]) == ("message", "assistant", "claude-test")
    assert message["content"] == [{"type": "text", "text": "Hello, world"}]
    assert (message["stop_reason"], message["stop_sequence"]) == ("end_turn", None)
    assert set(message["usage"]) == {
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    }
    assert message["usage"]["input_tokens"] > 0 and message["usage"]["output_tokens"] > 0


def test_anthropic_stream_event_sequence_and_reassembly() -> None:
    with ScriptedServer([TOOL_TURN]) as srv:
        response = post_anthropic(srv, anthropic_body(stream=True))
    assert response.headers["content-type"].startswith("text/event-stream")
    events = anthropic_events(response.text)
    names = [name for name, _ in events]
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names[-2:] == ["message_delta", "message_stop"]
    start = events[0][1]["message"]
    assert start["content"] == [] and start["model"] == "claude-test" and start["stop_reason"] is None
    assert start["usage"]["input_tokens"] == 100 and start["usage"]["cache_read_input_tokens"] == 30
    assert start["usage"]["cache_creation_input_tokens"] == 5
    final = events[-2][1]
    assert final["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert final["usage"] == {"output_tokens": 42}

    thinking, text, read, bash = assemble_anthropic(events)
    assert thinking["thinking"] == "I should look at the file first." and thinking["signature"] == "sig-abc"
    assert text["text"] == "Let me read the file and list the directory."
    assert (read["id"], read["name"], json.loads(read["_json"])) == ("toolu_01", "Read", READ_INPUT)
    assert bash["id"].startswith("toolu_") and bash["name"] == "Bash"
    assert json.loads(bash["_json"]) == BASH_INPUT
    json_deltas = [d for n, d in events if n == "content_block_delta" and d["index"] == 2]
    assert len(json_deltas) >= 3, "partial JSON must arrive in several chunks"
    assert names.count("content_block_stop") == 4


def test_anthropic_malformed_raw_input_arrives_verbatim() -> None:
    raw = '{"command": "ls"'
    turn = {"content": [{"type": "tool_use", "id": "toolu_02", "name": "Bash", "raw_input": raw}]}
    with ScriptedServer([turn, turn]) as srv:
        streamed = assemble_anthropic(anthropic_events(post_anthropic(srv, anthropic_body(True)).text))
        whole = post_anthropic(srv, anthropic_body(False)).json()
    assert streamed[0]["_json"] == raw
    assert whole["content"][0]["input"] == raw and whole["stop_reason"] == "tool_use"


# -- OpenAI ----------------------------------------------------------------------------------------------


def test_openai_non_streaming_completion_shape() -> None:
    with ScriptedServer([TOOL_TURN]) as srv:
        response = post_openai(srv, openai_body(stream=False))
    completion = response.json()
    assert completion["object"] == "chat.completion" and completion["model"] == "gpt-test"
    choice = completion["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    message = choice["message"]
    assert message["content"] == "Let me read the file and list the directory."
    assert message["reasoning_content"] == "I should look at the file first."
    read, bash = message["tool_calls"]
    assert read["id"] == "toolu_01" and read["type"] == "function" and read["function"]["name"] == "Read"
    assert isinstance(read["function"]["arguments"], str)
    assert json.loads(read["function"]["arguments"]) == READ_INPUT
    assert bash["id"].startswith("call_") and json.loads(bash["function"]["arguments"]) == BASH_INPUT
    # OpenAI counts cached tokens inside prompt_tokens.
    assert completion["usage"]["prompt_tokens"] == 135
    assert completion["usage"]["completion_tokens"] == 42
    assert completion["usage"]["prompt_tokens_details"] == {"cached_tokens": 30}


@pytest.mark.parametrize("interleave", [False, True])
def test_openai_stream_reassembles_text_reasoning_and_tool_calls(interleave: bool) -> None:
    turn = dict(TOOL_TURN, interleave_tool_calls=interleave)
    with ScriptedServer([turn]) as srv:
        body = openai_body(stream=True, stream_options={"include_usage": True})
        chunks = openai_chunks(post_openai(srv, body).text)
    assert chunks[-1] == "[DONE]"
    first, usage_chunk, finish = chunks[0], chunks[-2], chunks[-3]
    assert first["object"] == "chat.completion.chunk" and first["choices"][0]["delta"]["role"] == "assistant"
    deltas = [c["choices"][0]["delta"] for c in chunks[1:-3]]
    assert "".join(d.get("reasoning_content", "") for d in deltas) == "I should look at the file first."
    assert "".join(d.get("content", "") for d in deltas) == "Let me read the file and list the directory."
    assert len([d for d in deltas if "content" in d]) >= 2
    assert finish["choices"][0]["finish_reason"] == "tool_calls" and finish["choices"][0]["delta"] == {}
    assert usage_chunk["choices"] == [] and usage_chunk["usage"]["completion_tokens"] == 42

    calls = assemble_openai_tool_calls(chunks)
    assert calls[0]["id"] == "toolu_01" and calls[0]["name"] == "Read"
    assert json.loads(calls[0]["arguments"]) == READ_INPUT
    assert calls[1]["id"].startswith("call_") and json.loads(calls[1]["arguments"]) == BASH_INPUT
    order = [d["tool_calls"][0]["index"] for d in deltas if "tool_calls" in d]
    assert order.count(0) >= 3, "arguments must arrive in several fragments"
    assert (order != sorted(order)) == interleave


def test_openai_stream_without_usage_option_and_plain_path() -> None:
    with ScriptedServer([{"content": "short answer here", "stop_reason": "max_tokens"}]) as srv:
        response = httpx.post(f"{srv.url}/chat/completions", json=openai_body(stream=True), timeout=10)
    chunks = openai_chunks(response.text)
    assert chunks[-1] == "[DONE]"
    assert all("usage" not in c for c in chunks[:-1])
    assert chunks[-2]["choices"][0]["finish_reason"] == "length"


def test_openai_malformed_raw_input_arrives_verbatim() -> None:
    raw = '{"command": "ls"'
    turn = {"content": [{"type": "tool_use", "name": "Bash", "raw_input": raw}]}
    with ScriptedServer([turn, turn]) as srv:
        calls = assemble_openai_tool_calls(openai_chunks(post_openai(srv, openai_body(True)).text))
        whole = post_openai(srv, openai_body(False)).json()
    assert calls[0]["arguments"] == raw
    assert whole["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == raw


# -- faults ----------------------------------------------------------------------------------------------


def test_rate_limit_fault_repeats_then_serves_the_turn() -> None:
    turns = [{"content": "after the storm", "fault": {"status": 429, "retry_after": 1, "times": 2}}]
    with ScriptedServer(turns) as srv:
        first, second = post_anthropic(srv, anthropic_body(False)), post_anthropic(srv, anthropic_body(False))
        assert srv.remaining == 1
        third = post_anthropic(srv, anthropic_body(False))
        assert srv.remaining == 0
    for response in (first, second):
        assert response.status_code == 429 and response.headers["retry-after"] == "1"
        assert response.json()["type"] == "error"
        assert response.json()["error"]["type"] == "rate_limit_error"
    assert third.status_code == 200 and third.json()["content"][0]["text"] == "after the storm"


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (529, "overloaded_error"),
        (500, "api_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
    ],
)
def test_anthropic_error_statuses(status: int, kind: str) -> None:
    with ScriptedServer([{"content": "x", "fault": {"status": status}}]) as srv:
        response = post_anthropic(srv, anthropic_body(True))
    assert response.status_code == status
    assert response.json()["error"]["type"] == kind
    if status == 404:
        assert response.json()["error"]["message"] == "model: claude-test"


def test_prompt_too_long_in_both_formats() -> None:
    fault = {"status": 400, "prompt_too_long": True, "times": "always"}
    with ScriptedServer([{"content": "never", "fault": fault}]) as srv:
        anthropic = post_anthropic(srv, anthropic_body(False))
        openai = post_openai(srv, openai_body(True))
        assert srv.remaining == 1, "an 'always' fault never lets the turn through"
    assert anthropic.status_code == 400
    assert anthropic.json()["error"] == {
        "type": "invalid_request_error",
        "message": "prompt is too long: 250000 tokens > 200000 maximum",
    }
    assert openai.status_code == 400
    error = openai.json()["error"]
    assert error["code"] == "context_length_exceeded" and error["type"] == "invalid_request_error"
    assert "maximum context length" in error["message"]


def test_openai_rate_limit_body() -> None:
    with ScriptedServer([{"content": "x", "fault": {"status": 429, "retry_after": 2.5}}]) as srv:
        response = post_openai(srv, openai_body(False))
    assert response.status_code == 429 and response.headers["retry-after"] == "2.5"
    assert set(response.json()["error"]) == {"message", "type", "param", "code"}
    assert response.json()["error"]["code"] == "rate_limit_exceeded"


def test_cut_stream_drops_connection_then_retry_gets_full_turn() -> None:
    with ScriptedServer([{"content": "complete answer text", "fault": {"cut_after": 3}}]) as srv:
        received: list[str] = []
        with (
            pytest.raises(httpx.RemoteProtocolError),
            httpx.stream("POST", f"{srv.url}/v1/messages", json=anthropic_body(True), timeout=10) as response,
        ):
            received.extend(line for line in response.iter_lines() if line.startswith("event: "))
        assert received == ["event: message_start", "event: content_block_start", "event: ping"]
        retry = anthropic_events(post_anthropic(srv, anthropic_body(True)).text)
    assert retry[-1][0] == "message_stop"
    assert assemble_anthropic(retry)[0]["text"] == "complete answer text"


def test_cut_fault_is_not_applied_to_non_streaming_requests() -> None:
    with ScriptedServer([{"content": "whole", "fault": {"cut_after": 1}}]) as srv:
        response = post_openai(srv, openai_body(False))
        assert srv.remaining == 0
    assert response.json()["choices"][0]["message"]["content"] == "whole"


def test_openai_cut_stream_has_no_done_marker() -> None:
    with ScriptedServer([{"content": "some words to send", "fault": {"cut_after": 2}}]) as srv:
        lines: list[str] = []
        with (
            pytest.raises(httpx.RemoteProtocolError),
            httpx.stream("POST", f"{srv.openai_url}/chat/completions", json=openai_body(True)) as response,
        ):
            lines.extend(line for line in response.iter_lines() if line)
    assert len(lines) == 2 and "data: [DONE]" not in lines


def test_idle_fault_stalls_after_n_events() -> None:
    turn = {"content": "slow", "fault": {"idle_after": 2, "idle_seconds": 1.0}}
    with ScriptedServer([turn]) as srv:
        events: list[str] = []
        timeout = httpx.Timeout(10, read=0.2)
        with (
            pytest.raises(httpx.ReadTimeout),
            httpx.stream("POST", f"{srv.url}/v1/messages", json=anthropic_body(True), timeout=timeout) as r,
        ):
            events.extend(line for line in r.iter_lines() if line.startswith("event: "))
        assert events == ["event: message_start", "event: content_block_start"]
        assert srv.remaining == 1


def test_stream_error_event_in_both_formats() -> None:
    fault = {"stream_error_after": 2, "times": 2}
    with ScriptedServer([{"content": "interrupted", "fault": fault}]) as srv:
        anthropic = anthropic_events(post_anthropic(srv, anthropic_body(True)).text)
        openai = openai_chunks(post_openai(srv, openai_body(True)).text)
    assert [name for name, _ in anthropic] == ["message_start", "content_block_start", "error"]
    assert anthropic[-1][1]["error"] == {"type": "overloaded_error", "message": "Overloaded"}
    assert len(openai) == 3 and "[DONE]" not in openai
    assert openai[-1]["error"]["type"] == "server_error"


def test_close_is_prompt_while_a_handler_idles() -> None:
    srv = ScriptedServer([{"content": "x", "fault": {"idle_after": 1, "idle_seconds": 60}}]).start()
    got_first_event = threading.Event()

    def client() -> None:
        try:
            with httpx.stream("POST", f"{srv.url}/v1/messages", json=anthropic_body(True), timeout=30) as r:
                for _ in r.iter_lines():
                    got_first_event.set()
        except httpx.HTTPError:
            pass

    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    assert got_first_event.wait(10)
    closer = threading.Thread(target=srv.close, daemon=True)
    closer.start()
    closer.join(timeout=10)
    assert not closer.is_alive(), "close() must not wait for the idle fault to end"
    thread.join(timeout=10)
    assert not thread.is_alive(), "the stalled client connection must be cut"


# -- script handling and recording -----------------------------------------------------------------------


def test_requests_are_recorded_with_lowercased_headers() -> None:
    with ScriptedServer([{"content": "a"}, {"content": "b"}]) as srv:
        post_anthropic(srv, anthropic_body(False))
        post_openai(srv, openai_body(True))
        httpx.get(f"{srv.url}/v1/models", headers=ANTHROPIC_HEADERS)
        models = httpx.get(f"{srv.openai_url}/models").json()
        recorded = srv.requests
    assert [(r.method, r.path, r.format) for r in recorded] == [
        ("POST", "/v1/messages", "anthropic"),
        ("POST", "/v1/chat/completions", "openai"),
        ("GET", "/v1/models", "anthropic"),
        ("GET", "/v1/models", "openai"),
    ]
    assert recorded[0].headers["x-api-key"] == "test-key"
    assert recorded[0].body == anthropic_body(False) and not recorded[0].stream
    assert recorded[1].headers["authorization"] == "Bearer k" and recorded[1].stream
    assert recorded[2].body is None
    assert models["object"] == "list" and models["data"]


def test_script_exhausted_fails_loudly_and_default_turn_takes_over() -> None:
    with ScriptedServer([{"content": "only one"}]) as srv:
        post_anthropic(srv, anthropic_body(False))
        exhausted = post_anthropic(srv, anthropic_body(False))
    assert exhausted.status_code == 500 and exhausted.headers["x-should-retry"] == "false"
    assert "script exhausted" in exhausted.json()["error"]["message"]

    with ScriptedServer([], default_turn={"content": "again", "delay": 0.01}) as srv:
        answers = [post_openai(srv, openai_body(False)).json() for _ in range(3)]
    assert [a["choices"][0]["message"]["content"] for a in answers] == ["again"] * 3


def test_callable_turns_and_add_turns_while_running() -> None:
    def echo(request: dict[str, Any]) -> dict[str, Any]:
        seen = len(srv.requests)  # reading the server from inside a callable turn must not deadlock
        return {"content": f"you said {request['messages'][-1]['content']} ({seen})"}

    with ScriptedServer([echo]) as srv:
        srv.add_turns([{"content": "added later"}])
        assert srv.remaining == 2
        first = post_anthropic(srv, anthropic_body(False))
        second = post_anthropic(srv, anthropic_body(False))
    assert first.json()["content"][0]["text"] == "you said hi (1)"
    assert second.json()["content"][0]["text"] == "added later"


def test_request_that_leaves_a_tool_use_unanswered_is_rejected_without_consuming() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_9", "name": "Read", "input": {}}],
        },
        {"role": "user", "content": "forgot the result"},
    ]
    with ScriptedServer([{"content": "ok"}]) as srv:
        rejected = post_anthropic(srv, anthropic_body(False, messages=messages))
        assert srv.remaining == 1
    assert rejected.status_code == 400 and "toolu_9" in rejected.json()["error"]["message"]


def test_bad_turns_are_refused_where_they_are_written() -> None:
    with pytest.raises(ScriptError, match="unknown key"):
        ScriptedServer([{"content": "x", "stop": "end_turn"}])
    with pytest.raises(ScriptError, match="exactly one"):
        ScriptedServer([{"content": "x", "fault": {"times": 2}}])
    with pytest.raises(ScriptError, match="needs a 'name'"):
        ScriptedServer([{"content": [{"type": "tool_use", "input": {}}]}])


def test_load_script_reads_jsonl(tmp_path: Any) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_text('{"content": "one"}\n\n{"content": "two", "stop_reason": "max_tokens"}\n')
    turns, default = load_script(path)
    assert [t["content"] for t in turns] == ["one", "two"] and default is None


def test_module_runs_as_a_process(tmp_path: Any) -> None:
    script = tmp_path / "turns.json"
    script.write_text(
        json.dumps({"turns": [{"content": "from a file"}], "default_turn": {"content": "dflt"}})
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "yoke.testing", "--script", str(script)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        first_line = proc.stdout.readline().split()
        assert first_line[0] == "YOKE_TEST_SERVER"
        base = first_line[1]
        answer = httpx.post(f"{base}/v1/messages", json=anthropic_body(False), timeout=10).json()
        assert answer["content"][0]["text"] == "from a file"
        added = httpx.post(f"{base}/_yoke/turns", json=[{"content": "pushed"}], timeout=10)
        assert added.json() == {"remaining": 1}
        pushed = httpx.post(f"{base}/v1/chat/completions", json=openai_body(False), timeout=10).json()
        assert pushed["choices"][0]["message"]["content"] == "pushed"
        recorded = httpx.get(f"{base}/_yoke/requests", timeout=10).json()
        assert [r["path"] for r in recorded] == ["/v1/messages", "/v1/chat/completions"]
        assert recorded[0]["body"]["model"] == "claude-test"
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


def test_module_reports_a_bad_script_in_one_line(tmp_path: Any) -> None:
    script = tmp_path / "turns.json"
    script.write_text('[{"content": "x", "fault": {"status": "soon"}}]')
    result = subprocess.run(
        [sys.executable, "-m", "yoke.testing", "--script", str(script)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "'status' must be a non-negative integer" in result.stderr


def test_gemini_and_responses_are_served_over_plain_http():
    import httpx

    from yoke.testing import ScriptedServer

    turns = [{"content": "hi from gemini"}, {"content": "hi from responses"}]
    with ScriptedServer(turns) as srv:
        gemini = httpx.post(
            f"{srv.gemini_url}/models/gemini-2.5-pro:generateContent",
            json={"contents": [{"role": "user", "parts": [{"text": "hello"}]}]},
        ).json()
        responses = httpx.post(
            f"{srv.openai_url}/responses", json={"model": "gpt-5.1", "input": "hello"}
        ).json()
        models = httpx.get(f"{srv.gemini_url}/models").json()
        bad = httpx.post(f"{srv.gemini_url}/models/gemini-2.5-pro:generateContent", json={"contents": []})
    assert gemini["candidates"][0]["content"]["parts"] == [{"text": "hi from gemini"}]
    assert (
        gemini["candidates"][0]["finishReason"] == "STOP" and gemini["usageMetadata"]["promptTokenCount"] > 0
    )
    assert (
        responses["status"] == "completed"
        and responses["output"][0]["content"][0]["text"] == "hi from responses"
    )
    assert models["models"][0]["name"] == "models/gemini-2.5-pro"
    assert bad.status_code == 400 and bad.json()["error"]["status"] == "INVALID_ARGUMENT"


@pytest.fixture(params=["msgspec", "stdlib"])
def body_parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways the server reads a body: msgspec peeking at a few fields, or the stdlib parsing it all."""
    from yoke.testing import body

    if request.param == "stdlib":
        monkeypatch.setattr(body, "_peek_decoder", False)
    else:
        pytest.importorskip("msgspec")
    return str(request.param)


def test_a_body_is_read_alike_whether_peeked_or_parsed(body_parser: str) -> None:
    from yoke.testing.body import parse_body

    raw = json.dumps({"model": "m", "stream": True, "messages": [{"role": "user", "content": "é"}]}).encode()
    body = parse_body(raw)
    assert body is not None
    assert (body.get("model"), body["stream"], body.get("store", "unset"), "include" in body) == (
        "m",
        True,
        "unset",
        False,
    )
    assert body["messages"][0]["content"] == "é" and len(body) == 3 and body.full()["model"] == "m"
    for bad in (b"", b"[1, 2]", b'"text"', b'{"model": ', b"\xff\xfe{}"):
        assert parse_body(bad) is None, bad


def test_a_body_that_is_no_json_object_is_refused_and_a_callable_gets_a_plain_dict(body_parser: str) -> None:
    seen: list[Any] = []

    def remember(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request)
        return {"content": "ok"}

    with ScriptedServer([remember]) as srv:
        for raw in (b"[1]", b"{not json"):
            refused = httpx.post(f"{srv.url}/v1/messages", content=raw, headers=ANTHROPIC_HEADERS, timeout=10)
            assert refused.status_code == 400 and "not a valid JSON object" in refused.text
        answer = post_anthropic(srv, anthropic_body(True))
        assert srv.requests[-1].body == anthropic_body(True)
    assert "ok" in answer.text and "claude-test" in answer.text
    assert type(seen[0]) is dict and seen[0]["messages"] == [{"role": "user", "content": "hi"}]
