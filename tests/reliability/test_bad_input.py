"""Issue 29, items 9-10: hostile or undecodable input gets one clear line (or just runs), never a
traceback: deeply nested JSON in transcripts, settings and stream-json input; invalid UTF-8 in a prompt on
stdin and in a directory name."""

from __future__ import annotations

import json
import os

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

DEEP = "[" * 100_000 + "]" * 100_000
SID = "7c3d2e1f-0a9b-4c8d-8e7f-6a5b4c3d2e1f"


def _user_texts(request) -> list[str]:
    out = []
    for message in request.body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out += [b["text"] for b in blocks if b.get("type") == "text"]
    return out


def test_deep_json_in_project_settings_is_one_warning(yoke, project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"permissions": ' + DEEP + "}")
    with ScriptedServer([{"content": "fine"}]) as srv:
        run = yoke("-p", "hello", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "fine"
    assert "Traceback" not in run.stderr and "RecursionError" not in run.stderr
    (line,) = [x for x in run.stderr.splitlines() if "settings.json" in x]
    assert "nested deeper than" in line and "ignored" in line


def test_deep_json_line_in_a_transcript(yoke, home):
    with ScriptedServer([{"content": "one"}, {"content": "two"}]) as srv:
        assert yoke("-p", "hello", "--session-id", SID, env=anthropic_env(srv)).code == 0
        (path,) = (home / ".yoke" / "projects").glob(f"*/{SID}.jsonl")
        with open(path, "a") as fh:
            fh.write(DEEP + "\n")
        listed = yoke("sessions", "list")
        assert listed.code == 0, listed.stderr
        assert SID in listed.stdout and "Traceback" not in listed.stderr
        resumed = yoke("-p", "again", "-r", SID, env=anthropic_env(srv))
    assert resumed.code == 0, resumed.stderr
    assert "unreadable line" in resumed.stderr and "Traceback" not in resumed.stderr
    assert _user_texts(srv.requests[-1]) == ["hello", "again"]


def test_deep_json_on_stream_json_input_skips_that_line_only(yoke):
    frames = [
        json.dumps({"type": "user", "message": {"role": "user", "content": "first"}}),
        DEEP,
        json.dumps({"type": "user", "message": {"role": "user", "content": "second"}}),
    ]
    with ScriptedServer([{"content": "a"}, {"content": "b"}]) as srv:
        run = yoke(
            "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
            env=anthropic_env(srv), input="\n".join(frames) + "\n",
        )  # fmt: skip
    assert run.code == 0, run.stderr
    errors = [o for o in run.lines() if o.get("subtype") == "error"]
    assert len(errors) == 1 and "nested deeper than" in errors[0]["error"]
    assert [o["result"] for o in run.lines() if o.get("type") == "result"] == ["a", "b"]


def test_invalid_utf8_prompt_on_stdin_runs(base_env, project, tmp_path):
    import subprocess
    import sys

    with ScriptedServer([{"content": "read it"}]) as srv:
        proc = subprocess.run(
            [sys.executable, "-m", "yoke", "-p"],
            input=b"look at \xff\xfe this",
            cwd=project,
            env={**base_env, **anthropic_env(srv)},
            capture_output=True,
            timeout=60,
        )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().strip() == "read it"
    assert _user_texts(srv.requests[0])[-1] == "look at \ufffd\ufffd this"


def test_directory_name_that_is_not_utf8_runs_and_resumes(yoke, tmp_path):
    odd = os.path.join(os.fsencode(tmp_path), b"caf\xe9")  # Latin-1, not UTF-8
    os.mkdir(odd)
    cwd = os.fsdecode(odd)
    with ScriptedServer([{"content": "one"}, {"content": "two"}]) as srv:
        first = yoke("-p", "hello", cwd=cwd, env=anthropic_env(srv))
        assert first.code == 0, first.stderr
        again = yoke("-p", "again", "-c", cwd=cwd, env=anthropic_env(srv))
    assert again.code == 0, again.stderr
    assert _user_texts(srv.requests[-1]) == ["hello", "again"]


def test_deep_json_from_a_provider_is_an_unreadable_event_not_a_crash():
    import pytest

    from yoke.providers.anthropic_stream import AnthropicAssembler, parse_tool_input
    from yoke.providers.sse import SSEEvent
    from yoke.providers.transport import StreamInterrupted

    with pytest.raises(StreamInterrupted, match="unreadable event data"):
        AnthropicAssembler().feed(SSEEvent(event="message_start", data=DEEP))
    value, error = parse_tool_input('{"a": ' + DEEP + "}")
    assert value == {} and "nested deeper than" in error


def test_invalid_utf8_in_a_stream_json_frame_runs(base_env, project):
    import subprocess
    import sys

    frame = b'{"type":"user","message":{"role":"user","content":"caf\xe9 au lait"}}\n'
    with ScriptedServer([{"content": "ok"}]) as srv:
        proc = subprocess.run(
            [sys.executable, "-m", "yoke", "-p", "--input-format", "stream-json", "--output-format", "stream-json",
             "--verbose"],
            input=frame, cwd=project, env={**base_env, **anthropic_env(srv)}, capture_output=True, timeout=60,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(x) for x in proc.stdout.splitlines() if b'"type": "result"' in x]
    assert results and results[-1]["result"] == "ok"
    assert _user_texts(srv.requests[0])[-1] == "caf\ufffd au lait"
