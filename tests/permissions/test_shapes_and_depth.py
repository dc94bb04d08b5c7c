"""Issue 38, part 2: read-only shapes that read more than judged, and protected names at every depth.

By rule, not by case: a glob reads the folders it lists whatever command it is given to (`echo`, `printf`,
`type`); a recursive listing (`ls -R`, `du`, `tree`) reads the folders below its operands, through the links
it follows (`-L`); a copy that follows links (`cp -rL`) reads what they lead to. Protected names are pinned
read-only by the kernel at every depth where they exist, and `.claude/worktrees` (not protected) stays
writable under acceptEdits.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.permissions.sessions import make_project, run_commands

from permissions.helpers import TOOLS, make_world
from yoke.permissions import bash_analysis, bash_readonly

MODES = ["default", "plan", "dontAsk", "acceptEdits"]
REFUSED = {"default": "ask", "plan": "ask", "dontAsk": "deny", "acceptEdits": "ask"}  # headless: ask = deny
PYTHON = os.path.realpath(sys.executable)

READS_MORE = [
    "ls -RL",
    "ls -R --dereference other_link/..",
    "du -aL",
    "echo {O}/*",
    "echo {H}/.ssh/*",
    "printf '%s\\n' {O}/*",
    "type {O}/*",
    "echo other_link/*",
]
STILL_READ_ONLY = ["ls -R", "du -a", "du -sh", "tree", "echo *", "echo src/*", "ls src/*.py", "ls -la"]


async def _decide(tmp_path: Path, command: str, mode: str) -> str:
    world = make_world(tmp_path)
    command = command.replace("{O}", str(world.other)).replace("{H}", str(world.home))
    gate = world.gate(allow=[], deny=[], ask=[], mode=mode)
    decision = await gate.decide(TOOLS["Bash"], {"command": command}, world.ctx())
    return decision.behavior


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", READS_MORE)
async def test_shapes_that_list_outside_or_through_links_are_not_read_only(
    tmp_path: Path, command: str, mode: str
) -> None:
    assert await _decide(tmp_path, command, mode) == REFUSED[mode]


@pytest.mark.parametrize("command", STILL_READ_ONLY)
async def test_listings_inside_the_project_stay_read_only(tmp_path: Path, command: str) -> None:
    assert await _decide(tmp_path, command, "default") == "allow"


async def test_a_copy_following_links_out_of_the_project_asks(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    (world.project / "src" / "out").symlink_to(world.home / ".ssh")
    gate = world.gate(allow=[], deny=[], ask=[], mode="acceptEdits")
    verdicts = []
    for command in ("cp -rL src build", "cp -r --dereference src build", "cp -r src build"):
        decision = await gate.decide(TOOLS["Bash"], {"command": command}, world.ctx())
        verdicts.append(decision.behavior)
    assert verdicts == ["ask", "ask", "allow"]  # without -L the link is copied as a link


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
async def test_protected_names_at_every_depth_are_pinned_and_worktrees_stay_writable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bash_readonly, "MISLABELLED_READ_ONLY", frozenset({PYTHON}))
    bash_analysis.analyze.cache_clear()
    home, project = make_project(tmp_path)
    (project / ".claude").mkdir()
    for folder in ("pkg/.claude", "pkg/.husky", "pkg/.vscode", "pkg/lib/.git/hooks", "a/b/.claude"):
        (project / folder).mkdir(parents=True)
    plant = (
        "import sys\nfor p in sys.argv[1:]:\n try:\n  open(p, 'a').write('x'); print('WROTE', p)\n"
        " except OSError: print('REFUSED', p)"
    )
    targets = [
        "pkg/.claude/settings.json",
        "pkg/.husky/pre-commit",
        "pkg/.vscode/tasks.json",
        "pkg/lib/.git/hooks/pre-commit",
        "a/b/.claude/x",
        "pkg/ok.txt",
    ]
    commands = [
        f'mkdir m && {PYTHON} -I -S -c "{plant}" ' + " ".join(targets),
        "mkdir -p .claude/worktrees/feature",
    ]
    results = await run_commands(project, home, commands, "acceptEdits")
    bash_analysis.analyze.cache_clear()
    assert [r.behavior for r in results] == ["allow", "allow"]
    assert results[0].text.count("REFUSED") == 5 and "WROTE pkg/ok.txt" in results[0].text
    for target in targets[:-1]:
        assert not (project / target).exists(), target
    assert (project / ".claude" / "worktrees" / "feature").is_dir()  # the false denial is gone
    assert not (project / ".claude" / "settings.json").exists()


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                   capture_output=True)  # fmt: skip


def _repo_world(tmp_path: Path, committed_secret: bool):  # type: ignore[no-untyped-def]
    world = make_world(tmp_path)
    shutil.rmtree(world.project / ".git")
    _git(world.project, "init", "-q")
    _git(world.project, "add", "src", "README.md")
    if committed_secret:  # committed once, removed since: still in the history
        _git(world.project, "add", "-f", ".env")
    _git(world.project, "commit", "-qm", "one")
    if committed_secret:
        _git(world.project, "rm", "-q", "--cached", ".env")
    _git(world.project, "commit", "-qm", "two", "--allow-empty")
    return world


CONTENT = ["git show HEAD~1", "git log -p", "git grep TOKEN HEAD~1", "git log -L1,1:src/app.py",
           "git cat-file -p HEAD~1:src/app.py", "git log -S TOKEN --oneline"]  # fmt: skip
NO_CONTENT = [
    "git log --oneline",
    "git status",
    "git diff --stat HEAD~1",
    "git ls-files",
    "git cat-file -t HEAD",
]


@pytest.mark.parametrize("mode", ["default", "dontAsk"])
async def test_git_printing_history_is_judged_by_every_path_of_the_history(tmp_path: Path, mode: str) -> None:
    """A secret committed once and removed is printed by `git show <rev>`, `git log -p`, `git grep TOKEN
    <rev>`, `git log -L` or an object id: these read every path of the history, names alone do not."""
    for committed, root in ((False, tmp_path / "clean"), (True, tmp_path / "leaky")):
        world = _repo_world(root, committed)
        gate = world.gate(allow=[], deny=[], ask=[], mode=mode)
        for command in [*CONTENT, *NO_CONTENT]:
            decision = await gate.decide(TOOLS["Bash"], {"command": command}, world.ctx())
            expected = "allow" if command in NO_CONTENT or not committed else REFUSED[mode]
            assert decision.behavior == expected, (committed, command, decision.source)


async def test_git_blame_reading_a_named_file_and_submodules(tmp_path: Path) -> None:
    world = _repo_world(tmp_path / "w", False)
    gate = world.gate(allow=[], deny=[], ask=[], mode="default")

    async def decide(command: str) -> str:
        return (await gate.decide(TOOLS["Bash"], {"command": command}, world.ctx())).behavior

    assert await decide("git blame -S.env src/app.py") == "ask"  # -S names a revisions file blame reads
    assert await decide("git blame -S .env src/app.py") == "ask"
    assert await decide("git log -S.env --oneline") == "allow"  # here -S is a search string
    assert await decide("git blame src/app.py") == "allow"
    _git(world.project, "config", "blame.ignoreRevsFile", str(world.home / ".ssh" / "id_rsa"))
    assert await decide("git blame src/app.py") == "ask"  # the configuration names a file blame reads
    _git(world.project, "config", "--unset", "blame.ignoreRevsFile")
    lib = tmp_path / "lib"
    lib.mkdir()
    _git(lib, "init", "-q")
    _git(lib, "commit", "-qm", "x", "--allow-empty")
    _git(world.project, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    assert await decide("git status") == "allow"  # a submodule's own core.worktree is no program


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
async def test_a_push_deny_holds_in_every_spelling_under_a_bash_grant(tmp_path: Path, mode: str) -> None:
    world = make_world(tmp_path)
    gate = world.gate(allow=["Bash"], deny=["Bash(git push:*)"], ask=[], mode=mode)
    gate.bypass_available = True
    gate.set_mode(mode)
    verdicts = {}
    for command in ("git -c core.x=y push origin main", "git send-pack origin main",
                    "git subtree push -P x origin main", "git pull", "git status"):  # fmt: skip
        verdicts[command] = (await gate.decide(TOOLS["Bash"], {"command": command}, world.ctx())).behavior
    assert list(verdicts.values()) == ["ask", "ask", "ask", "allow", "allow"], verdicts


async def test_a_copy_through_links_writes_the_protected_names_it_meets(tmp_path: Path) -> None:
    """`cp -rL` copies what a link in the tree leads to: a `.claude` met there lands in the destination."""
    world = make_world(tmp_path)
    template = world.project / "tmpl" / "inner" / ".claude"
    template.mkdir(parents=True)
    (template / "settings.json").write_text("{}")
    (world.project / "src" / "via").symlink_to(world.project / "tmpl" / "inner")
    gate = world.gate(allow=[], deny=[], ask=[], mode="acceptEdits")
    verdicts = [
        (await gate.decide(TOOLS["Bash"], {"command": command}, world.ctx())).behavior
        for command in ("cp -rL src build", "cp -r src build")
    ]
    assert verdicts == ["ask", "allow"]


async def test_a_fetcher_deny_names_fetching(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    gate = world.gate(allow=["Bash"], deny=["Bash(curl:*)"], ask=[], mode="default")
    verdicts = [
        (await gate.decide(TOOLS["Bash"], {"command": command}, world.ctx())).behavior
        for command in (
            "wget http://x",
            "nc x 80",
            "python3 -c 'import urllib.request'",
            "curl x",
            "npm test",
        )
    ]
    assert verdicts == ["ask", "ask", "ask", "deny", "allow"]


async def test_plan_mode_still_denies_what_a_capability_would_only_ask(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    gate = world.gate(allow=["Bash"], deny=["Bash(rm:*)"], ask=[], mode="plan")
    decision = await gate.decide(TOOLS["Bash"], {"command": "unlink README.md"}, world.ctx())
    assert (decision.behavior, decision.source) == ("deny", "mode:plan")
