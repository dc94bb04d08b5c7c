"""OpenTelemetry export through the real `yoke -p` to a real OTLP receiver: Claude Code's metric and event
names, units and attributes (as 2.1.330 sends them, docs/observability.md), spans with `traceparent` on the
model requests, the protocol variants, headers (variable and `otelHeadersHelper`), and cost agreement."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk")  # the `otel` extra (in the dev extra)

from tests.conftest import anthropic_env  # noqa: E402
from tests.telemetry.otlp_receiver import GrpcOtlpReceiver, OtlpReceiver  # noqa: E402

from yoke.testing import ScriptedServer  # noqa: E402

USAGE = {
    "input_tokens": 1200,
    "output_tokens": 300,
    "cache_read_input_tokens": 5000,
    "cache_creation_input_tokens": 800,
}


def edit_script(project: Path) -> list[dict]:
    target = str(project / "greet.py")
    return [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": target}}
            ],
            "usage": USAGE,
        },
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_edit",
                    "name": "Edit",
                    "input": {"file_path": target, "old_string": "Helo", "new_string": "Hello"},
                }
            ],
            "usage": USAGE,
        },
        {"content": [{"type": "text", "text": "Fixed."}], "usage": USAGE},
    ]


def otel_env(receiver: OtlpReceiver, protocol: str = "http/json", **extra: str) -> dict[str, str]:
    return {
        "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_LOGS_EXPORTER": "otlp",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL": protocol,
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
        "OTEL_METRIC_EXPORT_INTERVAL": "60000",  # the final export at exit must carry everything
        **extra,
    }


@pytest.fixture
def greet(project: Path) -> Path:
    path = project / "greet.py"
    path.write_text('print("Helo, world")\n')
    return path


def run_edit(yoke, project, receiver, protocol="http/json", **extra):
    with ScriptedServer(edit_script(project)) as srv:
        env = {**anthropic_env(srv), **otel_env(receiver, protocol, **extra)}
        run = yoke(
            "-p", "fix greet.py", "--permission-mode", "acceptEdits", "--output-format", "json", env=env
        )
        assert run.code == 0, run.stderr
        traceparents = [r.headers.get("traceparent") for r in srv.requests]
    return json.loads(run.stdout), run, traceparents


def one(items: list[dict], **match) -> dict:
    found = [i for i in items if all(i.get(k) == v or i["attributes"].get(k) == v for k, v in match.items())]
    assert len(found) == 1, (match, items)
    return found[0]


CONTENT_TYPES = {
    "http/json": "application/json",
    "http/protobuf": "application/x-protobuf",
    "grpc": "application/grpc",
}


@pytest.mark.parametrize("protocol", ["http/json", "http/protobuf", "grpc"])
def test_an_editing_run_exports_claude_codes_metrics_and_events(yoke, project, greet, protocol):
    with GrpcOtlpReceiver() if protocol == "grpc" else OtlpReceiver() as receiver:
        result, run, _ = run_edit(yoke, project, receiver, protocol)
    assert greet.read_text() == 'print("Hello, world")\n'
    kinds = {r["content_type"].split(";")[0] for r in receiver.requests}
    assert kinds == {CONTENT_TYPES[protocol]}
    assert {r["path"] for r in receiver.requests} == {"/v1/metrics", "/v1/logs", "/v1/traces"}
    metrics = receiver.metrics()
    session_id = result["session_id"]
    for point in metrics:
        assert point["attributes"]["session.id"] == session_id
        assert point["resource"]["service.name"] == "yoke"
    assert one(metrics, name="claude_code.session.count")["attributes"]["start_type"] == "fresh"
    model = result["modelUsage"] and next(iter(result["modelUsage"]))
    tokens = {p["attributes"]["type"]: p for p in metrics if p["name"] == "claude_code.token.usage"}
    assert set(tokens) == {"input", "output", "cacheRead", "cacheCreation"}
    assert all(p["unit"] == "tokens" and p["attributes"]["model"] == model for p in tokens.values())
    assert tokens["cacheRead"]["value"] == 3 * 5000 and tokens["output"]["value"] == 3 * 300
    assert tokens["input"]["value"] == result["usage"]["input_tokens"]
    cost = [p for p in metrics if p["name"] == "claude_code.cost.usage"]
    assert cost[0]["unit"] == "USD"
    assert round(sum(p["value"] for p in cost), 2) == round(result["total_cost_usd"], 2)
    assert abs(sum(p["value"] for p in cost) - result["total_cost_usd"]) < 1e-9
    assert {
        (p["attributes"]["type"], p["value"])
        for p in metrics
        if p["name"] == "claude_code.lines_of_code.count"
    } == {
        ("added", 1.0),
        ("removed", 1.0),
    }
    decision = one(metrics, name="claude_code.code_edit_tool.decision")
    assert {k: decision["attributes"][k] for k in ("decision", "source", "tool_name", "language")} == {
        "decision": "accept",
        "source": "config",
        "tool_name": "Edit",
        "language": "Python",
    }
    active = one(metrics, name="claude_code.active_time.total")
    assert active["unit"] == "s" and active["value"] > 0 and active["attributes"]["type"] == "cli"

    events = receiver.events()
    assert all(e["scope"] == "com.anthropic.claude_code.events" for e in events)
    names = [e["attributes"]["event.name"] for e in events]
    assert names.count("api_request") == 3 and names.count("assistant_response") == 3
    assert (
        names.count("tool_decision") == 2
        and names.count("tool_result") == 2
        and names.count("user_prompt") == 1
    )
    assert all(e["body"] == "claude_code." + e["attributes"]["event.name"] for e in events)
    assert sorted(e["attributes"]["event.sequence"] for e in events) == list(range(len(events)))
    prompt = one(events, **{"event.name": "user_prompt"})["attributes"]
    assert prompt["prompt_length"] == "12" and prompt["prompt"] == "<REDACTED>"  # no OTEL_LOG_USER_PROMPTS
    requests = [e["attributes"] for e in events if e["attributes"]["event.name"] == "api_request"]
    assert requests[0]["cache_read_tokens"] == 5000 and requests[0]["output_tokens"] == 300
    assert abs(sum(r["cost_usd"] for r in requests) - result["total_cost_usd"]) < 1e-9
    edit = one(events, **{"event.name": "tool_result", "tool_name": "Edit"})["attributes"]
    assert edit["success"] == "true" and int(edit["tool_result_size_bytes"]) > 0
    assert (
        one(events, **{"event.name": "tool_decision", "tool_name": "Edit"})["attributes"]["decision"]
        == "accept"
    )
    assert len({e["attributes"]["prompt.id"] for e in events}) == 1


def test_spans_nest_and_model_requests_carry_traceparent(yoke, project, greet):
    with OtlpReceiver() as receiver:
        result, run, traceparents = run_edit(yoke, project, receiver)
    spans = receiver.spans()
    root = one(spans, name="claude_code.interaction")
    assert root["parent"] == "" and root["attributes"]["num_turns"] == 3
    requests = [s for s in spans if s["name"] == "claude_code.llm_request"]
    assert len(requests) == 3 and all(s["parent"] == root["span_id"] for s in requests)
    assert {s["trace_id"] for s in spans} == {root["trace_id"]}
    # the header of each model request names that request's span
    assert traceparents == [f"00-{root['trace_id']}-{s['span_id']}-01" for s in requests]
    first = requests[0]["attributes"]
    assert first["input_tokens"] == 1200 and first["cache_read_tokens"] == 5000 and first["retries"] == 0
    assert first["ttft_ms"] >= 0 and first["model"]
    assert abs(sum(s["attributes"]["cost_usd"] for s in requests) - result["total_cost_usd"]) < 1e-9
    # where the money went (loop/spend.py): the cause, the cache miss and the results each request added
    assert all(s["attributes"]["yoke.cause"] == "user_prompt" for s in requests)
    assert first["yoke.cache_miss.causes"] == "first_request"
    assert requests[1]["attributes"]["yoke.new_tool_results"].startswith("Read:")
    tools = {s["attributes"]["tool_name"]: s for s in spans if s["name"] == "claude_code.tool"}
    assert set(tools) == {"Read", "Edit"}
    assert (
        tools["Edit"]["attributes"]["decision"] == "accept" and tools["Edit"]["attributes"]["success"] is True
    )
    assert tools["Edit"]["attributes"]["result_size_bytes"] > 0
    children = {s["name"] for s in spans if s["parent"] == tools["Edit"]["span_id"]}
    assert children == {"claude_code.tool.blocked_on_user", "claude_code.tool.execution"}


def test_headers_prompts_and_resource_attributes(yoke, project, greet, home):
    helper = project / "otel-headers.sh"
    helper.write_text('#!/bin/sh\necho \'{"X-From-Helper": "token-123"}\'\n')
    helper.chmod(0o755)
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"otelHeadersHelper": str(helper)}))
    with OtlpReceiver() as receiver:
        run_edit(
            yoke,
            project,
            receiver,
            OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer%20abc,X-Team=core",
            OTEL_LOG_USER_PROMPTS="1",
            OTEL_RESOURCE_ATTRIBUTES="department=eng,team.id=platform",
        )
    assert receiver.requests
    for request in receiver.requests:
        headers = {k.lower(): v for k, v in request["headers"].items()}
        assert headers["authorization"] == "Bearer abc" and headers["x-team"] == "core"
        assert headers["x-from-helper"] == "token-123"
    prompt = one(receiver.events(), **{"event.name": "user_prompt"})["attributes"]
    assert prompt["prompt"] == "fix greet.py"
    resource = receiver.metrics()[0]["resource"]
    assert resource["department"] == "eng" and resource["team.id"] == "platform"


def test_a_failing_headers_helper_is_one_warning_and_the_run_goes_on(yoke, project, greet, home):
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"otelHeadersHelper": "exit 3"}))
    with OtlpReceiver() as receiver:
        _, run, _ = run_edit(yoke, project, receiver)
    assert "otelHeadersHelper exited with status 3" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("OTEL_METRICS_EXPORTER", "statsd", "otlp, console, prometheus, none"),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "udp", "grpc, http/json, http/protobuf"),
        ("OTEL_METRIC_EXPORT_INTERVAL", "soon", "whole number (milliseconds)"),
    ],
)
def test_a_bad_value_is_one_line(yoke, project, greet, variable, value, says):
    with OtlpReceiver() as receiver:
        _, run, _ = run_edit(yoke, project, receiver, **{variable: value})
    lines = [line for line in run.stderr.splitlines() if "telemetry" in line]
    assert len(lines) == 1 and says in lines[0] and value in lines[0], run.stderr
    assert "Traceback" not in run.stderr
    assert not receiver.requests


def test_per_signal_endpoints_and_protocols(yoke, project, greet):
    with OtlpReceiver() as metrics, OtlpReceiver() as rest:
        run_edit(
            yoke,
            project,
            rest,
            OTEL_EXPORTER_OTLP_METRICS_ENDPOINT=metrics.url + "/v1/metrics",
            OTEL_EXPORTER_OTLP_METRICS_PROTOCOL="http/protobuf",
        )
    assert {(r["path"], r["content_type"]) for r in metrics.requests} == {
        ("/v1/metrics", "application/x-protobuf")
    }
    assert {(r["path"], r["content_type"]) for r in rest.requests} == {
        ("/v1/logs", "application/json"),
        ("/v1/traces", "application/json"),
    }


def test_api_errors_are_events(yoke, project):
    script = [{"fault": {"status": 400}, "content": "x"}]
    with OtlpReceiver() as receiver, ScriptedServer(script) as srv:
        env = {**anthropic_env(srv), **otel_env(receiver)}
        run = yoke("-p", "hi", "--output-format", "json", env=env)
    assert run.code == 1
    error = one(receiver.events(), **{"event.name": "api_error"})["attributes"]
    assert error["status_code"] == "400" and error["error"] and error["model"] != "<synthetic>"


def test_console_exporters_write_to_stderr_not_stdout(yoke, project, greet):
    with ScriptedServer(edit_script(project)) as srv:
        env = {**anthropic_env(srv), "CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_METRICS_EXPORTER": "console"}
        run = yoke(
            "-p", "fix greet.py", "--permission-mode", "acceptEdits", "--output-format", "json", env=env
        )
    assert run.code == 0
    json.loads(run.stdout)  # stdout is still exactly the result
    assert "claude_code.token.usage" in run.stderr


def test_sub_agents_are_child_spans_and_hooks_get_spans(yoke, project, home):
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    hook = {"matcher": "*", "hooks": [{"type": "command", "command": "exit 0"}]}
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))

    def answer(body: dict) -> dict:
        first = body["messages"][0]["content"]
        first = first if isinstance(first, str) else " ".join(b.get("text", "") for b in first)
        if "SUB job" in first:
            if any(m["role"] == "assistant" for m in body["messages"]):
                return {"content": [{"type": "text", "text": "sub done"}]}
            return {
                "content": [{"type": "tool_use", "id": "s1", "name": "Glob", "input": {"pattern": "*.py"}}]
            }
        if any(m["role"] == "assistant" for m in body["messages"]):
            return {"content": [{"type": "text", "text": "all done"}]}
        call = {"type": "tool_use", "id": "a1", "name": "Agent"}
        call["input"] = {
            "description": "look",
            "prompt": "SUB job",
            "subagent_type": "general-purpose",
            "run_in_background": False,
        }
        return {"content": [call]}

    with OtlpReceiver() as receiver, ScriptedServer(default_turn=answer) as srv:
        env = {**anthropic_env(srv), **otel_env(receiver)}
        run = yoke("-p", "go", "--output-format", "json", env=env)
        traceparents = [r.headers.get("traceparent") for r in srv.requests]
    assert run.code == 0, run.stderr
    spans = receiver.spans()
    agent = one(spans, name="claude_code.tool", tool_name="Agent")
    root = one(spans, name="claude_code.interaction")
    assert agent["parent"] == root["span_id"]
    under_agent = [s for s in spans if s["parent"] == agent["span_id"]]
    requests = [s for s in under_agent if s["name"] == "claude_code.llm_request"]
    assert len(requests) == 2 and all(s["attributes"]["agent_id"] != "main" for s in requests)
    glob = one(spans, name="claude_code.tool", tool_name="Glob")
    assert glob["parent"] == agent["span_id"]
    assert len(traceparents) == 4 and all(tp.startswith(f"00-{root['trace_id']}-") for tp in traceparents)
    hooks = [s for s in spans if s["name"] == "claude_code.hook"]
    assert {s["attributes"]["tool_name"] for s in hooks} == {"Agent", "Glob"}
    assert all(s["attributes"]["hook_event"] == "PreToolUse" for s in hooks)
    assert one(hooks, tool_name="Glob")["parent"] == glob["span_id"]
    cost = sum(p["value"] for p in receiver.metrics() if p["name"] == "claude_code.cost.usage")
    assert abs(cost - json.loads(run.stdout)["total_cost_usd"]) < 1e-9  # the sub-agent's requests counted too
    sources = {
        p["attributes"]["query_source"] for p in receiver.metrics() if p["name"] == "claude_code.cost.usage"
    }
    assert sources == {"main", "subagent"}
    stats = json.loads(yoke("stats", "--json").stdout)  # the sub-agent's transcript adds its tool calls
    assert stats["tools"]["Glob"] == {"calls": 1, "errors": 0} and stats["tools"]["Agent"]["calls"] == 1
    assert abs(stats["total"]["cost_usd"] - json.loads(run.stdout)["total_cost_usd"]) < 1e-9


def test_retries_commits_and_settings_env(yoke, project, home):
    """Telemetry switched on from a settings file's `env` (as Claude Code users do); a retried request is one
    span with its retries counted; a commit made through Bash is counted."""
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    commit = "git -c user.name=t -c user.email=t@t commit --allow-empty -q -m first"
    script = [
        {
            "content": [{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": commit}}],
            "fault": {"status": 529, "times": 1},
        },
        {"content": [{"type": "text", "text": "committed"}]},
    ]
    with OtlpReceiver() as receiver, ScriptedServer(script) as srv:
        settings = home / ".claude" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps({"env": otel_env(receiver)}))
        run = yoke("-p", "commit", "--allowedTools", f"Bash({commit})", env=anthropic_env(srv))
        traceparents = [r.headers.get("traceparent") for r in srv.requests]
    assert run.code == 0, run.stderr
    results = [
        e["attributes"]
        for e in receiver.events()
        if e["attributes"]["event.name"] in ("tool_result", "tool_decision")
    ]
    commits = [p["value"] for p in receiver.metrics() if p["name"] == "claude_code.commit.count"]
    assert commits == [1], [
        (r.get("decision"), r.get("source"), r.get("success"), r.get("error")) for r in results
    ]
    requests = [s for s in receiver.spans() if s["name"] == "claude_code.llm_request"]
    assert [s["attributes"]["retries"] for s in requests] == [1, 0]
    assert traceparents[0] == traceparents[1] != traceparents[2]  # the retry continues the same span


def test_two_prompts_in_one_session_are_two_interactions(yoke, project):
    """Over stream-json input (as the Agent SDK drives a session): one trace per prompt, one prompt.id per
    prompt, event.sequence running on across them, and the account attributes when they are known."""
    lines = "".join(
        json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n"
        for text in ("one", "two")
    )
    with OtlpReceiver() as receiver, ScriptedServer([{"content": "first"}, {"content": "second"}]) as srv:
        env = {
            **anthropic_env(srv),
            **otel_env(receiver),
            "CLAUDE_CODE_ACCOUNT_UUID": "acc-1",
            "CLAUDE_CODE_ORGANIZATION_UUID": "org-1",
        }
        run = yoke(
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            env=env,
            input=lines,
        )
    assert run.code == 0, run.stderr
    assert [o["result"] for o in run.lines() if o.get("type") == "result"] == ["first", "second"]
    roots = [s for s in receiver.spans() if s["name"] == "claude_code.interaction"]
    assert len(roots) == 2 and len({s["trace_id"] for s in roots}) == 2
    assert sorted(s["attributes"]["interaction.sequence"] for s in roots) == [1, 2]
    events = receiver.events()
    prompts = [e["attributes"] for e in events if e["attributes"]["event.name"] == "user_prompt"]
    assert len(prompts) == 2 and prompts[0]["prompt.id"] != prompts[1]["prompt.id"]
    assert sorted(e["attributes"]["event.sequence"] for e in events) == list(range(len(events)))
    active = [p for p in receiver.metrics() if p["name"] == "claude_code.active_time.total"]
    assert active and all(p["attributes"]["user.account_uuid"] == "acc-1" for p in active)
    assert all(p["attributes"]["organization.id"] == "org-1" for p in receiver.metrics())


SCRAPER = """
import sys, time, urllib.request
deadline = time.monotonic() + 30
text = ""
while time.monotonic() < deadline and "claude_code_token_usage" not in text:
    try:
        text = urllib.request.urlopen(sys.argv[1], timeout=5).read().decode()
    except OSError:
        time.sleep(0.2)
open("scraped.txt", "w").write(text)
"""


def test_prometheus_metrics_are_served_while_the_session_runs(yoke, project):
    """OTEL_METRICS_EXPORTER=prometheus: a scrape made from inside the run (a Bash tool call) sees the
    session's token usage with its attributes."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (project / "scrape.py").write_text(SCRAPER)
    command = f"{sys.executable} scrape.py http://127.0.0.1:{port}/metrics"
    script = [
        {"content": [{"type": "tool_use", "id": "s1", "name": "Bash", "input": {"command": command}}]},
        {"content": [{"type": "text", "text": "scraped"}]},
    ]
    env = {
        "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
        "OTEL_METRICS_EXPORTER": "prometheus",
        "OTEL_EXPORTER_PROMETHEUS_HOST": "127.0.0.1",
        "OTEL_EXPORTER_PROMETHEUS_PORT": str(port),
    }
    with ScriptedServer(script) as srv:
        run = yoke("-p", "scrape", "--allowedTools", f"Bash({command})", env={**anthropic_env(srv), **env})
    assert run.code == 0, run.stderr
    scraped = (project / "scraped.txt").read_text()
    usage = [line for line in scraped.splitlines() if line.startswith("claude_code_token_usage")]
    assert usage, scraped
    assert any('type="input"' in line and "session_id=" in line for line in usage), usage


def test_the_sdk_free_exporter_sends_on_its_intervals_while_the_session_runs(yoke, project):
    """Yoke's own OTLP exporter (no SDK: `opentelemetry` is shadowed) sends each signal on its interval, not
    only at exit, and delta sums are not counted twice across exports."""
    shadow = project.parent / "shadow" / "opentelemetry"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no SDK here')\n")
    script = [
        {"content": [{"type": "tool_use", "id": "w1", "name": "Bash", "input": {"command": "sleep 2"}}]},
        {"content": [{"type": "text", "text": "waited"}]},
    ]
    with OtlpReceiver() as receiver, ScriptedServer(script) as srv:
        env = {**anthropic_env(srv), **otel_env(receiver, "http/protobuf")}
        env.update(OTEL_METRIC_EXPORT_INTERVAL="400", OTEL_LOGS_EXPORT_INTERVAL="400")
        env["PYTHONPATH"] = str(shadow.parent)
        run = yoke("-p", "wait", "--allowedTools", "Bash(sleep 2)", "--output-format", "json", env=env)
    assert run.code == 0, run.stderr
    assert "yoke[otel]" not in run.stderr
    assert len(receiver.bodies["/v1/logs"]) >= 2 and len(receiver.bodies["/v1/metrics"]) >= 2
    events = [e["attributes"]["event.name"] for e in receiver.events()]
    assert events.count("user_prompt") == 1 and events.count("api_request") == 2
    assert [p["value"] for p in receiver.metrics() if p["name"] == "claude_code.session.count"] == [1]
    usage = json.loads(run.stdout)["usage"]
    tokens = [p for p in receiver.metrics() if p["name"] == "claude_code.token.usage"]
    assert sum(p["value"] for p in tokens if p["attributes"]["type"] == "output") == usage["output_tokens"]
