"""Hooks in `.claude/settings.json` driving the real `yoke -p` against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import anthropic_env
from tests.hooks.conftest import needs_jq, script

from yoke.testing import ScriptedServer


def configure(project: Path, home: Path, hooks: dict, trusted: bool = True) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": hooks}))
    if trusted:
        from yoke.config.trust import trust_folder

        trust_folder(project, home / ".yoke")


def bash_turn(command: str, id: str = "toolu_bash") -> dict:
    return {
        "content": [
            {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command, "description": "x"}}
        ]
    }


def tool_result_text(request) -> str:
    """The text of every tool_result in a recorded request's last user message."""
    last = request.body["messages"][-1]
    parts = []
    for block in last["content"] if isinstance(last["content"], list) else []:
        if block.get("type") == "tool_result":
            content = block.get("content")
            parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)


def guard_hooks() -> dict:
    return {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": script("guard_rm_rf.sh")}]}
        ]
    }


@needs_jq
def test_guard_hook_stops_rm_rf(yoke, project: Path, home: Path):
    (project / "build").mkdir()
    (project / "build" / "keep.txt").write_text("precious")
    configure(project, home, guard_hooks())
    turns = [bash_turn("rm -rf build"), {"content": "I could not delete it."}]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "clean up",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "bypassPermissions",
            env=anthropic_env(srv),
        )
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert (project / "build" / "keep.txt").read_text() == "precious"
    assert "Blocked: rm -rf is not allowed in this project" in tool_result_text(requests[1])
    got = json.loads((project / ".hook-input-guard.json").read_text())
    session_id = run.result()["session_id"]
    assert got["session_id"] == session_id and got["hook_event_name"] == "PreToolUse"
    assert got["cwd"] == str(project) and got["permission_mode"] == "bypassPermissions"
    assert got["transcript_path"].endswith(f"{session_id}.jsonl")
    assert got["tool_input"]["command"] == "rm -rf build" and got["tool_use_id"] == "toolu_bash"


@needs_jq
def test_untrusted_folder_hooks_are_skipped_with_one_line(yoke, project: Path, home: Path):
    configure(project, home, guard_hooks(), trusted=False)
    with ScriptedServer([{"content": "hello"}]) as srv:
        run = yoke("-p", "hi", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert run.stderr.count("has not been trusted: skipping 1 hook") == 1
    assert not (project / ".hook-input-guard.json").exists()


def test_stop_hook_forces_one_more_turn(yoke, project: Path, home: Path):
    configure(
        project, home, {"Stop": [{"hooks": [{"type": "command", "command": script("stop_until_tests.py")}]}]}
    )
    turns = [{"content": "Done."}, {"content": "Ran the tests: all green."}]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "finish up", "--output-format", "json", env=anthropic_env(srv))
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert len(requests) == 2
    assert "Run the test suite once more before finishing." in json.dumps(requests[1].body["messages"][-1])
    assert json.loads(run.stdout)["result"] == "Ran the tests: all green."
    inputs = [json.loads(line) for line in (project / ".hook-input-stop.jsonl").read_text().splitlines()]
    assert [i["stop_hook_active"] for i in inputs] == [False, True]
    assert inputs[0]["last_assistant_message"] == "Done."


def test_user_prompt_submit_context_reaches_the_model(yoke, project: Path, home: Path):
    configure(
        project,
        home,
        {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": script("prompt_context.sh")}]}]},
    )
    with ScriptedServer([{"content": "ok"}]) as srv:
        run = yoke("-p", "fix the build", env=anthropic_env(srv))
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert "Project conventions: tabs, never spaces." in json.dumps(requests[0].body["messages"])
    assert json.loads((project / ".hook-input-prompt.json").read_text())["prompt"] == "fix the build"


def test_session_start_env_file_reaches_later_bash_calls(yoke, project: Path, home: Path):
    configure(
        project,
        home,
        {"SessionStart": [{"hooks": [{"type": "command", "command": script("session_env.sh")}]}]},
    )
    turns = [bash_turn("echo target=$DEPLOY_TARGET"), {"content": "done"}]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "where do we deploy", "--permission-mode", "bypassPermissions", env=anthropic_env(srv)
        )
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert "target=staging" in tool_result_text(requests[1])
    assert "Loaded staging environment." in json.dumps(requests[0].body)
    assert json.loads((project / ".hook-input-session.json").read_text())["source"] == "startup"


def test_include_hook_events_lines(yoke, project: Path, home: Path):
    configure(
        project,
        home,
        {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": "cat > /dev/null; echo checked"}],
                }
            ]
        },
    )
    turns = [bash_turn("echo hi"), {"content": "done"}]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "say hi",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-hook-events",
            "--permission-mode",
            "bypassPermissions",
            env=anthropic_env(srv),
        )
    assert run.code == 0, run.stderr
    hook_lines = [o for o in run.lines() if o.get("subtype") in ("hook_started", "hook_response")]
    assert [(o["subtype"], o["hook_name"]) for o in hook_lines] == [
        ("hook_started", "PreToolUse:Bash"),
        ("hook_response", "PreToolUse:Bash"),
    ]
    assert hook_lines[1]["stdout"] == "checked\n" and hook_lines[1]["outcome"] == "success"


def test_rewrite_hook_changes_the_command_that_runs(yoke, project: Path, home: Path):
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": script("rewrite_command.py")}]}
        ]
    }
    configure(project, home, hooks)
    fake = project / "bin" / "pytest"
    fake.parent.mkdir()
    fake.write_text('#!/usr/bin/env bash\necho "pytest called with: $*"\n')
    fake.chmod(0o755)
    turns = [bash_turn("pytest tests"), {"content": "done"}]
    with ScriptedServer(turns) as srv:
        env = {**anthropic_env(srv), "PATH": f"{fake.parent}:/usr/bin:/bin"}
        run = yoke("-p", "run the tests", env=env)
        requests = srv.requests
    assert run.code == 0, run.stderr
    # allow from the hook skips the question (headless would deny it), and the rewritten input runs
    assert "pytest called with: -q tests" in tool_result_text(requests[1])
    assert (
        json.loads((project / ".hook-input-rewrite.json").read_text())["tool_input"]["command"]
        == "pytest tests"
    )


@needs_jq
def test_post_tool_use_formatter_runs_after_write(yoke, project: Path, home: Path):
    hooks = {
        "PostToolUse": [
            {
                "matcher": "Write|Edit",
                "hooks": [{"type": "command", "command": script("format_after_edit.sh")}],
            }
        ]
    }
    configure(project, home, hooks)
    target = project / "app.py"
    write = {
        "type": "tool_use",
        "id": "toolu_w",
        "name": "Write",
        "input": {"file_path": str(target), "content": "x = 1   \n"},
    }
    with ScriptedServer([{"content": [write]}, {"content": "written"}]) as srv:
        run = yoke("-p", "write app.py", "--permission-mode", "acceptEdits", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert target.read_text() == "x = 1\n"
    got = json.loads((project / ".hook-input-format.json").read_text())
    assert got["tool_name"] == "Write" and got["tool_use_id"] == "toolu_w" and "tool_response" in got


def test_hanging_and_crashing_hooks_do_not_stall_or_crash_the_run(yoke, project: Path, home: Path):
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": script("hang.sh"), "timeout": 1}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": script("crash.py")}]},
        ]
    }
    configure(project, home, hooks)
    turns = [bash_turn("echo still-ran"), {"content": "done"}]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "go",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "bypassPermissions",
            env=anthropic_env(srv),
            timeout=30,
        )
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert "still-ran" in tool_result_text(requests[1])
    notes = [o["content"] for o in run.lines() if o.get("subtype") == "informational"]
    assert any("timed out after 1 s and was killed" in n for n in notes), notes
    assert any("failed with non-blocking status code 1: Traceback" in n for n in notes), notes


def test_http_hook_denies_through_a_local_server(yoke, project: Path, home: Path):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    bodies: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            answer = {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "the policy server refuses",
                }
            }
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/hook"
        configure(
            project, home, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": url}]}]}
        )
        turns = [bash_turn("touch made-it"), {"content": "ok"}]
        with ScriptedServer(turns) as srv:
            run = yoke("-p", "go", "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
            requests = srv.requests
    finally:
        server.shutdown()
    assert run.code == 0, run.stderr
    assert not (project / "made-it").exists()
    assert "the policy server refuses" in tool_result_text(requests[1])
    assert (
        bodies[0]["tool_input"]["command"] == "touch made-it" and bodies[0]["hook_event_name"] == "PreToolUse"
    )


def test_async_hook_exiting_2_reaches_the_model(yoke, project: Path, home: Path):
    cmd = "cat > /dev/null; echo '{\"async\": true}'; sleep 0.5; echo 'lint: 2 errors in app.py' >&2; exit 2"
    hooks = {
        "PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": cmd, "if": "Bash(echo *)"}]}
        ]
    }
    configure(project, home, hooks)
    turns = [bash_turn("echo saved", "toolu_1"), bash_turn("sleep 1.5", "toolu_2"), {"content": "fixed"}]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "go", "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert len(requests) == 3
    assert "lint: 2 errors in app.py" not in json.dumps(requests[1].body["messages"])
    assert "lint: 2 errors in app.py" in json.dumps(requests[2].body["messages"][-1])


def test_prompt_hook_asks_a_small_model_through_the_session_provider(yoke, project: Path, home: Path):
    hooks = {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Did the agent run the tests? $ARGUMENTS"}]}]}
    configure(project, home, hooks)
    turns = [
        {"content": "Done."},
        {"content": '{"ok": false, "reason": "The tests were not run."}'},
        {"content": "Ran the tests: green."},
        {"content": '{"ok": true}'},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "finish", "--output-format", "json", env=anthropic_env(srv))
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["result"] == "Ran the tests: green."
    judge = requests[1].body
    assert "haiku" in judge["model"] and not judge.get("tools")
    content = judge["messages"][0]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    assert text.startswith("Did the agent run the tests? {") and '"last_assistant_message":"Done."' in text
    assert "The tests were not run." in json.dumps(requests[2].body["messages"][-1])


async def test_agent_sdk_hook_callbacks(project: Path, home: Path):
    sdk = pytest.importorskip("claude_agent_sdk")
    import sys

    seen: list[dict] = []

    async def guard(data, tool_use_id, context):
        seen.append(data)
        if "rm -rf" in data["tool_input"].get("command", ""):
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "the SDK guard refuses rm -rf",
                }
            }
        return {}

    (project / "build").mkdir()
    turns = [bash_turn("rm -rf build"), {"content": "could not"}]
    with ScriptedServer(turns) as srv:
        env = {
            **anthropic_env(srv),
            "YOKE_HOME": str(home / ".yoke"),
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        }
        opts = sdk.ClaudeAgentOptions(
            cli_path=str(Path(sys.executable).parent / "yoke"),
            cwd=str(project),
            env=env,
            permission_mode="bypassPermissions",
            hooks={"PreToolUse": [sdk.HookMatcher(matcher="Bash", hooks=[guard])]},
        )
        async with sdk.ClaudeSDKClient(options=opts) as client:
            await client.query("clean")
            received = [m async for m in client.receive_response()]
        requests = srv.requests
    assert (project / "build").is_dir()
    assert received[-1].result == "could not"
    assert "the SDK guard refuses rm -rf" in tool_result_text(requests[1])
    assert seen[0]["hook_event_name"] == "PreToolUse" and seen[0]["tool_use_id"] == "toolu_bash"


def test_plugin_hooks_run_with_their_root_and_data(yoke, project: Path, home: Path, tmp_path: Path):
    plugin = tmp_path / "guard-plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "guard"}))
    (plugin / "hooks").mkdir()
    hook = {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh"}
    (plugin / "hooks" / "hooks.json").write_text(
        json.dumps({"description": "guard", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    guard = plugin / "scripts" / "guard.sh"
    guard.parent.mkdir()
    guard.write_text(
        '#!/usr/bin/env bash\ncat > /dev/null\necho "$CLAUDE_PLUGIN_ROOT|$CLAUDE_PLUGIN_DATA" > '
        '"$CLAUDE_PROJECT_DIR/plugin-env.txt"\necho "the guard plugin says no" >&2\nexit 2\n'
    )
    guard.chmod(0o755)
    turns = [bash_turn("touch made-it"), {"content": "ok"}]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "go",
            "--plugin-dir",
            str(plugin),
            "--permission-mode",
            "bypassPermissions",
            env=anthropic_env(srv),
        )
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert not (project / "made-it").exists()
    assert "the guard plugin says no" in tool_result_text(requests[1])
    root, data = (project / "plugin-env.txt").read_text().strip().split("|")
    assert root == str(plugin) and data and Path(data).is_dir()


def test_skill_frontmatter_hooks_apply_once_the_skill_is_invoked(yoke, project: Path, home: Path):
    configure(project, home, {})
    skill = project / ".claude" / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(
        "---\nname: deploy\ndescription: Deploy the app\nhooks:\n  PreToolUse:\n    - matcher: Bash\n"
        "      hooks:\n        - type: command\n          command: \"cat > /dev/null; echo 'deploys need a "
        "ticket' >&2; exit 2\"\n---\nDeploy the app now.\n"
    )
    turns = [bash_turn("touch deployed"), {"content": "blocked"}]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "/deploy", "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert "Deploy the app now." in json.dumps(requests[0].body["messages"])
    assert not (project / "deployed").exists()
    assert "deploys need a ticket" in tool_result_text(requests[1])


def test_agent_hook_checks_with_a_read_only_sub_agent(yoke, project: Path, home: Path):
    (project / "TESTS.md").write_text("last run: failed\n")
    hooks = {
        "Stop": [{"hooks": [{"type": "agent", "prompt": "Check TESTS.md says the tests pass. $ARGUMENTS"}]}]
    }
    configure(project, home, hooks)
    read = {
        "type": "tool_use",
        "id": "toolu_r",
        "name": "Read",
        "input": {"file_path": str(project / "TESTS.md")},
    }
    turns = [
        {"content": "Done."},
        {"content": [read]},  # the checking agent looks at the project itself
        {"content": '{"ok": false, "reason": "TESTS.md says the last run failed."}'},
        {"content": "Fixed and ran them: green."},
        {"content": '{"ok": true}'},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "finish", "--output-format", "json", env=anthropic_env(srv))
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["result"] == "Fixed and ran them: green."
    check = requests[1].body
    assert {t["name"] for t in check["tools"]} == {"Read", "Grep", "Glob"}
    assert "read-only tools" in json.dumps(check["system"])
    assert "Check TESTS.md says the tests pass." in json.dumps(check["messages"][0])
    assert "last run: failed" in json.dumps(requests[2].body["messages"])  # the Read ran
    assert "TESTS.md says the last run failed." in json.dumps(requests[3].body["messages"][-1])


def test_an_agent_hook_on_its_own_checks_tool_calls_does_not_recurse(yoke, project: Path, home: Path):
    (project / "a.txt").write_text("alpha\n")
    hooks = {
        "PreToolUse": [{"matcher": "Read", "hooks": [{"type": "agent", "prompt": "Is this read safe?"}]}]
    }
    configure(project, home, hooks)
    read = {
        "type": "tool_use",
        "id": "toolu_a",
        "name": "Read",
        "input": {"file_path": str(project / "a.txt")},
    }
    check_read = {**read, "id": "toolu_c"}
    turns = [
        {"content": [read]},
        {"content": [check_read]},  # the check reads too: its own PreToolUse agent hook is skipped
        {"content": '{"ok": true}'},
        {"content": "It says alpha."},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "read a.txt", "--output-format", "json", env=anthropic_env(srv), timeout=60)
        requests = srv.requests
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["result"] == "It says alpha."
    assert len(requests) == 4
