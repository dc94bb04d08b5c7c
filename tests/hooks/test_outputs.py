"""Every documented output of a hook turned into the outcome the session acts on, for every hook type."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from tests.hooks.conftest import make

from yoke.hooks.outcome import from_json
from yoke.wire.hook_lines import hook_event_line, should_emit


def printing(event: str, payload: dict, code: int = 0, stderr: str = "", matcher: str = "") -> dict:
    cmd = f"cat > /dev/null; printf '%s' '{json.dumps(payload)}'"
    if stderr:
        cmd += f"; echo '{stderr}' >&2"
    cmd += f"; exit {code}"
    return {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": cmd}]}]}


def test_json_output_fields():
    out = from_json(
        {
            "continue": False,
            "stopReason": "build is red",
            "suppressOutput": True,
            "systemMessage": "careful",
            "hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "additionalContext": "lint found 2 warnings",
                "updatedToolOutput": {"stdout": "redacted"},
            },
        },
        "PostToolUse",
    )
    assert out.stop and out.stop_reason == "build is red"
    assert out.suppress_output and out.system_message == "careful"
    assert out.additional_context == "lint found 2 warnings"
    assert out.updated_output == {"stdout": "redacted"}
    mcp = from_json(
        {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": [1]}}, "PostToolUse"
    )
    assert mcp.updated_output == [1]
    # A hookSpecificOutput for another event is not applied.
    assert from_json(
        {"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "x"}}, "PostToolUse"
    ).empty


def test_event_specific_extras_and_deprecated_decisions():
    start = from_json(
        {
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": "ctx",
                "initialUserMessage": "run the tests",
                "sessionTitle": "Release prep",
                "watchPaths": [".envrc"],
            }
        },
        "SessionStart",
    )
    assert start.extras == {
        "initialUserMessage": "run the tests",
        "sessionTitle": "Release prep",
        "watchPaths": [".envrc"],
    }
    assert from_json({"decision": "approve", "reason": "ok"}, "PreToolUse").decision == "allow"
    assert from_json({"decision": "block", "reason": "no"}, "PreToolUse").decision == "deny"
    blocked = from_json({"decision": "block", "reason": "tests fail"}, "Stop")
    assert blocked.block and blocked.reason == "tests fail"
    deferred = from_json(
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}, "PreToolUse"
    )
    assert deferred.decision == "defer"


def test_permission_request_decision_object():
    allow = from_json(
        {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {
                    "behavior": "allow",
                    "updatedInput": {"command": "ls"},
                    "updatedPermissions": [
                        {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
                    ],
                },
            }
        },
        "PermissionRequest",
    )
    assert allow.decision == "allow" and allow.updated_input == {"command": "ls"}
    assert allow.extras["updatedPermissions"][0]["mode"] == "acceptEdits"
    deny = from_json(
        {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": "no", "interrupt": True},
            }
        },
        "PermissionRequest",
    )
    assert (deny.decision, deny.reason, deny.stop) == ("deny", "no", True)


@pytest.mark.parametrize(
    ("event", "fields", "check"),
    [
        (
            "PreToolUse",
            {"tool_name": "Bash", "tool_input": {}, "tool_use_id": "t"},
            lambda o: o.decision == "deny",
        ),
        ("UserPromptSubmit", {"prompt": "p"}, lambda o: o.block and o.reason == "nope"),
        (
            "PostToolUse",
            {"tool_name": "Bash", "tool_input": {}, "tool_response": {}, "tool_use_id": "t"},
            lambda o: o.block,
        ),
        ("Stop", {"stop_hook_active": False}, lambda o: o.block and o.reason == "nope"),
        ("PreCompact", {"trigger": "manual", "custom_instructions": ""}, lambda o: o.block),
        # Events that cannot block: stderr is shown to the user and the moment goes ahead.
        ("SessionStart", {"source": "startup"}, lambda o: not o.block and "nope" in o.system_message),
        (
            "Notification",
            {"message": "m", "notification_type": "idle_prompt"},
            lambda o: not o.block and "nope" in o.system_message,
        ),
    ],
)
async def test_exit_2_per_event(project: Path, event: str, fields: dict, check):
    cmd = "cat > /dev/null; echo nope >&2; exit 2"
    lifecycle, _ = make(project, {event: [{"hooks": [{"type": "command", "command": cmd}]}]})
    out = await lifecycle.announce(event, **fields)
    assert check(out), out


async def test_exit_2_cannot_be_overridden_by_json_and_other_codes_with_json_decide(project: Path):
    allow = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
    lifecycle, _ = make(project, printing("PreToolUse", allow, code=2, stderr="still no"))
    out = await lifecycle.announce("PreToolUse", tool_name="Bash", tool_input={}, tool_use_id="t")
    assert (out.decision, out.reason) == ("deny", "still no")
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "json says no",
        }
    }
    lifecycle, _ = make(project, printing("PreToolUse", deny, code=1))
    out = await lifecycle.announce("PreToolUse", tool_name="Bash", tool_input={}, tool_use_id="t")
    assert (out.decision, out.reason, out.system_message) == ("deny", "json says no", "")


async def test_worktree_create_path_and_failure(project: Path):
    lifecycle, _ = make(
        project, {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "echo /tmp/wt-1"}]}]}
    )
    out = await lifecycle.announce("WorktreeCreate", name="feature")
    assert out.extras == {"worktreePath": "/tmp/wt-1"}
    lifecycle, _ = make(project, {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "exit 1"}]}]})
    assert (await lifecycle.announce("WorktreeCreate", name="feature")).block


async def test_async_hook_runs_in_background_and_exit_2_wakes_the_model(project: Path):
    cmd = "cat > /dev/null; echo '{\"async\": true}'; sleep 1; echo 'tests failed: 3' >&2; exit 2"
    lifecycle, listener = make(project, {"PostToolUse": [{"hooks": [{"type": "command", "command": cmd}]}]})
    start = time.monotonic()
    out = await lifecycle.announce(
        "PostToolUse", tool_name="Bash", tool_input={}, tool_response={}, tool_use_id="t"
    )
    assert time.monotonic() - start < 0.9 and out.empty
    assert listener.take_async_messages() == []
    await asyncio.wait_for(listener.async_ready.wait(), 10)
    [message] = listener.take_async_messages()
    assert (message.kind, message.text, message.hook_name) == (
        "rewake",
        "tests failed: 3",
        "PostToolUse:Bash",
    )


async def test_configured_async_hook_delivers_context_next_turn(project: Path):
    answer = {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "coverage 91%"},
        "systemMessage": "coverage done",
    }
    cmd = f"cat > /dev/null; sleep 0.5; echo '{json.dumps(answer)}'"
    hooks = {"PostToolUse": [{"hooks": [{"type": "command", "command": cmd, "async": True}]}]}
    lifecycle, listener = make(project, hooks)
    out = await lifecycle.announce(
        "PostToolUse", tool_name="Bash", tool_input={}, tool_response={}, tool_use_id="t"
    )
    assert out.empty
    await listener.wait_background(10)
    assert [(m.kind, m.text) for m in listener.take_async_messages()] == [
        ("context", "coverage 91%"),
        ("system", "coverage done"),
    ]


async def test_background_hooks_are_cancelled_at_close(project: Path):
    reports: list[tuple[str, str]] = []
    cmd = "cat > /dev/null; echo '{\"async\": true}'; sleep 30"
    lifecycle, listener = make(
        project,
        {"Stop": [{"hooks": [{"type": "command", "command": cmd}]}]},
        on_report=lambda p, r: reports.append((p, r.outcome)),
    )
    await lifecycle.announce("Stop", stop_hook_active=False)
    start = time.monotonic()
    await listener.aclose()
    assert time.monotonic() - start < 5
    assert reports == [("started", "success"), ("response", "cancelled")]


class _Recorder(BaseHTTPRequestHandler):
    bodies: list[dict] = []
    headers_seen: list[dict] = []
    answer: bytes = b""

    def do_POST(self):  # noqa: N802 - http.server's name
        length = int(self.headers.get("Content-Length", 0))
        type(self).bodies.append(json.loads(self.rfile.read(length)))
        type(self).headers_seen.append(dict(self.headers))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(type(self).answer)

    def log_message(self, *args):
        pass


@pytest.fixture
def http_hook_server():
    _Recorder.bodies, _Recorder.headers_seen = [], []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


async def test_http_hook_posts_the_input_and_its_answer_counts(project: Path, http_hook_server, monkeypatch):
    _Recorder.answer = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "policy server says no",
            }
        }
    ).encode()
    monkeypatch.setenv("HOOK_TOKEN", "s3cret")
    monkeypatch.setenv("OTHER_SECRET", "leak")
    url = f"http://127.0.0.1:{http_hook_server.server_address[1]}/hook"
    hooks = {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "http",
                        "url": url,
                        "headers": {"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${OTHER_SECRET}"},
                        "allowedEnvVars": ["HOOK_TOKEN"],
                    }
                ],
            }
        ]
    }
    lifecycle, _ = make(project, hooks)
    out = await lifecycle.announce(
        "PreToolUse", tool_name="Bash", tool_input={"command": "curl x"}, tool_use_id="t"
    )
    assert (out.decision, out.reason) == ("deny", "policy server says no")
    [body] = _Recorder.bodies
    assert body["hook_event_name"] == "PreToolUse" and body["tool_input"] == {"command": "curl x"}
    assert body["session_id"] == "0381b11b-1111-2222-3333-444455556666"
    headers = {k.lower(): v for k, v in _Recorder.headers_seen[0].items()}
    assert headers["authorization"] == "Bearer s3cret"
    assert headers["x-other"] == "${OTHER_SECRET}"  # not listed in allowedEnvVars: never expanded


async def test_http_hook_unreachable_is_a_non_blocking_error(project: Path):
    hooks = {"Stop": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:9/hook", "timeout": 2}]}]}
    lifecycle, _ = make(project, hooks)
    out = await lifecycle.announce("Stop", stop_hook_active=False)
    assert not out.block and out.system_message.startswith(
        "Stop hook error: request to http://127.0.0.1:9/hook failed"
    )


async def test_prompt_hook_asks_the_small_model(project: Path):
    asked: list[tuple[str, str | None]] = []

    async def model(prompt: str, model: str | None, timeout: float) -> str:
        asked.append((prompt, model))
        return 'Looking at it... {"ok": false, "reason": "The tests were not run."}'

    hooks = {
        "Stop": [
            {
                "hooks": [
                    {"type": "prompt", "prompt": "Did Claude finish? Input: $ARGUMENTS", "model": "haiku"}
                ]
            }
        ]
    }
    lifecycle, _ = make(project, hooks, prompt_model=model)
    out = await lifecycle.announce("Stop", stop_hook_active=False, last_assistant_message="all done")
    assert out.block and out.reason == "The tests were not run."
    [(prompt, chosen)] = asked
    assert chosen == "haiku" and '"last_assistant_message":"all done"' in prompt and '"ok"' in prompt


async def test_agent_hook_without_sub_agents_says_so(project: Path):
    lifecycle, _ = make(project, {"Stop": [{"hooks": [{"type": "agent", "prompt": "verify"}]}]})
    out = await lifecycle.announce("Stop", stop_hook_active=False)
    assert not out.block and "agent hooks are not available here" in out.system_message


async def test_python_callbacks_for_the_sdk(project: Path):
    seen: list[tuple[dict, str | None]] = []

    async def guard(data, tool_use_id, context):
        seen.append((data, tool_use_id))
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "sdk says no",
            }
        }

    def broken(data, tool_use_id, context):
        raise ValueError("bug in the callback")

    lifecycle, listener = make(project, {})
    listener.register_callback("PreToolUse", guard, matcher="Bash")
    listener.register_callback("PreToolUse", broken)
    out = await lifecycle.announce(
        "PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="toolu_7"
    )
    assert (out.decision, out.reason) == ("deny", "sdk says no")
    assert "raised ValueError: bug in the callback" in out.system_message
    assert seen[0][1] == "toolu_7" and seen[0][0]["tool_name"] == "Bash"


async def test_stream_json_hook_lines(project: Path):
    reports = []
    cmd = "cat > /dev/null; echo hello; echo warn >&2"
    lifecycle, _ = make(
        project,
        {"SessionStart": [{"hooks": [{"type": "command", "command": cmd}]}]},
        on_report=lambda phase, run: reports.append(hook_event_line(phase, run, "sess-1")),
    )
    await lifecycle.announce("SessionStart", source="startup")
    started, response = reports
    assert started["type"] == "system" and started["subtype"] == "hook_started"
    assert {k: started[k] for k in ("hook_name", "hook_event", "session_id")} == {
        "hook_name": "SessionStart:startup",
        "hook_event": "SessionStart",
        "session_id": "sess-1",
    }
    assert response["subtype"] == "hook_response" and response["hook_id"] == started["hook_id"]
    assert (response["stdout"], response["stderr"], response["exit_code"], response["outcome"]) == (
        "hello\n",
        "warn\n",
        0,
        "success",
    )
    assert should_emit("SessionStart", False) and not should_emit("PreToolUse", False)


async def test_sdk_initialize_hooks_forward_to_the_client(project: Path):
    from yoke.hooks.sdk import register_sdk_hooks

    sent: list[tuple[str, str | None]] = []

    async def call(callback_id, data, tool_use_id):
        sent.append((callback_id, tool_use_id))
        if callback_id == "hook_1":
            return None  # a client that answered nothing
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "from the sdk"}}

    lifecycle, listener = make(project, {})
    warnings = register_sdk_hooks(
        listener,
        {
            "PreToolUse": [
                {"matcher": "Bash", "hookCallbackIds": ["hook_0"]},
                {"matcher": None, "hookCallbackIds": ["hook_1"], "onFailure": "block"},
            ],
            "Bogus": [],
        },
        call,
    )
    assert warnings == ["initialize: hooks for 'Bogus' skipped (unknown event or not a list)"]
    out = await lifecycle.announce("PreToolUse", tool_name="Bash", tool_input={}, tool_use_id="toolu_5")
    assert sorted(sent) == [("hook_0", "toolu_5"), ("hook_1", "toolu_5")]
    assert out.additional_context == "from the sdk"
    assert out.decision == "deny" and "returned nothing" in out.reason  # onFailure: block fails closed
