"""Git context for the system prompt: branch, main branch, short status, recent commits.

The git commands run concurrently; a folder outside git, a missing git binary or a slow repository all
yield None or partial context, never an error.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

MAX_STATUS_CHARS = 2_000
GIT_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class GitContext:
    root: str
    branch: str
    main_branch: str
    status: str
    recent_commits: str
    user_name: str = ""


async def _git(cwd: Path, *args: str) -> str | None:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        proc = await asyncio.create_subprocess_exec(
            "git",
            "--no-optional-locks",
            *args,
            cwd=str(cwd),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        return None
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), GIT_TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return None
    if proc.returncode != 0:
        return None
    return out.decode("utf-8", errors="replace").rstrip("\n")


async def _main_branch(cwd: Path) -> str:
    remote_head = await _git(cwd, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if remote_head:
        return remote_head.split("/", 1)[-1]
    for candidate in ("main", "master", "trunk"):
        if await _git(cwd, "rev-parse", "--verify", "--quiet", f"refs/heads/{candidate}") is not None:
            return candidate
    return ""


async def git_context(cwd: Path) -> GitContext | None:
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
