"""The shell's per-session state, kept in `SessionState.services.shell`."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from yoke.tools.base import SessionState, ToolContext
from yoke.tools.shell.script import make_snapshot
from yoke.tools.shell.tasks import ShellTaskManager


@dataclass
class ShellState:
    root: Path  # <session_dir>/shell: snapshot, command outputs, task outputs
    tasks: ShellTaskManager
    snapshot: Path | None = None
    snapshot_taken: bool = False
    _command_count: int = field(default=0, repr=False)

    def next_command_files(self) -> tuple[Path, Path]:
        """Fresh (output file, cwd trailer file) paths for one foreground command."""
        self._command_count += 1
        n = self._command_count
        return self.root / "outputs" / f"command_{n}.output", self.root / "cwd" / f"command_{n}.cwd"

    async def ensure_snapshot(
        self, env: dict[str, str], launch: Callable[[list[str]], list[str]] | None = None
    ) -> Path | None:
        """The alias/function snapshot, taken from the user's ~/.bashrc the first time it is needed (inside
        the sandbox when `launch` is given: the rc file is a program like any other)."""
        if not self.snapshot_taken:
            self.snapshot_taken = True
            home = Path(env.get("HOME") or Path.home())
            self.snapshot = await make_snapshot(home / ".bashrc", self.root / "snapshot.sh", env, launch)
        return self.snapshot


def shell_state(session: SessionState) -> ShellState:
    state = session.services.shell
    if state is None:
        root = session.session_dir / "shell"
        state = session.services.shell = ShellState(root=root, tasks=ShellTaskManager(root / "tasks"))
    return state


def task_manager(ctx: ToolContext) -> ShellTaskManager:
    return shell_state(ctx.session).tasks


async def shutdown_shell(session: SessionState) -> None:
    """Stop all of the session's background tasks. The lead calls this when a session ends."""
    state = session.services.shell
    if state is not None:
        await state.tasks.shutdown()


def carry_cwd(ctx: ToolContext, cwd_file: Path, env: dict[str, str]) -> str:
    """Record where the command left the shell; reset to the project directory (with a note) if outside."""
    try:
        final = cwd_file.read_text(encoding="utf-8").strip()
        cwd_file.unlink()
    except OSError:
        return ""
    finally:
        shutil.rmtree(cwd_file.parent, ignore_errors=True)
    if not final:
        return ""
    if env.get("CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR", "").lower() in ("1", "true", "yes"):
        ctx.session.shell_cwd = ctx.cwd
        return ""
    new = Path(final)
    if _inside_any(new, ctx.all_dirs()):
        ctx.session.shell_cwd = new
        return ""
    ctx.session.shell_cwd = ctx.cwd
    return f"Shell cwd was reset to {ctx.cwd}"


def _inside_any(path: Path, dirs: list[Path]) -> bool:
    resolved = path.resolve()
    for d in dirs:
        root = d.resolve()
        if resolved == root or root in resolved.parents:
            return True
    return False
