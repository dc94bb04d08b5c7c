"""Issue 38, part 2: what a confined command may see. Reads are an allowlist (the working directories and the
system's toolchain paths, not the rest of the home, other projects or outside folders), the environment is an
allowlist (no API keys, tokens or secrets), and what deny rules name, wildcards included, is hidden or pinned
by the kernel.

The analyser is made to mislabel a Python program as read-only (its test hook), so that only the kernel stands
between it and the files; the session is the real one (gate, executor, Bash tool, bubblewrap), headless, in an
untrusted folder (no trust is recorded), in each mode whose fast paths confine.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.permissions.sessions import make_project, run_calls, run_commands

from yoke.permissions import bash_analysis, bash_readonly

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
PYTHON = os.path.realpath(sys.executable)
MODES = ["default", "plan", "dontAsk", "acceptEdits"]
# Prints what each named file holds (or that it cannot be opened), then which variables it was given.
PROBE = (
    "import os,sys\nfor p in sys.argv[1:]:\n try: print('READ', p, open(p).read().strip())\n"
    " except OSError: print('UNSEEN', p)\n"
    "print('ENV', sorted(k for k in os.environ if k in ('ANTHROPIC_API_KEY','FOO_TOKEN','MY_SECRET','PATH','HOME')))"
)


@pytest.fixture
def mislabel(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(bash_readonly, "MISLABELLED_READ_ONLY", frozenset({"touch", PYTHON}))
    bash_analysis.analyze.cache_clear()
    yield
    bash_analysis.analyze.cache_clear()


def probe(*paths: object) -> str:
    return f'{PYTHON} -I -S -c "{PROBE}" ' + " ".join(str(p) for p in paths)


@pytest.mark.parametrize("mode", MODES)
async def test_a_confined_command_sees_the_project_and_the_system_only(
    tmp_path: Path, mislabel: None, mode: str
) -> None:
    home, project = make_project(tmp_path)
    (home / "notes.txt").write_text("HOME-NOTES\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.txt").write_text("OTHER-PROJECT\n")
    (project / "out_link").symlink_to(tmp_path / "other")
    results = await run_commands(
        project,
        home,
        [probe("data.txt", home / "notes.txt", tmp_path / "other/x.txt", "out_link/x.txt", "/etc/hostname")],
        mode,
        extra_env={"FOO_TOKEN": "tok-value", "MY_SECRET": "s3"},
    )
    assert results[0].source == "read-only"  # the analyser was fooled: the kernel is all that holds
    text = results[0].text
    assert "READ data.txt keep me" in text
    for hidden in ("HOME-NOTES", "OTHER-PROJECT"):
        assert hidden not in text
    assert text.count("UNSEEN") == 3 and "READ /etc/hostname" in text  # the system stays visible
    assert "ENV ['HOME', 'PATH']" in text  # no API key, no token, no secret
    assert "tok-value" not in text and "sk-test" not in text


async def test_accept_edits_writes_the_project_but_sees_nothing_else(tmp_path: Path, mislabel: None) -> None:
    home, project = make_project(tmp_path)
    (home / "notes.txt").write_text("HOME-NOTES\n")
    results = await run_commands(
        project, home, [f"mkdir made && {probe('data.txt', home / 'notes.txt')}"], "acceptEdits"
    )
    assert results[0].source == "mode:acceptEdits,read-only"
    assert "READ data.txt keep me" in results[0].text and "HOME-NOTES" not in results[0].text
    assert (project / "made").is_dir()


@pytest.mark.parametrize("mode", MODES)
async def test_wildcard_deny_rules_are_hidden_and_pinned_by_the_kernel(
    tmp_path: Path, mislabel: None, mode: str
) -> None:
    """`Read(**/*.tfvars)` hides every match at any depth; `Edit(**/*.lock)` keeps every match read-only."""
    home, project = make_project(tmp_path)
    (project / "infra" / "prod").mkdir(parents=True)
    (project / "infra" / "prod" / "main.tfvars").write_text("db_password = TFVARS-SECRET\n")
    (project / "deps.lock").write_text("locked\n")
    (home / ".claude").mkdir()
    deny = ["Read(**/*.tfvars)", "Edit(**/*.lock)"]
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": deny}}))
    plant = f"{PYTHON} -I -S -c \"open('deps.lock', 'a').write('x')\""
    commands = [probe("infra/prod/main.tfvars", "data.txt")]
    if mode == "acceptEdits":
        commands.append(f"mkdir m && {plant}")
    results = await run_commands(project, home, commands, mode)
    assert "TFVARS-SECRET" not in results[0].text and "READ data.txt keep me" in results[0].text
    assert (project / "deps.lock").read_text() == "locked\n"
    if mode == "acceptEdits":
        assert results[1].behavior == "allow" and "Read-only file system" in results[1].text


async def test_block_reads_outside_working_directories(tmp_path: Path) -> None:
    """Claude Code's `permissions.blockReadsOutsideWorkingDirectories`: the file tools are refused outside
    the working directories even with an allow rule, and a Bash line naming a path outside asks in every
    mode, bypassPermissions included."""
    home, project = make_project(tmp_path)
    (tmp_path / "outside.txt").write_text("OUTSIDE\n")
    (home / ".claude").mkdir()
    settings = {
        "permissions": {"blockReadsOutsideWorkingDirectories": True, "allow": ["Read", "Bash(cat:*)"]}
    }
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    outside = str(tmp_path / "outside.txt")
    calls = [
        ("Read", {"file_path": outside}),
        ("Bash", {"command": f"cat {outside}"}),
        ("Bash", {"command": "cat data.txt"}),
    ]
    for mode in ("default", "bypassPermissions"):
        results = await run_calls(project, home, calls, permission_mode=mode)
        assert [r.behavior for r in results] == ["deny", "deny", "allow"], mode
        assert not any("OUTSIDE" in r.text for r in results)
        assert "keep me" in results[2].text


async def test_block_reads_outside_confines_the_sandbox_setting_too(tmp_path: Path) -> None:
    """With the setting, `sandbox.enabled` commands (auto-allowed by the sandbox) see the allowlist too: a
    program that builds the path at run time finds nothing of the home. (The home is outside /tmp here,
    which the sandbox replaces whatever the setting.)"""
    _, project = make_project(tmp_path)
    home = Path("/var/tmp") / f"yoke-home-{uuid.uuid4().hex}"
    try:
        (home / ".claude").mkdir(parents=True)
        (home / "notes.txt").write_text("HOME-NOTES\n")
        code = "import os; print(open(os.environ['HOME'] + chr(47) + 'notes.txt').read())"
        seen = []
        for block in (True, False):
            settings = {
                "permissions": {"blockReadsOutsideWorkingDirectories": block},
                "sandbox": {"enabled": True},
            }
            (home / ".claude" / "settings.json").write_text(json.dumps(settings))
            results = await run_commands(project, home, [f'python3 -c "{code}"', "cat data.txt"], "default")
            assert [r.source for r in results] == ["sandbox:auto-allow", "read-only"]
            assert "keep me" in results[1].text
            seen.append("HOME-NOTES" in results[0].text)
        assert seen == [
            False,
            True,
        ]  # hidden with the setting; without it the sandbox reads what is not secret
    finally:
        shutil.rmtree(home, ignore_errors=True)


async def test_block_file_tool_reads_counts_only_from_the_launch_settings(tmp_path: Path) -> None:
    """Claude Code's internal `blockFileToolReadsOutsideWorkingDirectories`: read only from `--settings`;
    it refuses the file tools outside the working directories, not Bash."""
    home, project = make_project(tmp_path)
    (tmp_path / "outside.txt").write_text("OUTSIDE\n")
    setting = {"permissions": {"blockFileToolReadsOutsideWorkingDirectories": True, "allow": ["Read"]}}
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps(setting))
    calls = [("Read", {"file_path": str(tmp_path / "outside.txt")})]
    user_level = await run_calls(project, home, calls, permission_mode="default")
    assert user_level[0].behavior == "allow"  # ignored in user settings
    (home / ".claude" / "settings.json").write_text("{}")
    launched = await run_calls(project, home, calls, permission_mode="default", settings=json.dumps(setting))
    assert launched[0].behavior == "deny" and "OUTSIDE" not in launched[0].text


@pytest.mark.parametrize("kind", ["read-only", "workdirs"])
def test_a_link_swapped_after_the_decision_leads_nowhere(tmp_path: Path, kind: str) -> None:
    """The race of a swap loop, made certain: the confined argv is built (the call was judged while `l`
    pointed inside), then `l` is swapped to a file outside (not under /tmp, which the sandbox replaces
    anyway) and to the working directory's parent: the run finds nothing there."""
    import subprocess

    from yoke.sandbox.confine import READ_ONLY, WORKDIRS, Confinement, confine_command
    from yoke.sandbox.settings import SandboxSettings

    home, project = make_project(tmp_path)
    outside = Path("/var/tmp") / f"yoke-outside-{uuid.uuid4().hex}"
    outside.mkdir()
    try:
        (outside / "notes.txt").write_text("OUTSIDE-NOTES\n")
        (project / "l").symlink_to(project / "data.txt")
        (project / "d").symlink_to(project / "sub")
        confinement = Confinement(READ_ONLY if kind == "read-only" else WORKDIRS)
        argv = confine_command(
            ["sh", "-c", "cat l; ls d"], confinement, SandboxSettings(base_dir=project), project, [project],
            home=home,
        )  # fmt: skip
        (project / "l").unlink()
        (project / "l").symlink_to(outside / "notes.txt")
        (project / "d").unlink()
        (project / "d").symlink_to(outside)
        result = subprocess.run(argv, capture_output=True, text=True, timeout=30, cwd=project)
    finally:
        shutil.rmtree(outside, ignore_errors=True)
    assert "OUTSIDE-NOTES" not in result.stdout and "notes.txt" not in result.stdout
    assert "No such file" in result.stderr


@pytest.mark.parametrize("kind", ["read-only", "workdirs"])
def test_a_folder_a_deny_rule_covers_is_hidden_whole_and_the_command_still_starts(
    tmp_path: Path, kind: str
) -> None:
    """`Read(src/**)` covers a tree: its folders become empty and nothing below them is mounted over (bwrap
    could not create mount points inside an empty read-only folder, and the command would not start)."""
    import subprocess

    from yoke.permissions.patterns import rule_paths
    from yoke.permissions.rules import parse_rules
    from yoke.sandbox.confine import READ_ONLY, WORKDIRS, Confinement, confine_command
    from yoke.sandbox.settings import SandboxSettings

    home, project = make_project(tmp_path)
    (project / "src" / "deep").mkdir(parents=True)
    (project / "src" / "a.py").write_text("TREE-SECRET-A\n")
    (project / "src" / "deep" / "b.py").write_text("TREE-SECRET-B\n")
    rules = parse_rules(["Read(src/**)"], "deny", "user", project, "test", [])
    settings = SandboxSettings(base_dir=project, read_denied=rule_paths(rules, project, home))
    confinement = Confinement(READ_ONLY if kind == "read-only" else WORKDIRS)
    argv = confine_command(
        ["sh", "-c", "cat data.txt; cat src/a.py src/deep/b.py"], confinement, settings, project, [project],
        home=home,
    )  # fmt: skip
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30, cwd=project)
    assert "keep me" in result.stdout, result.stderr  # it started
    assert "TREE-SECRET" not in result.stdout
