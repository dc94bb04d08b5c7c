"""Settings 2.1.330 added, as a user writes them: blockWritesOutsideWorkingDirectories,
denyInsteadOfPrompting and bashOutputMaxChars (what each does: the setting's own description in the bundled
CLI's settings schema); autoContinueAtUsageLimit concerns claude.ai usage limits, which Yoke does not meet."""

from __future__ import annotations

import json

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer


def call(name: str, input: dict, id: str = "toolu_1") -> dict:
    return {"content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}


DONE = {"content": [{"type": "text", "text": "done"}]}
STREAM = ("--output-format", "stream-json", "--verbose")


def results(run) -> list[dict]:
    return [o["message"]["content"][0] for o in run.lines() if o["type"] == "user"]


def test_block_writes_outside_working_directories_holds_in_every_mode(yoke, project):
    outside = project.parent / "outside.txt"
    turns = [
        call("Write", {"file_path": str(outside), "content": "x"}, "toolu_out"),
        call("Write", {"file_path": str(project / "inside.txt"), "content": "y"}, "toolu_in"),
        DONE,
    ]
    settings = json.dumps({"blockWritesOutsideWorkingDirectories": True, "permissions": {"allow": ["Write"]}})
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "write", *STREAM, "--permission-mode", "bypassPermissions", "--settings", settings,
            env=anthropic_env(srv),
        )  # fmt: skip
    assert run.code == 0, run.stderr
    refused, written = results(run)
    assert refused["is_error"] and "outside the working directories" in json.dumps(refused)
    assert not outside.exists() and (project / "inside.txt").read_text() == "y"
    assert not written.get("is_error")


def test_deny_instead_of_prompting_asks_nobody(yoke, project):
    frame = json.dumps({"type": "user", "message": {"role": "user", "content": "write"}}) + "\n"
    turns = [call("Write", {"file_path": str(project / "w.txt"), "content": "w"}), DONE]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", *STREAM, "--input-format", "stream-json", "--permission-prompt-tool", "stdio",
            "--settings", json.dumps({"denyInsteadOfPrompting": True}), input=frame, env=anthropic_env(srv),
        )  # fmt: skip
    assert run.code == 0, run.stderr
    lines = run.lines()
    assert not [o for o in lines if o["type"] == "control_request"]  # the host was never asked
    assert results(run)[0]["is_error"] and not (project / "w.txt").exists()
    offered = {t["name"] for t in srv.requests[0].body["tools"]}
    assert not offered & {"AskUserQuestion", "EnterPlanMode", "ExitPlanMode"}  # nobody would answer them


def test_bash_output_max_chars_sizes_what_the_model_reads(yoke, project):
    command = "python3 -c \"print('a' * 20000)\""
    turns = [
        call("Bash", {"command": command}, "toolu_a"),
        DONE,
        call("Bash", {"command": command}, "toolu_b"),
        DONE,
    ]
    outputs = []
    with ScriptedServer(turns) as srv:
        for limit in (5000, 100):  # 100 is clamped to the least the setting allows, 4,000
            settings = json.dumps({"bashOutputMaxChars": limit, "permissions": {"allow": ["Bash"]}})
            run = yoke("-p", "go", *STREAM, "--settings", settings, env=anthropic_env(srv))
            assert run.code == 0, run.stderr
            outputs.append(json.dumps(results(run)[0]["content"]))
    assert 5000 <= len(outputs[0]) < 5600 and 4000 <= len(outputs[1]) < 4600


def test_auto_continue_at_usage_limit_is_accepted_quietly(yoke):
    with ScriptedServer([DONE]) as srv:
        run = yoke(
            "-p", "hi", "--settings", json.dumps({"autoContinueAtUsageLimit": True}), env=anthropic_env(srv)
        )
    assert run.code == 0 and run.stdout.strip() == "done" and not run.stderr
