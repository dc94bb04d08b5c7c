"""Worktree isolation for a sub-agent, as Claude Code does it: `.claude/worktrees/<slug>` on a branch
`worktree/<slug>`, removed when the agent changed nothing and kept (with its branch) when it did. Removal
fails closed: a worktree with uncommitted work is never deleted."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yoke.ids import random_hex
from yoke.tools.base import ToolError


async def git(cwd: Path, *args: str) -> tuple[int, str]:
    from yoke.gitsafe import hardened_git_argv, hardened_git_env, program_overrides

    overrides = await asyncio.to_thread(program_overrides, cwd)  # checkout would run the repo's filters
    from yoke import spawn

    proc = await spawn.start(  # Yoke's own hardened git: nothing of the repository's runs
        hardened_git_argv(*args, overrides=overrides),
        confine=None,
        cwd=cwd,
        env=hardened_git_env(),
        stdout=spawn.PIPE,
        stderr=spawn.STDOUT,
    )
    out, _ = await proc.communicate()
    return proc.returncode or 0, out.decode("utf-8", "replace").strip()


@dataclass
class Worktree:
    session: Any
    root: Path
    path: Path
    branch: str
    base: str
    kept: bool = False

    async def changed(self) -> bool:
        code, status = await git(self.path, "status", "--porcelain")
        _, head = await git(self.path, "rev-parse", "HEAD")
        return code != 0 or bool(status) or head != self.base

    async def finish(self) -> None:
        """Remove the worktree and its branch if the agent left them as they were; keep them otherwise."""
        if await self.changed():
            self.kept = True
            return
        await self.session.agent.lifecycle.announce("WorktreeRemove", worktree_path=str(self.path))
        code, _ = await git(self.root, "worktree", "remove", str(self.path))
        if code == 0:
            await git(self.root, "branch", "-D", self.branch)
        else:
            self.kept = True


NO_COMMITS = (
    "this repository has no commits yet, and a worktree starts from one; commit first "
    '(git add -A && git commit -m "first commit")'
)


async def create_worktree(session: Any, name: str) -> Worktree:
    code, root = await git(session.cwd, "rev-parse", "--show-toplevel")
    if code != 0:
        raise ToolError('isolation "worktree" needs a git repository; this folder is not in one.')
    root_path = Path(root)
    slug = f"{_slug(name)}-{random_hex(6)}"
    out = await session.agent.lifecycle.announce("WorktreeCreate", name=slug)
    custom = out.extras.get("worktreePath")
    head_code, base = await git(root_path, "rev-parse", "--verify", "-q", "HEAD")
    if isinstance(custom, str) and custom:
        return Worktree(session, root_path, Path(custom), "", base, kept=True)
    if head_code != 0:
        raise ToolError(f'isolation "worktree": {NO_COMMITS}')
    path = root_path / ".claude" / "worktrees" / slug
    branch = f"worktree/{slug}"
    code, message = await git(root_path, "worktree", "add", "-b", branch, str(path), "HEAD")
    if code != 0:
        raise ToolError(f"Could not create the worktree: {message.splitlines()[-1] if message else code}")
    return Worktree(session, root_path, path, branch, base)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "agent"


def session_worktree(cwd: Path, name: str) -> Path:
    """`yoke -w NAME`: the session works in `.claude/worktrees/NAME` on branch `worktree/NAME`, created from
    HEAD when missing and reused when present (it is never removed behind the user's back). Raises
    ToolError, one line, outside a repository or when git refuses."""
    from yoke import spawn
    from yoke.gitsafe import hardened_git_argv, hardened_git_env, program_overrides

    def run(*args: str, where: Path) -> Any:
        argv = hardened_git_argv(*args, overrides=program_overrides(where))
        return spawn.run(argv, confine=None, cwd=where, env=hardened_git_env(), text=True)

    top = run("rev-parse", "--show-toplevel", where=cwd)
    if top.returncode != 0:
        raise ToolError("--worktree needs a git repository; this folder is not in one.")
    root = Path(top.stdout.strip())
    if run("rev-parse", "--verify", "-q", "HEAD", where=root).returncode != 0:
        raise ToolError(f"--worktree: {NO_COMMITS}")
    slug = _slug(name) if name else f"session-{random_hex(6)}"
    path = root / ".claude" / "worktrees" / slug
    if path.is_dir():
        return path
    made = run("worktree", "add", "-b", f"worktree/{slug}", str(path), "HEAD", where=root)
    if made.returncode != 0:
        made = run("worktree", "add", str(path), f"worktree/{slug}", where=root)  # the branch exists
    if made.returncode != 0:
        lines = (made.stderr or made.stdout).strip().splitlines()
        raise ToolError(f"--worktree: git could not create {path}: {lines[-1] if lines else made.returncode}")
    return path
