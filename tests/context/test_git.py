"""Git context against real repositories: the branch, the main branch and the status, in the states a
repository can be in (unborn, detached, cloned with origin's HEAD, local with master or trunk)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.memory.helpers import git

from yoke.context.git import format_git, git_context


def repo(root: Path, branch: str = "main", commits: int = 2) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", branch)
    for i in range(commits):
        (root / f"f{i}.txt").write_text(str(i))
        git(root, "add", f"f{i}.txt")
        git(root, "commit", "-q", "-m", f"change {i}")
    return root


async def test_unborn_branch_has_its_name_and_no_commits(tmp_path):
    root = repo(tmp_path / "r", branch="trunk", commits=0)
    (root / "new.txt").write_text("x")
    ctx = await git_context(root)
    assert ctx is not None
    assert (ctx.root, ctx.branch, ctx.recent_commits) == (str(root), "trunk", "")
    assert ctx.status == "?? new.txt"
    assert ctx.main_branch == ""  # no branch exists yet, not even the current one


async def test_detached_head_and_a_local_master(tmp_path):
    root = repo(tmp_path / "r", branch="master")
    git(root, "checkout", "-q", "--detach", "HEAD")
    (root / "f0.txt").write_text("changed")
    ctx = await git_context(root)
    assert ctx is not None
    assert ctx.branch == "(detached HEAD)" and ctx.main_branch == "master"
    assert ctx.status == " M f0.txt"
    assert ctx.recent_commits.splitlines()[0].endswith("change 1")


async def test_main_is_preferred_to_master_and_trunk(tmp_path):
    root = repo(tmp_path / "r", branch="trunk")
    git(root, "branch", "master")
    git(root, "branch", "main")
    git(root, "checkout", "-q", "-b", "feature/x")
    ctx = await git_context(root)
    assert ctx is not None and (ctx.branch, ctx.main_branch) == ("feature/x", "main")
    assert ctx.status == ""
    assert "Status:\n(clean)" in format_git(ctx)


async def test_a_clone_takes_origins_default_branch(tmp_path):
    upstream = repo(tmp_path / "up", branch="develop")
    git(upstream, "branch", "main")  # a local `main` in the clone would not be origin's default
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "main", str(upstream), str(clone))
    git(clone, "remote", "set-head", "origin", "develop")
    ctx = await git_context(clone / ".")
    assert ctx is not None
    assert (ctx.branch, ctx.main_branch) == ("main", "develop")  # header: "## main...origin/main"


async def test_a_subfolder_reports_the_repository_root(tmp_path):
    root = repo(tmp_path / "r")
    sub = root / "a" / "b"
    sub.mkdir(parents=True)
    ctx = await git_context(sub)
    assert ctx is not None and ctx.root == str(root) and ctx.branch == "main"


async def test_the_location_gives_auto_memory_the_directory_git_itself_would(tmp_path):
    from yoke.context.git import GitQuery
    from yoke.memory.auto import default_directory

    root = repo(tmp_path / "r")
    (root / "pkg").mkdir()
    git(root, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    env = {"HOME": str(tmp_path / "home")}
    for cwd in (root, root / "pkg", tmp_path / "side"):
        location = await GitQuery(cwd).location()
        assert location is not None and location[0] == str(root if cwd != tmp_path / "side" else cwd)
        asked_here = default_directory(cwd, env, tmp_path / "home")
        assert default_directory(cwd, env, tmp_path / "home", location[1]) == asked_here
        assert asked_here.parent.name == re.sub(r"[^a-zA-Z0-9]", "-", str(root.resolve()))
    assert await GitQuery(tmp_path).location() is None  # outside: no process, no answer


async def test_the_repositorys_own_programs_never_run_whatever_their_driver_is_called(tmp_path):
    """A cloned repository names a clean/smudge filter, a textconv driver and a credential helper of its
    own; the start-up context (status, log, …) runs none of them: every key that names a program is blanked
    by configuration (`program_overrides`), not by a list of known driver names."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    marker = tmp_path / "ran"
    (repo / ".gitattributes").write_text("*.txt filter=zq9 diff=zq9\n")
    (repo / "a.txt").write_text("hi\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "x")
    for key in ("filter.zq9.clean", "filter.zq9.smudge", "diff.zq9.textconv", "credential.helper"):
        git(repo, "config", key, f"touch {marker}; cat")
    (repo / "a.txt").write_text("changed\n")  # status must look at the content now
    ctx = await git_context(repo)
    assert ctx is not None and "a.txt" in ctx.status
    assert not marker.exists()


def _logged_git(tmp_path, monkeypatch):
    import yoke.gitsafe

    log = tmp_path / "calls"
    wrapper = tmp_path / "git"
    real = yoke.gitsafe._git_binary()
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setattr(yoke.gitsafe, "_git_binary", lambda: str(wrapper))

    def commands() -> list[str]:
        calls = log.read_text().splitlines() if log.exists() else []
        log.unlink(missing_ok=True)
        return sorted(c.split(" -c ")[-1].split(" ", 1)[1].split(" ")[0] for c in calls)

    return commands


async def test_the_configuration_is_asked_once_while_its_files_stay_as_they_were(tmp_path, monkeypatch):
    """A long-lived process opening sessions in one repository: the second asks git three questions, not
    four; a changed configuration (here: a filter program added) is read again, and its program blanked."""
    import yoke.context.git as context_git

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(context_git, "_SETTLED_S", -1.0)  # the files were just written: settle them now
    monkeypatch.setattr(context_git, "_CONFIGS", {})
    root = repo(tmp_path / "r")
    (root / ".gitattributes").write_text("*.txt filter=zq9\n")
    commands = _logged_git(tmp_path, monkeypatch)
    assert (await git_context(root)) is not None
    assert commands() == ["config", "log", "rev-parse", "status"]
    assert (await git_context(root)) is not None
    assert commands() == ["log", "rev-parse", "status"]
    marker = tmp_path / "ran"
    git(root, "config", "filter.zq9.clean", f"touch {marker}; cat")
    (root / "f0.txt").write_text("changed\n")
    ctx = await git_context(root)
    assert ctx is not None and "f0.txt" in ctx.status and not marker.exists()
    assert commands() == ["config", "log", "rev-parse", "status"]
    git(root, "config", "include.path", str(tmp_path / "extra"))  # includes: never cached
    for _ in range(2):
        assert (await git_context(root)) is not None
        assert "config" in commands()


async def test_four_git_processes_and_only_the_status_waits(tmp_path, monkeypatch):
    """The context costs four processes (not six): the configuration gives the user's name, rev-parse
    the main branch with the location; only the status waits for the configuration's overrides."""
    root = repo(tmp_path / "r", branch="master")
    git(root, "config", "user.name", "Ada Q")
    commands = _logged_git(tmp_path, monkeypatch)
    ctx = await git_context(root)
    assert ctx is not None and (ctx.user_name, ctx.main_branch, ctx.branch) == ("Ada Q", "master", "master")
    assert commands() == ["config", "log", "rev-parse", "status"]


async def test_the_next_process_in_the_repository_asks_three_questions(tmp_path, monkeypatch):
    """The overrides and the user's name are kept on disk by the configuration files' state: a new process
    (an empty in-process cache) asks git three questions; a changed configuration is asked again, its new
    program blanked; what is stored holds nothing of the configuration but those two."""
    import yoke.context.git as context_git

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("YOKE_HOME", str(tmp_path / "home" / ".yoke"))
    monkeypatch.setattr(context_git, "_SETTLED_S", -1.0)
    root = repo(tmp_path / "r")
    git(root, "config", "user.name", "Ada Q")
    git(root, "config", "http.extraHeader", "Authorization: Bearer s3cret")
    (root / ".gitattributes").write_text("*.txt filter=zq9\n")
    commands = _logged_git(tmp_path, monkeypatch)
    monkeypatch.setattr(context_git, "_CONFIGS", {})
    assert (await git_context(root)) is not None
    assert commands() == ["config", "log", "rev-parse", "status"]
    monkeypatch.setattr(context_git, "_CONFIGS", {})  # the next `yoke -p`
    ctx = await git_context(root)
    assert ctx is not None and ctx.user_name == "Ada Q"
    assert commands() == ["log", "rev-parse", "status"]
    stored = list((tmp_path / "home" / ".yoke" / "cache" / "git").iterdir())
    assert len(stored) == 1 and "s3cret" not in stored[0].read_text()
    marker = tmp_path / "ran"
    git(root, "config", "filter.zq9.clean", f"touch {marker}; cat")
    (root / "f0.txt").write_text("changed\n")
    monkeypatch.setattr(context_git, "_CONFIGS", {})
    ctx = await git_context(root)
    assert ctx is not None and "f0.txt" in ctx.status and not marker.exists()
    assert commands() == ["config", "log", "rev-parse", "status"]


async def test_a_configuration_written_just_now_is_not_cached(tmp_path, monkeypatch):
    """A file changed within the last moments may change again without its timestamp moving: asked again."""
    import yoke.context.git as context_git

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(context_git, "_CONFIGS", {})
    root = repo(tmp_path / "r")
    commands = _logged_git(tmp_path, monkeypatch)
    for _ in range(2):
        assert (await git_context(root)) is not None
        assert "config" in commands()
