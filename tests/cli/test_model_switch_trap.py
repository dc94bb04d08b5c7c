"""`/model gpt-…` then `/model sonnet`: the alias goes back to the session's own vendor (it was sent to OpenAI
as a model called "sonnet" and the session stayed stuck there); a name no vendor lists is accepted with one
line saying so."""

from __future__ import annotations

import json

from yoke.testing import ScriptedServer


def _user(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n"


def _run(yoke, srv, *prompts):
    env = {"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-a",
           "OPENAI_BASE_URL": srv.openai_url, "OPENAI_API_KEY": "sk-o"}  # fmt: skip
    argv = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
    return yoke(*argv, input="".join(_user(p) for p in prompts), env=env)


def test_an_alias_after_a_switch_to_openai_goes_back_to_claude(yoke):
    turns = [{"content": [{"type": "text", "text": t}]} for t in ("from gpt", "from claude")]
    with ScriptedServer(turns) as srv:
        run = _run(yoke, srv, "/model gpt-5.5", "one", "/model sonnet", "two")
        asked = [(r.path, r.body.get("model")) for r in srv.requests if r.body and r.body.get("messages")]
    assert run.code == 0, run.stderr
    assert asked[0][0].endswith("/chat/completions") and asked[0][1] == "gpt-5.5"
    assert asked[-1] == ("/v1/messages", "claude-sonnet-5-5")
    assert "from sonnet to sonnet" not in run.stdout


def test_a_model_no_vendor_lists_is_said_once(yoke):
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        run = _run(yoke, srv, "/model claude-sonet-9", "hi")
    assert run.code == 0, run.stderr
    results = [o for o in run.lines() if o["type"] == "result"]
    said = [r for r in results if "No provider Yoke knows lists 'claude-sonet-9'" in r["result"]]
    assert len(results) == 2 and len(said) == 1 and not said[0]["is_error"]
