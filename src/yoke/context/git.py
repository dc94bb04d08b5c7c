"""Git context for the system prompt: branch, main branch, short status, recent commits.

The git commands run concurrently; a folder outside git, a missing git binary or a slow repository all
yield None or partial context, never an error.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from yoke.records import Record

MAX_STATUS_CHARS = 2_000
GIT_TIMEOUT_S = 5.0


class GitContext(Record):
    __slots__ = ("root", "branch", "main_branch", "status", "recent_commits", "user_name")

    def __init__(
        self, root: str, branch: str, main_branch: str, status: str, recent_commits: str, user_name: str = ""
    ) -> None:
        self.root = root
        self.branch = branch
        self.main_branch = main_branch
        self.status = status
        self.recent_commits = recent_commits
        self.user_name = user_name


# Every git process Yoke itself starts runs through `hardened_git`: a repository is the attacker's file, and
# its `.git/config` can name programs git runs on `status` (core.fsmonitor), on output (core.pager,
# diff.external, textconv drivers) or on hooks. These settings and this environment leave git nothing of the
# repository's to run, and a fixed PATH and no system config leave it nothing of a planted environment's.
HARDENED_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "safe.bareRepository=explicit",
    "core.pager=cat",
    "core.untrackedCache=false",
    "diff.external=",
    "protocol.allow=never",
    "credential.helper=",
)
HARDENED_PATH = "/usr/local/bin:/usr/bin:/bin"


def hardened_git_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a git process Yoke starts: no GIT_* or pager variable of the caller's survives
    (GIT_DIR, GIT_CONFIG_*, GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND…), no system config, a fixed PATH."""
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if not k.startswith("GIT_") and k not in ("PAGER", "PATH")}
    env.update(
        {
            "PATH": HARDENED_PATH,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_NO_REPLACE_OBJECTS": "1",
            "LC_ALL": "C",
        }
    )
    return env


def hardened_git_argv(*args: str) -> list[str]:
    """`git` (found on the fixed PATH) with the hardening options, then `args`."""
    import shutil

    binary = shutil.which("git", path=HARDENED_PATH) or "git"
    argv = [binary, "--no-pager", "--no-optional-locks"]
    for setting in HARDENED_CONFIG:
        argv += ["-c", setting]
    return [*argv, *args]


async def hardened_git(cwd: Path, *args: str, timeout_s: float = GIT_TIMEOUT_S) -> str | None:
    """Run one hardened git command; its stdout, or None on any failure (never raises)."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *hardened_git_argv(*args),
            cwd=str(cwd),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=hardened_git_env(),
            start_new_session=True,
        )
    except OSError:
        return None
    try:
        async with asyncio.timeout(timeout_s):
            out, _ = await proc.communicate()
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return None
    if proc.returncode != 0:
        return None
    return out.decode("utf-8", errors="replace").rstrip("\n")


_git = hardened_git


async def _main_branch(cwd: Path) -> str:
    remote_head = await _git(cwd, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if remote_head:
        return remote_head.split("/", 1)[-1]
    for candidate in ("main", "master", "trunk"):
        if await _git(cwd, "rev-parse", "--verify", "--quiet", f"refs/heads/{candidate}") is not None:
            return candidate
    return ""


def inside_repository(cwd: Path) -> bool:
    """Whether git could find a repository from `cwd`: a `.git` (folder or file) in it or a parent. The
    hardened environment leaves git no other way (no GIT_DIR, bare repositories only when named), so outside
    one no process need start."""
    return any(os.path.lexists(os.path.join(folder, ".git")) for folder in (cwd, *cwd.parents))


async def git_context(cwd: Path) -> GitContext | None:
    if not inside_repository(cwd):
        return None
    root, branch, main, status, log, user = await asyncio.gather(
        _git(cwd, "rev-parse", "--show-toplevel"),
        _git(cwd, "branch", "--show-current"),
        _main_branch(cwd),
        _git(cwd, "status", "--short"),
        _git(cwd, "log", "--oneline", "-n", "5"),
        _git(cwd, "config", "user.name"),
    )
    if root is None:
        return None
    status = status or ""
    if len(status) > MAX_STATUS_CHARS:
        status = (
            status[:MAX_STATUS_CHARS]
            + "\n... (status truncated; run `git status` with Bash to see everything)"
        )
    return GitContext(
        root=root,
        branch=branch or "(detached HEAD)",
        main_branch=main,
        status=status,
        recent_commits=log or "",
        user_name=user or "",
    )


def format_git(ctx: GitContext) -> str:
    lines = [
        "# Git",
        "A snapshot taken when the session started; it does not update as you work.",
        f"Repository root: {ctx.root}",
        f"Current branch: {ctx.branch}",
    ]
    if ctx.main_branch:
        lines.append(f"Main branch (the usual target for pull requests): {ctx.main_branch}")
    if ctx.user_name:
        lines.append(f"Git user: {ctx.user_name}")
    lines.append("Status:\n" + (ctx.status or "(clean)"))
    if ctx.recent_commits:
        lines.append("Recent commits:\n" + ctx.recent_commits)
    return "\n".join(lines)
