"""EnterWorktree and ExitWorktree: the session's shell moves into a git worktree and back (2.1.332's names
and input schemas, tests/scheduling/cc_2_1_332_tools.json), on the sub-agents' worktree code
(`agents/worktree.py`: `.claude/worktrees/<slug>` on branch `worktree/<slug>`, the WorktreeCreate and
WorktreeRemove hooks). `remove` refuses while the worktree has uncommitted files or commits its base lacks,
and lists them, unless `discard_changes` is true. A worktree entered by `path` is not this session's to
delete: only `keep` leaves it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from yoke.agents.worktree import Worktree, create_worktree, git
from yoke.tools.base import ToolContext, ToolError, ToolKind, ToolResult
from yoke.tools.json_schema import SchemaTool

ENTER = """\
Moves this session's shell into a git worktree: a new one (optional `name`; created from HEAD under \
.claude/worktrees on its own branch) or an existing one of this repository (`path`, as `git worktree list` \
shows it). Work there is isolated from the main checkout until ExitWorktree.\
"""
EXIT = """\
Leaves the worktree EnterWorktree entered and returns the shell to where it was. `keep` leaves the worktree \
and its branch on disk; `remove` deletes them, and refuses while there are uncommitted files or commits not \
on the base unless discard_changes is true (set it only once the user agreed).\
"""


@dataclass
class Entered:
    worktree: Worktree | None  # None: entered by path (not ours to remove)
    path: Path
    before: Path | None


ENTERED: dict[str, Entered] = {}  # session id → the worktree its shell is in


# Plain JSON schemas (no pydantic model): a plain `-p` offers these tools without importing pydantic.
ENTER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "A name for a new worktree"},
        "path": {"type": "string", "description": "An existing worktree of this repository to enter"},
    },
    "additionalProperties": False,
}
EXIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["keep", "remove"], "description": '"keep" or "remove"'},
        "discard_changes": {"type": "boolean", "description": "true: remove even with changes"},
    },
    "required": ["action"],
    "additionalProperties": False,
}


class _Input:
    """The validated input object, read as attributes (absent optional fields are None)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.name: str | None = data.get("name")
        self.path: str | None = data.get("path")
        self.action: str = str(data.get("action") or "")
        self.discard_changes: bool | None = data.get("discard_changes")


class EnterWorktreeTool(SchemaTool):
    name: ClassVar[str] = "EnterWorktree"
    kind: ClassVar[ToolKind] = "other"
    description: ClassVar[str] = ENTER
    schema: ClassVar[dict[str, Any]] = ENTER_SCHEMA

    async def run(self, data: dict[str, Any], ctx: ToolContext) -> ToolResult:
        input = _Input(data)
        key = ctx.session.session_id
        if key in ENTERED:
            raise ToolError(f"Already in the worktree {ENTERED[key].path}; ExitWorktree first.")
        if input.name and input.path:
            raise ToolError("Give name or path, not both.")
        before = ctx.session.shell_cwd
        if input.path:
            path = await _listed_worktree(ctx.cwd, input.path)
            ENTERED[key] = Entered(None, path, before)
        else:
            session = getattr(ctx.session.services.agents, "session", None)
            if session is None:
                raise ToolError("EnterWorktree is not available in this session.")
            worktree = await create_worktree(session, input.name or "session")
            path = worktree.path
            ENTERED[key] = Entered(worktree, path, before)
        ctx.session.shell_cwd = path
        return ToolResult(f"Now working in the worktree {path}.", data={"worktreePath": str(path)})


class ExitWorktreeTool(SchemaTool):
    name: ClassVar[str] = "ExitWorktree"
    kind: ClassVar[ToolKind] = "other"
    description: ClassVar[str] = EXIT
    schema: ClassVar[dict[str, Any]] = EXIT_SCHEMA

    async def run(self, data: dict[str, Any], ctx: ToolContext) -> ToolResult:
        input = _Input(data)
        key = ctx.session.session_id
        entered = ENTERED.get(key)
        if entered is None:
            raise ToolError("Not in a worktree EnterWorktree entered.")
        if input.action not in ("keep", "remove"):
            raise ToolError('action is "keep" or "remove".')
        if input.action == "remove":
            worktree = entered.worktree
            if worktree is None:
                raise ToolError(
                    "This worktree was entered by path: it is not this session's to remove; use keep."
                )
            changes = await pending_changes(worktree)
            if changes and not input.discard_changes:
                listed = "\n".join(changes[:20])
                raise ToolError(
                    f"The worktree has changes; not removed (discard_changes: true removes it):\n{listed}"
                )
            await remove(worktree)
        del ENTERED[key]
        ctx.session.shell_cwd = entered.before
        done = "removed" if input.action == "remove" else "kept"
        return ToolResult(f"Left the worktree {entered.path} ({done}).", data={"action": input.action})


async def pending_changes(worktree: Worktree) -> list[str]:
    """Uncommitted files (`git status --porcelain`) and commits the base lacks, one line each."""
    _, status = await git(worktree.path, "status", "--porcelain")
    _, commits = await git(worktree.path, "log", "--oneline", f"{worktree.base}..HEAD")
    return [line for line in (*status.splitlines(), *commits.splitlines()) if line.strip()]


async def remove(worktree: Worktree) -> None:
    await worktree.session.agent.lifecycle.announce("WorktreeRemove", worktree_path=str(worktree.path))
    code, message = await git(worktree.root, "worktree", "remove", "--force", str(worktree.path))
    if code != 0:
        raise ToolError(
            f"git refused to remove the worktree: {message.splitlines()[-1] if message else code}"
        )
    if worktree.branch:
        await git(worktree.root, "branch", "-D", worktree.branch)


async def _listed_worktree(cwd: Path, wanted: str) -> Path:
    code, listing = await git(cwd, "worktree", "list", "--porcelain")
    if code != 0:
        raise ToolError("EnterWorktree needs a git repository; this folder is not in one.")
    target = (cwd / wanted).resolve()
    for line in listing.splitlines():
        if line.startswith("worktree ") and Path(line[9:]).resolve() == target:
            return target
    raise ToolError(f"{wanted} is not a worktree of this repository (git worktree list).")


def entered_worktree(session_id: str) -> Any:
    return ENTERED.get(session_id)
