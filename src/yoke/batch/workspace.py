"""A fresh workspace per attempt: a git worktree of the task's repository (at `commit`, default HEAD), or a
copy of a plain folder; never the original. The final diff is taken against the state after `setup`."""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
from pathlib import Path

from yoke import spawn
from yoke.batch.tasks import is_git_url
from yoke.gitsafe import hardened_git_argv, hardened_git_env

GIT_TIMEOUT_S = 600


class WorkspaceError(RuntimeError):
    """The workspace could not be made; the message says why (one line)."""


class Workspace:
    def __init__(self, path: Path, git: list[str]) -> None:
        self.path = path
        self.git = git  # the git argv that sees this workspace (its own worktree, or an outside git dir)

    def snapshot(self) -> str:
        """The tree of everything in the workspace now (written to the object store, no commit made)."""
        _git([*self.git, "add", "-A"], self.path)
        return _git([*self.git, "write-tree"], self.path).strip()

    def diff(self, base: str) -> str:
        _git([*self.git, "add", "-A"], self.path)
        return _git(
            [*self.git, "diff", "--cached", "--binary", "--no-ext-diff", "--no-textconv", base], self.path
        )


def make_workspace(repo: str, commit: str | None, folder: Path, cache: Path) -> Workspace:
    """A workspace for one attempt at `folder` (removed first if a crashed try left it)."""
    retried = folder.exists()
    if retried:
        shutil.rmtree(folder)
    if is_git_url(repo):
        bare = _cached_clone(repo, commit or "HEAD", cache)
        return _worktree(bare, commit or "HEAD", folder, retried, cache)
    source = Path(repo)
    if (source / ".git").exists():
        return _worktree(source, commit or "HEAD", folder, retried, cache)
    if commit:
        raise WorkspaceError(f"{repo} is not a git repository, so 'commit' cannot be checked out")
    shutil.copytree(source, folder, symlinks=True)
    outside = folder.parent / (folder.name + ".baseline.git")
    if outside.exists():
        shutil.rmtree(outside)
    _git(hardened_git_argv("init", "-q", "--bare", str(outside)), folder.parent)
    return Workspace(folder, hardened_git_argv(f"--git-dir={outside}", f"--work-tree={folder}"))


def _worktree(repo: Path, commit: str, folder: Path, retried: bool, cache: Path) -> Workspace:
    # A bare clone is named explicitly (safe.bareRepository=explicit); a working repository by its folder.
    where = ["-C", str(repo)] if (repo / ".git").exists() else [f"--git-dir={repo}"]
    # One `worktree add`/`prune` per repository at a time, across the workers: every attempt's folder is
    # named `workspace`, so concurrent adds race for the same administrative name, and a prune removes
    # the entry of an add still under way.
    cache.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha1(str(repo.resolve()).encode()).hexdigest()[:16]
    with open(cache / f"{key}.worktrees.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if retried:  # the removed folder is still registered as a worktree
            _git(hardened_git_argv(*where, "worktree", "prune"), repo)
        _git(hardened_git_argv(*where, "worktree", "add", "-q", "--detach", str(folder), commit), repo)
    return Workspace(folder, hardened_git_argv("-C", str(folder)))


def _cached_clone(url: str, commit: str, cache: Path) -> Path:
    """One bare clone per URL, shared by the attempts on this machine (made under a lock). Cloning and
    fetching use the user's own git set-up (credentials, ssh, protocols), as `git clone` would: the task
    file asked for this URL, and a clone takes no configuration or hooks from the remote."""
    cache.mkdir(parents=True, exist_ok=True)
    bare = cache / (hashlib.sha1(url.encode()).hexdigest()[:16] + ".git")
    with open(cache / (bare.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not bare.exists():
            _git(["git", "clone", "-q", "--bare", url, str(bare)], cache, user_env=True)
        probe = spawn.run(
            hardened_git_argv("--git-dir", str(bare), "cat-file", "-e", f"{commit}^{{commit}}"),
            confine=None,  # Yoke's own hardened git
            env=hardened_git_env(),
        )
        if probe.returncode != 0:
            _git(["git", "--git-dir", str(bare), "fetch", "-q", "origin", commit], cache, user_env=True)
    return bare


def _git(argv: list[str], cwd: Path, user_env: bool = False) -> str:
    env = None if user_env else hardened_git_env()
    try:
        # the task file's clone and fetch, with the user's git set-up as `git clone` would (see above)
        done = spawn.run(argv, confine=None, cwd=cwd, env=env, text=True, timeout=GIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise WorkspaceError(f"git {argv[-1]} took over {GIT_TIMEOUT_S} s") from None
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise WorkspaceError(f"git failed: {detail[-1] if detail else done.returncode}")
    return done.stdout
