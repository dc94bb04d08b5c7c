"""Real hook scripts (bash and Python, written as public Claude Code examples are) answering real
announcements through the lifecycle seam: the JSON each received and the outcome each produced."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.hooks.conftest import make, needs_jq, received, script


def on(event: str, command: str, matcher: str = "", **extra) -> dict:
    return {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command, **extra}]}]}


@needs_jq
async def test_guard_blocks_rm_rf_with_exit_2(project: Path):
    lifecycle, _ = make(project, on("PreToolUse", script("guard_rm_rf.sh"), "Bash"))
    out = await lifecycle.announce(
        "PreToolUse", tool_name="Bash", tool_input={"command": "rm -rf build"}, tool_use_id="toolu_1"
    )
    assert out.decision == "deny"
    assert out.reason == "Blocked: rm -rf is not allowed in this project. Remove files one at a time."
    got = received(project, "guard")
    assert got == {
        "session_id": "0381b11b-1111-2222-3333-444455556666",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
        "tool_use_id": "toolu_1",
    }
    allowed = await lifecycle.announce(
        "PreToolUse", tool_name="Bash", tool_input={"command": "ls -la"}, tool_use_id="toolu_2"
    )
    assert allowed.empty
    # The matcher keeps the guard off other tools entirely.
    (project / ".hook-input-guard.json").unlink()
    await lifecycle.announce("PreToolUse", tool_name="Read", tool_input={"file_path": "x"}, tool_use_id="t3")
    assert not (project / ".hook-input-guard.json").exists()


async def test_python_hook_rewrites_the_command(project: Path):
    lifecycle, _ = make(project, on("PreToolUse", script("rewrite_command.py"), "Bash"))
    out = await lifecycle.announce(
        "PreToolUse",
        tool_name="Bash",
        tool_input={"command": "pytest tests", "description": "run tests"},
        tool_use_id="toolu_9",
    )
    assert out.decision == "allow"
    assert out.reason == "test runs are quiet here"
    assert out.updated_input == {"command": "pytest -q tests", "description": "run tests"}
    assert received(project, "rewrite")["tool_input"]["command"] == "pytest tests"


@needs_jq
async def test_post_tool_use_formatter_formats_the_file(project: Path):
    target = project / "app.py"
    target.write_text("x = 1    \ny = 2\t\n")
    lifecycle, _ = make(project, on("PostToolUse", script("format_after_edit.sh"), "Edit|Write"))
    out = await lifecycle.announce(
        "PostToolUse",
        tool_name="Write",
        tool_input={"file_path": str(target), "content": "x = 1    \ny = 2\t\n"},
        tool_response={"type": "create", "filePath": str(target)},
        tool_use_id="toolu_w",
    )
    assert target.read_text() == "x = 1\ny = 2\n"
    assert out.empty  # plain stdout of a PostToolUse hook goes to the debug log, not the model
    got = received(project, "format")
    assert got["tool_response"] == {"type": "create", "filePath": str(target)}
    assert got["hook_event_name"] == "PostToolUse"


async def test_stop_hook_forces_one_more_turn(project: Path):
    lifecycle, _ = make(project, on("Stop", script("stop_until_tests.py")))
    first = await lifecycle.announce("Stop", stop_hook_active=False, last_assistant_message="Done.")
    assert first.block and first.reason == "Run the test suite once more before finishing."
    second = await lifecycle.announce("Stop", stop_hook_active=True, last_assistant_message="Ran.")
    assert second.empty
    lines = (project / ".hook-input-stop.jsonl").read_text().splitlines()
    assert [json.loads(line)["stop_hook_active"] for line in lines] == [False, True]
    assert json.loads(lines[0])["last_assistant_message"] == "Done."


async def test_user_prompt_submit_adds_context(project: Path):
    lifecycle, _ = make(project, on("UserPromptSubmit", script("prompt_context.sh")))
    out = await lifecycle.announce("UserPromptSubmit", prompt="fix the build")
    assert out.additional_context == "Project conventions: tabs, never spaces. Today is release day."
    assert received(project, "prompt")["prompt"] == "fix the build"


async def test_session_start_writes_the_env_file(project: Path):
    lifecycle, listener = make(project, on("SessionStart", script("session_env.sh"), "startup"))
    out = await lifecycle.announce("SessionStart", source="startup", model="claude-sonnet-4-5")
    assert out.additional_context == "Loaded staging environment."
    assert listener.env_exports == {"DEPLOY_TARGET": "staging", "GREETING": "hello world"}
    assert 'export GREETING="hello world"' in listener.env_script
    assert received(project, "session")["source"] == "startup"
    # A resumed session does not match the `startup` matcher.
    (project / ".hook-input-session.json").unlink()
    await lifecycle.announce("SessionStart", source="resume")
    assert not (project / ".hook-input-session.json").exists()


async def test_env_file_only_for_its_events_and_project_dir_always(project: Path):
    cmd = 'echo "${CLAUDE_ENV_FILE:-none} $CLAUDE_PROJECT_DIR $YOKE_PROJECT_DIR $CLAUDECODE"'
    lifecycle, _ = make(project, {**on("UserPromptSubmit", cmd), **on("CwdChanged", cmd)})
    plain = await lifecycle.announce("UserPromptSubmit", prompt="x")
    assert plain.additional_context == f"none {project} {project} 1"
    # CwdChanged has no plain-stdout context; check through the env file instead.
    lifecycle2, listener = make(
        project, on("CwdChanged", 'echo "export SEEN=$CLAUDE_PROJECT_DIR" >> "$CLAUDE_ENV_FILE"')
    )
    await lifecycle2.announce("CwdChanged", old_cwd=str(project), new_cwd=str(project / "sub"))
    assert listener.env_exports == {"SEEN": str(project)}


async def test_hanging_hook_is_killed_with_its_children_and_reported(project: Path):
    lifecycle, _ = make(project, on("PreToolUse", script("hang.sh"), timeout=1))
    start = time.monotonic()
    out = await lifecycle.announce(
        "PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t"
    )
    assert time.monotonic() - start < 5
    assert out.decision is None  # a timed-out hook renders no decision: normal permissions apply
    assert "PreToolUse:Bash hook error: timed out after 1 s and was killed" in out.system_message
    child = int((project / ".hang-child.pid").read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the hook's child process survived the kill")


async def test_crashing_hooks_never_crash_yoke(project: Path):
    hooks = {
        "PreToolUse": [
            {"hooks": [{"type": "command", "command": script("crash.py")}]},
            {"hooks": [{"type": "command", "command": "/no/such/hook-binary"}]},
        ]
    }
    lifecycle, _ = make(project, hooks)
    out = await lifecycle.announce(
        "PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t"
    )
    assert out.decision is None and not out.block  # exit 1 and 127 do not block
    lines = out.system_message.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(
        "PreToolUse:Bash hook error: failed with non-blocking status code 1: Traceback"
    )
    assert "status code 127" in lines[1] and "/no/such/hook-binary" in lines[1]


async def test_huge_output_is_capped(project: Path):
    cmd = "python3 -c \"import json; print(json.dumps({'systemMessage': 'x' * 3000000}))\""
    lifecycle, _ = make(project, on("UserPromptSubmit", cmd))
    out = await lifecycle.announce("UserPromptSubmit", prompt="hi")
    # 1 MiB captured is not a JSON object any more; what reaches the model is cut to 10,000 characters.
    assert len(out.additional_context) < 10_200
    assert "cut:" in out.additional_context and "the whole text is in" in out.additional_context


async def test_interrupted_hook_is_killed(project: Path):
    import asyncio

    lifecycle, listener = make(project, on("PreToolUse", script("hang.sh")))
    task = asyncio.ensure_future(
        lifecycle.announce("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t")
    )
    pid_file = project / ".hang-child.pid"
    for _ in range(100):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.05)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    child = int(pid_file.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the interrupted hook's child survived")
