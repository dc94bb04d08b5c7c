"""`@` mentions attach what they name before the model answers, in the shape 2.1.330 sends: per attachment a
reminder naming the tool call and one with its result; the first call's reminder is a message of its own,
the rest open the prompt's message, before its text (observed with the bundled CLI on the scripted server:
`@file` → Read, `@dir` → an `ls` listing, `@missing` → nothing). Headless here; the terminal UI in tests/ui/test_ui_mentions.py."""

from __future__ import annotations

import json

from tests.conftest import anthropic_env
from tests.mcp_support.helpers import stdio_entry, write_config

from yoke.testing import ScriptedServer

DONE = {"content": [{"type": "text", "text": "ok"}]}


def texts(message: dict) -> list[str]:
    content = message["content"]
    return [content] if isinstance(content, str) else [b["text"] for b in content if b["type"] == "text"]


def sent(yoke, prompt: str, *flags: str) -> tuple[list[dict], object]:
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", prompt, *flags, env=anthropic_env(srv))
        messages = srv.requests[0].body["messages"]
    assert run.code == 0, run.stderr
    return messages, run


def test_a_file_is_attached_as_a_read_result(yoke, project):
    (project / "notes.txt").write_text("alpha\nbeta\n")
    messages, _ = sent(yoke, "look at @notes.txt please")
    assert len(messages) == 2 and [m["role"] for m in messages] == ["user", "user"]
    (call,) = texts(messages[0])
    assert "Read" in call and json.dumps({"file_path": str(project / "notes.txt")}) in call
    result, *rest = texts(messages[1])
    assert result.startswith("<system-reminder>") and "Read" in result and "1\talpha\n2\tbeta" in result
    assert rest[-1] == "look at @notes.txt please"  # the prompt's text comes last, unchanged


def test_a_directory_is_attached_as_a_listing(yoke, project):
    (project / "src" / "util").mkdir(parents=True)
    (project / "src" / "app.py").write_text("print('hi')\n")
    messages, _ = sent(yoke, "list @src now")
    (call,) = texts(messages[0])
    assert '"command": "ls ' in call and str(project / "src") in call
    result = texts(messages[1])[0]
    assert result.splitlines()[2:4] == ["app.py", "util"]
    assert texts(messages[1])[-1] == "list @src now"


def test_a_missing_path_attaches_nothing(yoke, project):
    messages, _ = sent(yoke, "see @nothere.txt ok, mail me@example.com")
    assert len(messages) == 1 and texts(messages[0])[-1] == "see @nothere.txt ok, mail me@example.com"
    assert not any("Read" in t for t in texts(messages[0]))


def test_several_mentions_quoted_paths_and_line_ranges(yoke, project):
    (project / "my file.txt").write_text("spaced\n")
    (project / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    messages, _ = sent(yoke, 'see @"my file.txt" and @notes.txt#L2-3.')
    first = texts(messages[0])[0]
    assert "my file.txt" in first
    second_call, second_result = texts(messages[1])[1:3]
    assert '"offset": 2, "limit": 2' in second_call
    assert "2\tbeta\n3\tgamma" in second_result and "alpha" not in second_result


def test_a_file_outside_the_project_is_not_read_unasked(yoke, project, tmp_path):
    secret = tmp_path / "elsewhere.txt"
    secret.write_text("not for the model\n")
    messages, _ = sent(yoke, f"look at @{secret}")
    assert len(messages) == 1 and "not for the model" not in json.dumps(messages)


def test_an_mcp_resource_is_attached(yoke, project, tmp_path):
    cfg = write_config(tmp_path / "s.json", {"t": stdio_entry()})
    messages, _ = sent(yoke, "read @t:note://hello now", "--mcp-config", str(cfg))
    (call,) = texts(messages[0])
    assert "ReadMcpResourceTool" in call and '"uri": "note://hello"' in call
    assert "hello from a resource" in texts(messages[1])[0]
    assert texts(messages[1])[-1] == "read @t:note://hello now"
