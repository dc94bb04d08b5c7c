"""Worktree isolation for a sub-agent, as Claude Code does it: `.claude/worktrees/<slug>` on a branch
`worktree/<slug>`, removed when the agent changed nothing and kept (with its branch) when it did. Removal
fails closed: a worktree with uncommitted work is never deleted."""

from __future__ import annotations

import asyncio
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yoke.tools.base import ToolError


async def git(cwd: Path, *args: str) -> tuple[int, str]:
    from yoke.context.git import hardened_git_argv, hardened_git_env

    proc = await asyncio.create_subprocess_exec(
        *hardened_git_argv(*args),
        cwd=str(cwd),
        env=hardened_git_env(),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
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


async def create_worktree(session: Any, name: str) -> Worktree:
    code, root = await git(session.cwd, "rev-parse", "--show-toplevel")
    if code != 0:
        raise ToolError('isolation "worktree" needs a git repository; this folder is not in one.')
    root_path = Path(root)
    slug = f"{_slug(name)}-{uuid.uuid4().hex[:6]}"
    out = await session.agent.lifecycle.announce("WorktreeCreate", name=slug)
    custom = out.extras.get("worktreePath")
    _, base = await git(root_path, "rev-parse", "HEAD")
    if isinstance(custom, str) and custom:
        return Worktree(session, root_path, Path(custom), "", base, kept=True)
    path = root_path / ".claude" / "worktrees" / slug
    branch = f"worktree/{slug}"
    code, message = await git(root_path, "worktree", "add", "-b", branch, str(path), "HEAD")
    if code != 0:
        raise ToolError(f"Could not create the worktree: {message.splitlines()[-1] if message else code}")
    return Worktree(session, root_path, path, branch, base)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "agent"
