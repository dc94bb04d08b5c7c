"""Issue 28's red-team classes 1-9, as a user meets them: a headless session (nobody to ask: an ask is a
denial) with no rules, in each permission mode, in an untrusted clone, with bubblewrap and without it.

Each class is fixed as a rule in the analyser or the session; these tests show one illustration of each
rule from the outside: what the gate decided, and that the effect did (or did not) happen.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import anthropic_env
from tests.permissions.sessions import make_project, run_calls, run_commands

from yoke.testing import ScriptedServer

MODES = ["default", "plan", "dontAsk", "acceptEdits"]
SECRET = "top-secret-value"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def init_repo(project: Path) -> None:
    git(project, "init", "-q")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")


# ---- 1. options whose value is optional -------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_1_an_optional_value_never_hides_a_secret_operand(
    tmp_path: Path, kernel: str, mode: str
) -> None:
    home, project = make_project(tmp_path)
    init_repo(project)
    commands = [
        "od -c -w .env",
        "git diff -B .env",
        "strings @.env",
        "jq --indent 2 -n env",
        "tail --follow .env",
    ]
    results = await run_commands(project, home, commands, mode)
    assert [r.behavior for r in results] == ["deny"] * len(commands)
    assert not any(SECRET in r.text for r in results)


# ---- 2. cd is logical in bash -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_2_cd_through_a_link_is_judged_where_bash_lands(tmp_path: Path, kernel: str, mode: str) -> None:
    home, project = make_project(tmp_path)
    (project / "a" / "b" / "c").mkdir(parents=True)
    (project / "l").symlink_to(project / "a" / "b" / "c")
    (tmp_path / "notes.txt").write_text("OUTSIDE-NOTES\n")  # beside the project: l/../.. in bash
    results = await run_commands(project, home, ["cd l/../.. && cat notes.txt"], mode)
    assert results[0].behavior == "deny" and "OUTSIDE-NOTES" not in results[0].text


# ---- 3. git ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_3_git_config_spellings_listing_forms_and_grep_open(
    tmp_path: Path, kernel: str, mode: str
) -> None:
    home, project = make_project(tmp_path)
    init_repo(project)
    marker = tmp_path / "fsmonitor-ran"
    config = project / ".git" / "config"
    config.write_text(config.read_text() + f"[core] fsmonitor = touch {marker}\n")  # a key on the header line
    nested = project / "evil"
    nested.mkdir()
    git(nested, "init", "-q")
    (nested / ".git" / "config.worktree").write_text(f"[core]\n\tpager = touch {marker}\n")
    commands = ["git status", "cd evil && git log", "git branch --sort=refname planted", "git grep -O foo"]
    results = await run_commands(project, home, commands, mode)
    assert [r.behavior for r in results] == ["deny"] * len(commands)
    assert not marker.exists()
    branches = subprocess.run(["git", "branch"], cwd=project, capture_output=True, text=True).stdout
    assert "planted" not in branches


# ---- 4. Grep and Glob below their folder -----------------------------------------------------------------


async def test_4_grep_and_glob_do_not_show_what_read_would_not(tmp_path: Path, kernel: str) -> None:
    home, project = make_project(tmp_path)
    (project / "notes.md").write_text("TOKEN is documented here\n")
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(./.env)"]}})
    )
    calls = [
        ("Grep", {"pattern": "TOKEN", "output_mode": "content"}),
        ("Grep", {"pattern": "SECRET", "path": "sub", "output_mode": "content"}),  # server.pem: a secret
        ("Glob", {"pattern": "**/.env"}),
    ]
    results = await run_calls(project, home, calls)
    assert [r.behavior for r in results] == ["allow"] * 3
    assert "notes.md" in results[0].text and SECRET not in results[0].text and ".env" not in results[0].text
    assert "PEM-SECRET" not in results[1].text
    assert ".env" not in results[2].text


# ---- 5. untrusted definitions ----------------------------------------------------------------------------


def run_yoke(
    project: Path, home: Path, path: str, turns: list[dict], *args: str
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "YOKE_", "CLAUDE_"))}
    env.update(
        HOME=str(home), YOKE_HOME=str(home / ".yoke"), CLAUDE_CONFIG_DIR=str(home / ".claude"), PATH=path
    )
    with ScriptedServer(turns) as srv:
        env.update(anthropic_env(srv))
        return subprocess.run(
            [sys.executable, "-m", "yoke", "-p", "go", "--output-format", "json", *args],
            cwd=project, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip


def test_5_an_untrusted_clone_starts_no_program_of_its_own(tmp_path: Path, kernel: str) -> None:
    """Its `.mcp.json` servers (approved by its own settings) and its agent's inline MCP server start in no
    mode until the folder is trusted; once trusted, the agent's server starts, except in plan mode."""
    home, project = make_project(tmp_path)
    marker = tmp_path / "server-started"
    server = {"command": "sh", "args": ["-c", f"touch {marker}"]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": server}}))
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
    agent = "---\nname: helper\ndescription: helps\nmcpServers:\n  - own:\n      command: sh\n"
    agent += f"      args: ['-c', 'touch {marker}']\n---\nHelp.\n"
    (project / ".claude" / "agents" / "helper.md").write_text(agent)
    call = {"type": "tool_use", "id": "a1", "name": "Agent",
            "input": {"description": "d", "prompt": "help", "subagent_type": "helper", "run_in_background": False}}  # fmt: skip
    text = {"content": [{"type": "text", "text": "done"}]}
    turns = [{"content": [call]}, text, text]
    for mode in ("default", "plan", "bypassPermissions"):
        run = run_yoke(project, home, kernel, turns, "--permission-mode", mode)
        assert run.returncode == 0, run.stderr
        assert not marker.exists(), mode
        assert "yoke trust" in run.stderr
    (project / ".mcp.json").unlink()
    env_trust = subprocess.run(
        [sys.executable, "-m", "yoke", "trust"], cwd=project, capture_output=True, text=True,
        env={**os.environ, "HOME": str(home), "YOKE_HOME": str(home / ".yoke"), "PATH": kernel},
    )  # fmt: skip
    assert env_trust.returncode == 0, env_trust.stderr
    run = run_yoke(project, home, kernel, turns, "--permission-mode", "plan")
    assert not marker.exists()  # trusted, but plan mode runs nothing
    run = run_yoke(project, home, kernel, turns, "--permission-mode", "default")
    assert marker.exists(), run.stderr  # the control: trusted, the agent's own server does start


def test_5_a_memory_folder_reached_through_a_link_gets_no_write_allowance(tmp_path: Path) -> None:
    from yoke.memory.allowance import unsafe_reason

    home, project = make_project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".claude").symlink_to(elsewhere)  # the repository's own link
    folder = project / ".claude" / "agent-memory" / "helper"
    assert "symbolic link" in unsafe_reason(folder, home, [project], custom=False)
    assert unsafe_reason(project / "notes" / "memory", home, [project], custom=False) == ""


# ---- 6. recursive copies ---------------------------------------------------------------------------------


async def test_6_a_template_copy_cannot_plant_protected_files(tmp_path: Path, kernel: str) -> None:
    home, project = make_project(tmp_path)
    template = project / "template"
    (template / ".claude").mkdir(parents=True)
    (template / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash"]}}')
    (template / "readme.txt").write_text("plain\n")
    (project / "plain").mkdir()
    (project / "plain" / "a.txt").write_text("a\n")
    results = await run_commands(project, home, ["cp -r template/. .", "cp -r plain/. copied"], "acceptEdits")
    assert [r.behavior for r in results] == ["deny", "allow"]
    assert not (project / ".claude").exists()
    assert (project / "copied" / "a.txt").read_text() == "a\n"


# ---- 7. the project's environment: an allowlist -----------------------------------------------------------


def test_7_a_project_may_set_only_listed_variables() -> None:
    from yoke.config.env_policy import project_may_set

    assert project_may_set("NODE_ENV") and project_may_set("ANTHROPIC_MODEL")
    for name in (
        "PYTHONPLATLIBDIR",
        "PYTHONSAFEPATH",
        "RUBYLIB",
        "SOME_NEW_TOOL_LOADER",
        "PATH",
        "ld_preload",
    ):
        assert not project_may_set(name), name


# ---- 8. an untrusted clone's hooks fail closed ------------------------------------------------------------


@pytest.mark.parametrize(
    "flags", [("--dangerously-skip-permissions",), ("--permission-mode", "acceptEdits"), ()]
)
def test_8_skipped_hooks_leave_no_call_unjudged(tmp_path: Path, kernel: str, flags: tuple[str, ...]) -> None:
    home, project = make_project(tmp_path)
    (project / ".claude").mkdir()
    hook = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 2"}]}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hook}))
    call = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "rm data.txt"}}
    text = {"content": [{"type": "text", "text": "done"}]}
    run = run_yoke(project, home, kernel, [{"content": [call]}, text], *flags)
    assert run.returncode == 0, run.stderr
    assert (project / "data.txt").exists()
    denials = json.loads(run.stdout)["permission_denials"]
    assert [d["tool_input"]["command"] for d in denials] == ["rm data.txt"]
    assert "yoke trust" in run.stderr
    said = "no kernel sandbox found" in run.stderr
    assert said == (
        shutil.which("bwrap", path=kernel) is None and "--dangerously-skip-permissions" not in flags
    )


# ---- 9. too strict where it is safe -----------------------------------------------------------------------


async def test_9_loops_arithmetic_and_substitutions_that_are_provably_safe_run(
    tmp_path: Path, kernel: str
) -> None:
    home, project = make_project(tmp_path)
    init_repo(project)
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("1\n2\n")
    (project / "src" / "b.py").write_text("1\n")
    commands = [
        'for f in src/*.py; do wc -l "$f"; done',
        "echo $((1+2))",
        "x=$(git rev-parse --short HEAD); echo $x",
        "git diff --output-indicator-new=+",
    ]
    results = await run_commands(project, home, commands)
    assert [r.behavior for r in results] == ["allow"] * 4, [r.source for r in results]
    assert "2 src/a.py" in results[0].text and "1 src/b.py" in results[0].text
    assert "3" in results[1].text
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=project, capture_output=True, text=True
    )
    assert head.stdout.strip() in results[2].text


async def test_9_the_users_grants_still_cover_loops_and_the_clear_cases(tmp_path: Path, kernel: str) -> None:
    home, project = make_project(tmp_path)
    init_repo(project)
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("1\n")
    (project / ".env.example").write_text("TOKEN=\n")
    settings = {"permissions": {"allow": ["Bash(wc:*)", "Bash(find:*)", "Bash(git log:*)"]}}
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    commands = [
        "for f in $(ls src); do wc -l src/$f; done",  # a loop the fast path cannot prove: the rule covers wc
        "find src -name '*.py' -print0 | xargs -0 wc -l",
        "git -C src log --oneline",
        "cat .env.example",
    ]
    results = await run_commands(project, home, commands)
    assert [r.behavior for r in results][1:] == ["allow"] * 3, [r.source for r in results]
    assert "1 src/a.py" in results[1].text


def test_8_an_untrusted_agent_definitions_judging_hooks_fail_closed_too(tmp_path: Path, kernel: str) -> None:
    home, project = make_project(tmp_path)
    (project / ".claude" / "agents").mkdir(parents=True)
    agent = "---\nname: cleaner\ndescription: cleans\nhooks:\n  PreToolUse:\n    - matcher: Bash\n"
    agent += "      hooks:\n        - type: command\n          command: exit 2\n---\nClean.\n"
    (project / ".claude" / "agents" / "cleaner.md").write_text(agent)
    call = {"type": "tool_use", "id": "a1", "name": "Agent",
            "input": {"description": "d", "prompt": "clean", "subagent_type": "cleaner", "run_in_background": False}}  # fmt: skip
    rm = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "rm data.txt"}}
    text = {"content": [{"type": "text", "text": "done"}]}
    turns = [{"content": [call]}, {"content": [rm]}, text, text]
    run = run_yoke(project, home, kernel, turns, "--dangerously-skip-permissions")
    assert run.returncode == 0, run.stderr
    assert (project / "data.txt").exists()
