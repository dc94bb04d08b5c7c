"""Issue 38, part 2: a deny rule holds whatever approves the call. The third corpus's largest class: the user
allows all Bash and denies `Read(./.env)`, `Read(~/.aws/**)` or `Bash(rm:*)`; `paste .env`, `iconv`, `dd if=`,
`unlink`, `shred -u`, `git clean` and `find -delete` must not run (a `Bash(cmd:*)` deny names a capability,
and a command the analyser cannot show lacks it asks). Headless: an ask is a denial.

Each test runs in every mode where it applies (bypassPermissions too), with the deny rules in the user's
settings and in an untrusted clone's own settings, with bubblewrap and without it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.permissions.sessions import hide_bwrap, make_project, run_calls, run_commands

MODES = ["default", "plan", "dontAsk", "acceptEdits", "bypassPermissions"]
SECRET = "top-secret-value"
DENY = ["Read(./.env)", "Read(~/.aws/**)", "Bash(rm:*)"]
EXTRA_TOOLS = ("paste", "iconv", "dd", "unlink", "shred", "base64")


@pytest.fixture(params=["bwrap", "no-sandbox"])
def kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    if request.param == "no-sandbox":
        path = hide_bwrap(monkeypatch, tmp_path / "bin")
        for tool in EXTRA_TOOLS:
            found = shutil.which(tool, path=os.defpath + ":/usr/bin:/bin")
            if found and not (tmp_path / "bin" / tool).exists():
                (tmp_path / "bin" / tool).symlink_to(found)
        return path
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    return os.environ["PATH"]


def world(tmp_path: Path, where: str) -> tuple[Path, Path]:
    """A project (a git repository with an untracked file) whose user allows all Bash; the deny rules are
    the user's, or the untrusted project's own."""
    home, project = make_project(tmp_path)
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text(f"aws_secret_access_key = {SECRET}\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "untracked.txt").write_text("scratch\n")
    (home / ".claude").mkdir()
    user: dict = {"permissions": {"allow": ["Bash"]}}
    if where == "user":
        user["permissions"]["deny"] = DENY
    else:
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": DENY}}))
    (home / ".claude" / "settings.json").write_text(json.dumps(user))
    return home, project


# Each capability a deny rule names, and commands that have it in another spelling.
BY_CAPABILITY = {
    "reading": [
        "paste .env",
        "iconv -f utf-8 -t utf-8 .env",
        "dd if=.env status=none",
        "base64 -d <(base64 .env)",
        "python3 -c 'print(open(\".env\").read())'",
        "paste ~/.aws/credentials",
        "tar -cf - . | tar -xOf -",
    ],
    "deleting": [
        "unlink data.txt",
        "shred -u data.txt",
        "git clean -fdx",
        "find . -name data.txt -delete",
        "rsync -a --delete sub/ ./",
        "python3 -c 'import os; os.remove(\"data.txt\")'",
        "mv sub/server.pem data.txt",
    ],
}


@pytest.mark.parametrize("capability", sorted(BY_CAPABILITY))
@pytest.mark.parametrize("where", ["user", "untrusted-project"])
@pytest.mark.parametrize("mode", MODES)
async def test_what_a_deny_rule_names_does_not_run_in_any_spelling(
    tmp_path: Path, kernel: str, mode: str, where: str, capability: str
) -> None:
    home, project = world(tmp_path, where)
    commands = BY_CAPABILITY[capability]
    results = await run_commands(project, home, commands, mode)
    assert [r.behavior for r in results] == ["deny"] * len(commands), [r.source for r in results]
    assert not any(SECRET in r.text for r in results)
    assert (project / "data.txt").read_text() == "keep me\n"
    assert (project / "untracked.txt").exists()


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
async def test_the_users_grant_still_runs_beside_the_deny_rules(
    tmp_path: Path, kernel: str, mode: str
) -> None:
    home, project = world(tmp_path, "user")
    commands = [
        "cat data.txt",
        "git status --short",
        "touch out.txt",
        "mkdir -p build && ls",
        "npm --version || true",
    ]
    results = await run_commands(project, home, commands, mode)
    assert [r.behavior for r in results] == ["allow"] * len(commands), [r.source for r in results]
    assert "keep me" in results[0].text and (project / "out.txt").exists()


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
async def test_the_file_tools_keep_the_one_secret_list_when_home_is_a_working_directory(
    tmp_path: Path, mode: str
) -> None:
    """~/.npmrc, ~/.config/gh, ~/.vault-token and ~/.kube are secrets for Read, Grep and Glob as they are for
    the kernel, also when the home itself is the working directory."""
    home = tmp_path / "home"
    for rel, text in {
        ".npmrc": "//registry.npmjs.org/:_authToken=NPM-SECRET\n",
        ".config/gh/hosts.yml": "oauth_token: GH-SECRET\n",
        ".vault-token": "VAULT-SECRET\n",
        ".kube/cache/token": "KUBE-SECRET\n",
    }.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    calls = [
        ("Read", {"file_path": str(home / ".npmrc")}),
        ("Read", {"file_path": str(home / ".config/gh/hosts.yml")}),
        ("Read", {"file_path": str(home / ".vault-token")}),
        ("Read", {"file_path": str(home / ".kube/cache/token")}),
        ("Grep", {"pattern": "SECRET", "path": str(home / ".kube")}),
    ]
    results = await run_calls(home, home, calls, permission_mode=mode)
    expected = "allow" if mode == "bypassPermissions" else "deny"
    assert [r.behavior for r in results] == [expected] * len(calls)
    if mode != "bypassPermissions":
        assert not any("SECRET" in r.text for r in results)


@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk", "acceptEdits"])
async def test_outside_reads_and_the_environment_without_a_rule_never_run(
    tmp_path: Path, kernel: str, mode: str
) -> None:
    """What the kernel's allowlists hide is also what the analyser refuses on the fast paths, so without
    bubblewrap (the weaker case) these still do not run: the rest of the home, another project, and the
    environment's keys and tokens."""
    home, project = make_project(tmp_path)
    (home / "notes.txt").write_text("HOME-NOTES\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.txt").write_text("OTHER-PROJECT\n")
    commands = [
        f"cat {home}/notes.txt",
        "cat ../other/x.txt",
        "ls ../other",
        "echo ../other/*",
        "printenv FOO_TOKEN",
        "echo $ANTHROPIC_API_KEY",
        "env",
    ]
    results = await run_commands(project, home, commands, mode, extra_env={"FOO_TOKEN": "tok-value"})
    assert [r.behavior for r in results] == ["deny"] * len(commands), [r.source for r in results]
    text = " ".join(r.text for r in results)
    for leaked in ("HOME-NOTES", "OTHER-PROJECT", "x.txt", "tok-value", "sk-test"):
        assert leaked not in text


@pytest.mark.parametrize("command", ["paste .env", "unlink data.txt", "git clean -fdx"])
def test_auto_mode_asks_no_classifier_about_what_a_deny_rule_names(
    yoke: Any, project: Path, home: Path, command: str
) -> None:
    """In auto mode the capability stage comes before the classifier: a classifier that would allow
    everything is never asked, and the call does not run (headless: an ask is a denial)."""
    from tests.conftest import anthropic_env

    from yoke.testing import ScriptedServer

    (project / ".env").write_text(f"TOKEN={SECRET}\n")
    (project / "data.txt").write_text("keep me\n")
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": DENY}}))
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": command}}
    turns = [
        {"content": [call]},
        {"content": [{"type": "text", "text": "ALLOW"}]},
        {"content": [{"type": "text", "text": "done"}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "go", "--permission-mode", "auto", "--output-format", "json", env=anthropic_env(srv))
        bodies = [r.body for r in srv.requests]
    assert run.code == 0, run.stderr
    result = json.loads(run.stdout)
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"]
    assert len(bodies) == 2  # the agent twice, the classifier never
    assert SECRET not in json.dumps(bodies) and (project / "data.txt").read_text() == "keep me\n"
