"""Issue 29, item 5: a message in a resumed history too large for the model gets the limit a new prompt
gets; it is not uploaded whole on every later turn."""

from __future__ import annotations

import json

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

SID = "5a1e0c2d-7b3f-4e8a-9c6d-1f2e3a4b5c6d"


def test_oversized_message_in_resumed_history_is_cut(yoke):
    huge = "word " * 1_400_000  # 7 MB: some 1,750,000 tokens, beyond the default model's window
    with ScriptedServer([{"content": "read it"}, {"content": "fine"}]) as srv:
        big_window = {**anthropic_env(srv), "YOKE_MAX_CONTEXT_TOKENS": "4000000"}
        first = yoke("-p", "--session-id", SID, env=big_window, input=huge)
        assert first.code == 0, first.stderr
        assert len(json.dumps(srv.requests[0].body)) > 6_000_000
        resumed = yoke("-p", "what did I send?", "-r", SID, env=anthropic_env(srv))
    assert resumed.code == 0, resumed.stderr
    sent = json.dumps(srv.requests[-1].body)
    assert len(sent) < 2_000_000  # about a quarter of the window, not 7 MB
    assert "left out on resume" in sent
    assert "what did I send?" in sent
    assert "shortened" in resumed.stderr


def test_new_oversized_prompt_is_refused_before_upload(yoke):
    with ScriptedServer([]) as srv:
        run = yoke("-p", env=anthropic_env(srv), input="word " * 1_400_000)
    assert run.code != 0 and "Prompt is too long" in run.stderr
    assert not srv.requests


def _user_line(text: str) -> str:
    return json.dumps(
        {"type": "user", "message": {"role": "user", "content": text}, "parent_tool_use_id": None}
    )


def test_oversized_stream_json_prompt_and_slash_command_are_refused_and_the_next_prompt_runs(yoke, project):
    """Issue 40 item 12: the limit covers every way a prompt arrives: a stream-json prompt (what hosted
    sessions and SDK clients send) and a slash command's arguments, not only `-p`. Each gets an error
    result; nothing is uploaded; the prompt after it runs."""
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "echo.md").write_text("Repeat this: $ARGUMENTS\n")
    huge = "word " * 1_400_000
    lines = [_user_line(huge), _user_line("/echo " + huge), _user_line("small one")]
    with ScriptedServer([{"content": "answered the small one"}]) as srv:
        run = yoke(
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            env=anthropic_env(srv),
            input="\n".join(lines) + "\n",
            timeout=120,
        )
    assert run.code == 0, run.stderr[-2000:]
    results = [o for o in run.lines() if o.get("type") == "result"]
    assert [r["is_error"] for r in results] == [True, True, False]
    assert all("Prompt is too long" in r["result"] for r in results[:2])
    assert len(srv.requests) == 1 and "small one" in json.dumps(srv.requests[0].body)
    assert len(json.dumps(srv.requests[0].body)) < 1_000_000
