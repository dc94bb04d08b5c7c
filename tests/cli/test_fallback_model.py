"""`--fallback-model` / the `fallbackModel` setting through the real `yoke` command."""

from __future__ import annotations

import json

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

OVERLOADED = [
    {"stream_error_after": 3},
    {"status": 529, "times": 3},
]  # a broken stream, then 529 on every retry


def turns() -> list[dict]:
    call = {
        "type": "tool_use",
        "id": "toolu_echo",
        "name": "Bash",
        "input": {"command": "echo from-fallback"},
    }
    return [
        {"content": [{"type": "text", "text": "I will run it."}, call], "fault": OVERLOADED},
        {"content": "All done on the fallback."},
    ]


def env(srv) -> dict[str, str]:
    return {**anthropic_env(srv), "YOKE_MAX_RETRIES": "2"}


FLAGS = ["--output-format", "stream-json", "--verbose", "--allowedTools", "Bash(echo:*)"]


def test_fallback_on_repeated_overload_is_shown_recorded_and_resumed(yoke, home):
    with ScriptedServer(turns()) as srv:
        run = yoke("-p", "run echo", "--fallback-model", "haiku", *FLAGS, env=env(srv))
        models = [r.body["model"] for r in srv.requests]
    assert run.code == 0, run.stderr
    lines = run.lines()
    notices = [o for o in lines if o.get("subtype") == "informational"]
    assert [n["content"] for n in notices] == [
        "Switched to claude-haiku-5-5 due to high demand for claude-opus-5-5"
    ]
    assert models == ["claude-opus-5-5"] * 4 + ["claude-haiku-5-5"] * 2
    result = run.result()
    assert result["subtype"] == "success" and result["result"] == "All done on the fallback."
    assert list(result["modelUsage"]) == ["claude-haiku-5-5"]
    tool_results = [b for o in lines if o["type"] == "user" for b in o["message"]["content"]]
    assert "from-fallback" in str(tool_results[0]["content"])

    transcript = next(home.rglob(f"{result['session_id']}.jsonl"))
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    switch = [r for r in records if r.get("subtype") == "notice" and r.get("level") == "model_fallback"]
    assert (
        switch and switch[0]["fromModel"] == "claude-opus-5-5" and switch[0]["toModel"] == "claude-haiku-5-5"
    )

    # resuming the session continues on the fallback model, which the transcript says it switched to
    with ScriptedServer([{"content": "Still on haiku."}]) as srv:
        again = yoke(
            "-p", "again", "--resume", result["session_id"], "--fallback-model", "haiku", *FLAGS, env=env(srv)
        )
        resumed_models = [r.body["model"] for r in srv.requests]
    assert again.code == 0, again.stderr
    assert resumed_models == ["claude-haiku-5-5"] and again.result()["result"] == "Still on haiku."


def test_fallback_model_from_settings_and_same_model_refused(yoke, project):
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"fallbackModel": "claude-opus-4-7"}))
    with ScriptedServer([{"content": "from opus", "fault": {"status": 529, "times": 3}}]) as srv:
        run = yoke("-p", "hi", "--output-format", "json", env=env(srv))
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["result"] == "from opus"
    with ScriptedServer([]) as srv:
        same = yoke("-p", "hi", "--model", "sonnet", "--fallback-model", "claude-sonnet-5-5", env=env(srv))
    assert same.code != 0 and "Fallback model cannot be the same as the main model" in same.stderr
    assert "Traceback" not in same.stderr


def test_without_a_fallback_overload_is_an_error_result(yoke):
    with ScriptedServer([{"content": "never", "fault": {"status": 529, "times": "always"}}]) as srv:
        run = yoke("-p", "hi", "--output-format", "json", env=env(srv))
    result = json.loads(run.stdout)
    assert run.code == 1 and result["is_error"] and "overloaded" in result["result"].lower()


def test_a_run_that_fell_back_replays(yoke, project, tmp_path):
    cassette = tmp_path / "fallback.cassette.jsonl"
    with ScriptedServer(turns()) as srv:
        recorded = yoke(
            "-p", "run echo", "--fallback-model", "haiku", "--record", str(cassette), *FLAGS, env=env(srv)
        )
    assert recorded.code == 0, recorded.stderr
    replayed = yoke("-p", "run echo", "--fallback-model", "haiku", "--replay", str(cassette), *FLAGS)
    assert replayed.code == 0, replayed.stderr
    assert replayed.result()["result"] == "All done on the fallback."
    notices = [o["content"] for o in replayed.lines() if o.get("subtype") == "informational"]
    assert notices == ["Switched to claude-haiku-5-5 due to high demand for claude-opus-5-5"]
