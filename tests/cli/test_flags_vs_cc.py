"""Every option of `claude --help` (2.1.330 line; the bundled CLI is 2.1.332) parses in Yoke with its arity:
a switch takes no value, `<x>` one, `<x...>` one or more, `[x]` an optional one; none swallows the prompt or
leaves its value behind as one. `cc_2_1_330/help_flags.txt` holds the list (names and arity only); when the
bundled CLI is installed, a test checks that the list is still what its `--help` prints."""

from __future__ import annotations

import glob
import os
import re
import site
import subprocess
from pathlib import Path

import pytest

from yoke.cli.args import parse

LIST = Path(__file__).resolve().parent / "cc_2_1_330" / "help_flags.txt"
# A value each flag accepts (most take any text).
SAMPLES = {
    "--output-format": "json",
    "--input-format": "text",
    "--permission-mode": "manual",
    "--effort": "high",
    "--permission-prompts": "none",
    "--system-prompt-snapshot": "off",
    "--autocompact": "auto",
    "--session-id": "3f0c4d8e-1b2a-4c3d-9e8f-0a1b2c3d4e5f",
    "--max-budget-usd": "1.5",
    "--json-schema": '{"type": "object"}',
    "--prompt-suggestions": "true",
    "--setting-sources": "user",
}


def flag_specs(text: str) -> list[tuple[list[str], str]]:
    specs = []
    for line in text.splitlines():
        if not line.strip() or line.startswith(("#", "@")):
            continue
        words = line.split()
        arity = words[-1] if words[-1] in ("<>", "<...>", "[]") else ""
        specs.append(([w for w in words if w.startswith("-")], arity))
    return specs


SPECS = flag_specs(LIST.read_text())
CASES = [(name, arity) for names, arity in SPECS for name in names if name not in ("-h", "--help")]


@pytest.mark.parametrize(("flag", "arity"), CASES, ids=[c[0] for c in CASES])
def test_every_flag_parses_with_its_arity(flag, arity):
    value = SAMPLES.get(flag, "x")
    if arity == "<>":
        argv = [flag, value, "-p", "hello"]
    elif arity == "<...>":
        argv = [flag, value, "y", "-p", "hello"]
    else:  # a switch, or an optional value left out
        argv = [flag, "-p", "hello"]
    args = parse(argv)
    assert args.prompt == "hello" and args.print_mode
    if arity == "[]":  # the optional value given
        assert parse([flag, value, "-p", "hello"]).prompt == "hello"
    if arity in ("<>", "<...>") and flag.startswith("--"):  # the value given with '='
        assert parse([f"{flag}={value}", "-p", "hello"]).prompt == "hello"


def test_manual_is_the_default_mode():
    assert parse(["--permission-mode", "manual", "-p", "x"]).permission_mode == "manual"


def _bundled_help(*command: str) -> str | None:
    for base in site.getsitepackages():
        for path in glob.glob(os.path.join(base, "claude_agent_sdk", "_bundled", "claude")):
            env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
            run = subprocess.run(
                [path, *command, "--help"], capture_output=True, text=True, timeout=60, env=env
            )
            return run.stdout
    return None


def help_specs(text: str) -> list[str]:
    """`claude --help`'s options section reduced to the list file's lines."""
    options = text.split("Options:")[1].split("Commands:")[0] if "Options:" in text else ""
    lines = []
    for line in options.splitlines():
        match = re.match(r"^  (-\S.*?)(?:\s{2,}|$)", line)
        if not match:
            continue
        spec = match.group(1).strip()
        names = re.findall(r"(--?[\w-]+)", spec.split(" <")[0].split(" [")[0])
        arity = (
            "<...>"
            if re.search(r"<[^>]*\.\.\.>", spec)
            else "<>"
            if "<" in spec
            else "[]"
            if "[" in spec
            else ""
        )
        lines.append(" ".join(names) + (" " + arity if arity else ""))
    return lines


def test_the_list_is_what_the_bundled_cli_prints():
    text = _bundled_help()
    if text is None:
        pytest.skip("the bundled Claude Code (claude-agent-sdk wheel) is not installed")
    listed = [line for line in LIST.read_text().splitlines() if line and not line.startswith(("#", "@"))]
    assert help_specs(text) == listed


@pytest.mark.parametrize(
    "flag", ["--desktop", "--cloud", "--remote-control", "--ax-screen-reader", "--bare", "--safe-mode"]
)
def test_a_flag_not_acted_on_says_so_in_one_line(yoke, flag):
    from tests.conftest import anthropic_env

    from yoke.testing import ScriptedServer

    with ScriptedServer([{"content": [{"type": "text", "text": "done"}]}]) as srv:
        run = yoke("-p", flag, "--", "hi", env=anthropic_env(srv))
    assert run.code == 0 and run.stdout.strip() == "done", run.stderr
    lines = [line for line in run.stderr.splitlines() if flag in line]
    assert len(lines) == 1 and "not" in lines[0]


def test_restricted_removes_bash_and_ignores_settings_files(yoke, project):
    import json

    from tests.conftest import anthropic_env

    from yoke.testing import ScriptedServer

    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"model": "claude-haiku-4-5"}))
    turns = [{"content": [{"type": "text", "text": "done"}]}] * 3
    with ScriptedServer(turns) as srv:
        plain = yoke("-p", "hi", env=anthropic_env(srv))
        restricted = yoke("-p", "--restricted", "hi", env=anthropic_env(srv))
        named = yoke("-p", "--restricted", "--tools", "Bash,Read", "--", "hi", env=anthropic_env(srv))
        bodies = [r.body for r in srv.requests]
    assert plain.code == restricted.code == named.code == 0, restricted.stderr
    tools = [{t["name"] for t in b["tools"]} for b in bodies]
    assert "Bash" in tools[0] and "Bash" not in tools[1] and "WebFetch" not in tools[1] and "Read" in tools[1]
    assert tools[2] == {"Bash", "Read"}
    assert bodies[0]["model"] == "claude-haiku-4-5" and bodies[1]["model"] != "claude-haiku-4-5"
    refused = yoke("-p", "--restricted", "--dangerously-skip-permissions", "hi")
    assert refused.code == 1 and "bypassPermissions" in refused.stderr


def test_restricted_keeps_the_file_tools_in_the_working_directories(yoke, project):
    import json

    from tests.conftest import anthropic_env

    from yoke.testing import ScriptedServer

    outside = project.parent / "elsewhere.txt"
    outside.write_text("secret\n")
    read = {"type": "tool_use", "id": "toolu_r", "name": "Read", "input": {"file_path": str(outside)}}
    turns = [{"content": [read]}, {"content": [{"type": "text", "text": "done"}]}]
    rule = json.dumps({"permissions": {"allow": ["Read"]}})  # an allow rule does not lift it
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "--restricted",
            "--settings",
            rule,
            "--output-format",
            "json",
            "read",
            env=anthropic_env(srv),
        )
        told = json.dumps(srv.requests[1].body["messages"][-1])
    assert run.code == 0, run.stderr
    assert "secret" not in told and "outside the working directories" in told


def test_permission_prompts_none_denies_what_would_ask(yoke):
    """With stdio prompts a host would be asked; with --permission-prompts none nobody is, the call is denied."""
    import json

    from tests.conftest import anthropic_env

    from yoke.testing import ScriptedServer

    write = {
        "type": "tool_use",
        "id": "toolu_w",
        "name": "Write",
        "input": {"file_path": "w.txt", "content": "w"},
    }
    turns = [{"content": [write]}, {"content": [{"type": "text", "text": "done"}]}]
    frame = json.dumps({"type": "user", "message": {"role": "user", "content": "write"}}) + "\n"
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
            "--permission-prompt-tool", "stdio", "--permission-prompts", "none", input=frame, env=anthropic_env(srv),
        )  # fmt: skip
    assert run.code == 0, run.stderr
    lines = run.lines()
    assert not [o for o in lines if o["type"] == "control_request"]  # nobody was asked
    assert [o["tool_name"] for o in lines if o.get("subtype") == "permission_denied"] == ["Write"]


SUBCOMMANDS = [
    n for line in LIST.read_text().splitlines() if line.startswith("@") for n in line[1:].split("|")
]


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_subcommand_is_one_of_yokes_never_a_prompt(name):
    from yoke.cli.main import SUBCOMMANDS as YOKES

    assert name in YOKES  # `yoke logs` runs a subcommand (or says it is not available), never a prompt


def test_autocompact_sizes_the_window_compaction_works_in(yoke):
    plain = yoke("-p", "--print-context", env={"ANTHROPIC_API_KEY": "sk-test"})
    capped = yoke("-p", "--print-context", "--autocompact", "150000", env={"ANTHROPIC_API_KEY": "sk-test"})
    assert plain.code == capped.code == 0, capped.stderr
    assert "effective 150,000" in capped.stdout and "effective 150,000" not in plain.stdout
    for bad in ("5000", "lots"):
        refused = yoke("-p", "--autocompact", bad, "hi")
        assert refused.code == 1 and "--autocompact" in refused.stderr


@pytest.mark.parametrize("name", ["daemon", "self-hosted-runner"])
def test_hidden_subcommands_give_one_line_and_no_model_call(yoke, name):
    """2.1.332 answers these hidden names itself; Yoke says in one line it has no such part."""
    from tests.conftest import anthropic_env

    from yoke.testing import ScriptedServer

    with ScriptedServer([{"content": [{"type": "text", "text": "a prompt reached me"}]}]) as srv:
        run = yoke(name, "status", env=anthropic_env(srv))
    assert run.code == 1 and run.stdout == "" and not srv.requests
    assert len(run.stderr.splitlines()) == 1 and run.stderr.startswith(f"yoke {name}: not available")


def test_rc_is_remote_control(yoke):
    """`claude rc` is 2.1.332's hidden alias of `remote-control`; so is Yoke's."""
    run = yoke("rc", "devices")
    assert run.code == 0 and run.stdout.strip() == yoke("remote-control", "devices").stdout.strip() != ""


SUB_LIST = LIST.with_name("subcommand_flags.txt")
POSITIONALS = {
    "mcp add": ["srv", "http://127.0.0.1:9/mcp"],
    "mcp add-json": ["srv", '{"type": "http", "url": "http://127.0.0.1:9/mcp"}'],
    "mcp remove": ["srv"],
    "mcp login": ["srv"],
    "plugin validate": ["."],
    **{f"plugin {c}": ["p@m"] for c in ("install", "uninstall", "enable", "disable", "update")},
}
SUB_VALUES = {"--scope": "user", "-s": "user", "--transport": "http", "-t": "http", "--callback-port": "8123",
              "--env": "A=1", "-e": "A=1", "--header": "X-A: 1", "-H": "X-A: 1", "--model": "sonnet"}  # fmt: skip
SUB_CASES = [
    (line.split(":", 1)[0], name, line.split()[-1] if line.split()[-1] in ("<>", "<...>", "[]") else "")
    for line in SUB_LIST.read_text().splitlines()
    if line.strip() and not line.startswith("#")
    for name in line.split(":", 1)[1].split()
    if name.startswith("-")
]
NOT_PARSED = ("unrecognized arguments", "unknown option", "invalid choice", "error: argument", "Traceback")


@pytest.mark.parametrize(("sub", "flag", "arity"), SUB_CASES, ids=[f"{s}:{f}" for s, f, _ in SUB_CASES])
def test_every_option_of_yokes_subcommands_parses(yoke, sub, flag, arity, tmp_path):
    """The options `claude <subcommand> --help` lists, for the subcommands Yoke has: parsed (acted on, or
    said not to be), never refused as unknown. -e/-H go after the server's name, as users write them."""
    value = [SUB_VALUES.get(flag, "x")] if arity in ("<>", "<...>") else []
    argv = [*sub.split(), flag, *value, *POSITIONALS.get(sub, [])]
    if flag in ("-e", "--env", "-H", "--header"):
        argv = [*sub.split(), *POSITIONALS[sub], flag, *value]
    if sub == "mcp serve":
        argv += ["--permission-mode", "nonsense"]  # ends at once, after the flags are parsed
    run = yoke(*argv, cwd=tmp_path, input="")
    said = run.stdout + run.stderr
    assert not any(word in said for word in NOT_PARSED), said


def test_the_subcommand_list_is_what_the_bundled_cli_prints():
    if _bundled_help() is None:
        pytest.skip("the bundled Claude Code (claude-agent-sdk wheel) is not installed")
    listed = [line for line in SUB_LIST.read_text().splitlines() if line.strip() and not line.startswith("#")]
    for sub in dict.fromkeys(line.split(":", 1)[0] for line in listed):
        printed = [spec for spec in help_specs(_bundled_help(*sub.split()) or "") if spec != "-h --help"]
        assert [f"{sub}: {spec}" for spec in printed] == [
            line for line in listed if line.startswith(f"{sub}:")
        ]
