"""`yoke` as a drop-in for `claude -p`: every Claude Code flag accepted, anything else refused before any
work with Claude Code's own line, subcommands never sent to the model."""

from __future__ import annotations

import json

import pytest
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

DONE = {"content": [{"type": "text", "text": "hi there"}]}


def test_effort_takes_its_value_and_leaves_the_prompt_alone(yoke):
    with ScriptedServer([DONE]) as srv:
        run = yoke("--effort", "high", "-p", "say hi", env=anthropic_env(srv))
        prompts = [r.body["messages"][-1] for r in srv.requests]
    assert run.code == 0, run.stderr
    assert run.stdout == "hi there\n"
    assert "say hi" in json.dumps(prompts) and '"high"' not in json.dumps(prompts)


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["--disalowedTools", "Bash", "-p", "hi"], "error: unknown option '--disalowedTools'"),
        (["-p", "hi", "--no-such-flag"], "error: unknown option '--no-such-flag'"),
        (["-p", "hi", "--frobnicate=3"], "error: unknown option '--frobnicate=3'"),
        (["-p", "--model"], "error: option '--model <model>' argument missing"),
    ],
)
def test_unknown_option_is_refused_before_any_work(yoke, argv, line):
    with ScriptedServer([DONE]) as srv:
        run = yoke(*argv, env=anthropic_env(srv))
        requests = srv.requests
    assert run.code == 1
    assert run.stderr.splitlines()[0] == line
    assert run.stdout == "" and requests == []


def test_a_typo_gets_a_suggestion(yoke):
    run = yoke("--disalowedTools", "Bash", "-p", "hi")
    assert run.stderr.splitlines()[1] == "(Did you mean --disallowedTools?)"


CLAUDE_FLAGS = [
    ["--effort", "max"],
    ["--agents", '{"reviewer": {"description": "Reviews", "prompt": "Review."}}', "--agent", "reviewer"],
    ["--strict-mcp-config"],
    ["--plugin-dir", "/tmp/no-plugins-here"],
    ["--fallback-model", "claude-haiku-4-5"],
    ["--include-hook-events"],
    ["--ide"],
    ["--betas", "interleaved-thinking-2025-05-14"],
    ["--debug-file", "/dev/null"],
    ["--permission-mode", "auto"],
    ["-n", "my session"],
    ["--bare"],
    ["--thinking", "adaptive"],
    ["--thinking-display", "summarized"],
    ["--exclude-dynamic-system-prompt-sections"],
    ["--disable-slash-commands"],
    ["--setting-sources="],
    ["--task-budget", "1000"],
    ["--chrome"],
    ["--session-mirror"],
]


@pytest.mark.parametrize("flags", CLAUDE_FLAGS, ids=lambda f: f[0])
def test_claude_code_flag_is_accepted(yoke, flags):
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", *flags, "--output-format", "json", "--", "say hi", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["result"] == "hi there"


def test_tools_space_separated_enables_each(yoke):
    with ScriptedServer([DONE]) as srv:
        run = yoke(
            "-p", "--output-format", "stream-json", "--verbose", "--tools", "Read", "Write", "--", "hi",
            env=anthropic_env(srv),
        )  # fmt: skip
        sent = [t["name"] for t in srv.requests[0].body["tools"]]
    assert run.code == 0, run.stderr
    assert run.lines()[0]["tools"] == ["Read", "Write"]
    assert sent == ["Read", "Write"]


SUBCOMMANDS = [
    ["update"],
    ["install"],
    ["setup-token"],
    ["migrate-installer"],
]


@pytest.mark.parametrize("argv", SUBCOMMANDS, ids=lambda a: a[0])
def test_subcommand_never_reaches_the_model(yoke, argv):
    with ScriptedServer([DONE]) as srv:
        run = yoke(*argv, env=anthropic_env(srv))
        requests = srv.requests
    assert requests == []
    assert run.code != 0
    assert run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1 and "not available" in run.stderr


@pytest.mark.parametrize("argv", [["config", "list"], ["doctor"]], ids=lambda a: a[0])
def test_config_and_doctor_are_commands_not_prompts(yoke, argv):
    with ScriptedServer([DONE]) as srv:
        run = yoke(*argv, env=anthropic_env(srv))
        posts = [r for r in srv.requests if r.method == "POST"]  # doctor only lists the models (a GET)
    assert posts == [] and "Traceback" not in run.stderr
    assert run.stdout.strip()


def test_mcp_list_is_a_command_not_a_prompt(yoke):
    with ScriptedServer([DONE]) as srv:
        run = yoke("mcp", "list", env=anthropic_env(srv))
        requests = srv.requests
    assert requests == [] and run.code == 0, run.stderr


def test_verbose_text_keeps_stdout_to_the_answer(yoke, project):
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {"pattern": "*"}}]},
        DONE,
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "look", "--verbose", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert run.stdout == "hi there\n"
    assert "Glob" in run.stderr


def test_betas_reach_the_api_header(yoke):
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", "--betas", "a-2025-01-01", "b-2026-02-02", "--", "hi", env=anthropic_env(srv))
        header = srv.requests[0].headers.get("anthropic-beta", "")
    assert run.code == 0, run.stderr
    assert "a-2025-01-01" in header and "b-2026-02-02" in header


def test_debug_file_gets_the_debug_lines(yoke, project):
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", "hi", "--debug-file", str(project / "debug.log"), env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert "[debug]" not in run.stderr
    assert "turn 1: requesting" in (project / "debug.log").read_text()


def test_no_input_is_claude_codes_line(yoke):
    run = yoke("-p", input="")
    assert run.code == 1
    assert run.stderr == (
        "Error: Input must be provided either through stdin or as a prompt argument when using --print\n"
    )


def test_tools_may_name_the_agent_tool(yoke):
    with ScriptedServer([DONE]) as srv:
        run = yoke(
            "-p", "--output-format", "stream-json", "--verbose", "--tools", "Read,Agent", "--", "hi",
            env=anthropic_env(srv),
        )  # fmt: skip
    assert run.code == 0, run.stderr
    assert sorted(run.lines()[0]["tools"]) == ["Agent", "Read"]
