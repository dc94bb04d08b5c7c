"""`PreModelSwitch` and `PostModelSwitch` around an SDK's `set_model`, as hook scripts from settings: their
input (2.1.330's fields), a deny that keeps the model, and context that reaches the next request."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

HOOK = """import json, pathlib, sys
data = json.load(sys.stdin)
log = pathlib.Path(sys.argv[1])
log.write_text(log.read_text() + json.dumps(data) + "\\n" if log.exists() else json.dumps(data) + "\\n")
answer = sys.argv[2]
if answer == "deny":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreModelSwitch",
        "permissionDecision": "deny", "permissionDecisionReason": "stay on the cheap one"}}))
elif answer == "context":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostModelSwitch",
        "additionalContext": "You now run on a bigger model."}}))
"""


def user(text: str) -> dict:
    return {"type": "user", "message": {"role": "user", "content": text}}


def set_model(model: str) -> dict:
    return {
        "type": "control_request",
        "request_id": "m1",
        "request": {"subtype": "set_model", "model": model},
    }


def settings(project, pre: str, post: str) -> str:
    (project / "hook.py").write_text(HOOK)
    command = f"{sys.executable} hook.py"
    hooks = {
        "PreModelSwitch": [{"hooks": [{"type": "command", "command": f"{command} pre.log {pre}"}]}],
        "PostModelSwitch": [{"matcher": "claude-opus.*", "hooks": [{"type": "command", "command": f"{command} post.log {post}"}]}],
    }  # fmt: skip
    return json.dumps({"hooks": hooks})  # --settings: trusted as the user's own


def run_switch(project, base_env, pre: str, post: str):
    """The way an SDK talks: a message, its result; set_model, its answer; a second message; EOF."""
    flag = settings(project, pre, post)
    turns = [
        {"content": [{"type": "text", "text": "first"}]},
        {"content": [{"type": "text", "text": "second"}]},
    ]
    with ScriptedServer(turns) as srv:
        proc = subprocess.Popen(
            [sys.executable, "-m", "yoke", "-p", "--input-format", "stream-json", "--output-format",
             "stream-json", "--verbose", "--model", "claude-haiku-4-5", "--settings", flag],
            cwd=project, env=dict(base_env, **anthropic_env(srv)), text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        seen: list[dict] = []

        def send_then_wait(frame: dict, kind: str) -> None:
            proc.stdin.write(json.dumps(frame) + "\n")
            proc.stdin.flush()
            for line in proc.stdout:
                seen.append(json.loads(line))
                if seen[-1]["type"] == kind:
                    return

        send_then_wait(user("hi"), "result")
        send_then_wait(set_model("opus"), "control_response")
        send_then_wait(user("again"), "result")
        proc.stdin.close()
        proc.wait(timeout=30)
        bodies = [r.body for r in srv.requests]
    assert proc.returncode == 0, proc.stderr.read()
    return seen, bodies, [o for o in seen if o["type"] == "control_response"]


def test_pre_and_post_model_switch_carry_the_switch(project, base_env):
    _, bodies, answers = run_switch(project, base_env, "allow", "context")
    assert answers[0]["response"]["subtype"] == "success"
    pre = json.loads((project / "pre.log").read_text().splitlines()[0])
    post = json.loads((project / "post.log").read_text().splitlines()[0])
    for data, event in ((pre, "PreModelSwitch"), (post, "PostModelSwitch")):
        assert data["hook_event_name"] == event
        assert data["from_model"] == "claude-haiku-4-5" and "opus" in data["to_model"]
        assert data["requested_model"] == "opus" and data["source"] == "sdk"
        assert data["cache_ttl"] == "5m" and data["pricing"] in ("catalog", "default")
        assert isinstance(data["context_tokens"], int) and isinstance(data["prompt_cache_warm"], bool)
        assert isinstance(data["estimated_cache_write_usd"], float)
    assert "opus" in bodies[-1]["model"]
    assert "You now run on a bigger model." in json.dumps(bodies[-1]["messages"])


def test_a_deny_keeps_the_model(project, base_env):
    _, bodies, answers = run_switch(project, base_env, "deny", "context")
    response = answers[0]["response"]
    assert response["subtype"] == "error" and "stay on the cheap one" in response["error"]
    assert bodies[-1]["model"] == "claude-haiku-4-5"
    assert not (project / "post.log").exists()


def test_set_model_is_answered_in_turn_with_the_messages(yoke):
    """Sent all at once, as a script may: the first message runs on the old model, the switch is answered
    after its result, the second runs on the new one (the order 2.1.330 keeps)."""
    turns = [
        {"content": [{"type": "text", "text": "first"}]},
        {"content": [{"type": "text", "text": "second"}]},
    ]
    stdin = "".join(json.dumps(f) + "\n" for f in (user("hi"), set_model("opus"), user("again")))
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
            "--model", "claude-haiku-4-5", input=stdin, env=anthropic_env(srv),
        )  # fmt: skip
        models = [r.body["model"] for r in srv.requests]
    assert run.code == 0, run.stderr
    kinds = [o["type"] for o in run.lines() if o["type"] in ("result", "control_response")]
    assert kinds == ["result", "control_response", "result"]
    assert models[0] == "claude-haiku-4-5" and "opus" in models[1]
