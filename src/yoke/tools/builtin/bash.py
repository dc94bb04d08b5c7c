"""Bash: one fresh bash process per command, with the working directory carried between calls."""

from __future__ import annotations

import os
import shlex
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from yoke.tools.base import Tool, ToolContext, ToolError, ToolKind, ToolResult
from yoke.tools.light import InputModel
from yoke.tools.shell.announce import announce_background
from yoke.tools.shell.confinement import sandbox_launcher, snapshot_launcher, start_cwd
from yoke.tools.shell.foreground import ForegroundOutcome, run_foreground
from yoke.tools.shell.output import OutputChunk, max_output_chars, persisted_note, read_capped
from yoke.tools.shell.process import Launcher
from yoke.tools.shell.script import command_env, fast_path_env, wrap_command
from yoke.tools.shell.state import ShellState, carry_cwd, shell_state

if TYPE_CHECKING:
    from yoke.tools.builtin.inputs import BashInput

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
TIMEOUT_CEILING_MS = 3_500_000  # stays under the executor ceiling below, whatever BASH_MAX_TIMEOUT_MS says
DEFAULT_BACKGROUND_LIFETIME_MS = 1_800_000
MAX_BACKGROUND_LIFETIME_MS = 7_200_000

# Exit status 1 from these means "nothing found" or "not equal", not a failure.
BENIGN_EXIT_1 = {
    "grep": "No matches found",
    "egrep": "No matches found",
    "fgrep": "No matches found",
    "rg": "No matches found",
    "diff": "Files differ",
    "cmp": "Files differ",
    "test": "Condition is false",
    "[": "Condition is false",
    "find": "Some paths could not be read",
}

DESCRIPTION = """\
Runs a bash command and returns its output (stdout and stderr together) and, when it is not 0, its exit code.

How commands run:
- Each call starts a fresh bash process. The working directory carries over from one call to the next \
as long as it stays inside the project's working directories (otherwise it is reset and you are told). \
Environment variables, shell options and `source`d settings do NOT carry over; set them in the same command \
(`export X=1 && ...`). Aliases and functions from the user's ~/.bashrc are available.
- Standard input is empty: interactive programs and prompts get end-of-file. Avoid flags that open an editor \
or a pager (`git rebase -i`, `git add -i`); pass `--no-pager` or pipe to `cat` where needed.
- `timeout` is in milliseconds: 120000 (2 minutes) by default, at most 600000 (10 minutes). A command still \
running when its timeout comes is moved to the background and you get its task id (a plain `sleep` is \
stopped instead).
- Output longer than 30000 characters keeps its start and end; the middle is left out and the full output is \
saved to a file whose path is given, which you can Read or Grep.

Background commands: set `run_in_background` for servers, watchers and long builds. You get a task id at \
once; read new output with TaskOutput, stop it with TaskStop. Do not add `&` yourself. Background tasks are \
stopped when the session ends.

Good practice:
- Prefer the dedicated tools for files: Read rather than cat/head/tail, Edit or Write rather than sed/awk or \
echo redirection, Glob rather than find or ls for finding files, Grep rather than grep or rg.
- Quote paths that contain spaces with double quotes. Prefer absolute paths to `cd`.
- Chain commands that depend on each other with `&&` in one call; independent commands can go in separate \
calls made together.
- Give `description`: 5-10 words saying what the command does, in the active voice ("Run the unit tests").
- Never run destructive commands (rm -rf, git reset --hard, force pushes) unless the user asked for them.\
"""


class BashTool(Tool):
    name: ClassVar[str] = "Bash"
    kind: ClassVar[ToolKind] = "execute"
    description: ClassVar[str] = DESCRIPTION
    input_model = InputModel("BashInput")  # type: ignore[assignment]  # pydantic, imported when needed
    timeout_s: ClassVar[float | None] = 3600.0  # the tool enforces its own, shorter timeouts
    max_result_chars: ClassVar[int] = 160_000  # output is already capped here (BASH_MAX_OUTPUT_LENGTH)

    def input_schema(self) -> dict[str, Any]:
        schema = super().input_schema()
        schema["properties"].pop("dangerouslyDisableSandbox", None)  # offered once a sandbox exists
        return schema

    def summary(self, input: Any) -> str:
        return f"Bash({input.command})" if isinstance(input, BashInput) else self.name

    async def run(self, input: BashInput, ctx: ToolContext) -> ToolResult:
        if not input.command.strip():
            raise ToolError("command is empty: give the shell command to run.")
        state = shell_state(ctx.session)
        env = command_env(ctx)
        snapshot = await state.ensure_snapshot(env, snapshot_launcher(ctx, state.root))
        path = fast_path_env(ctx, env)
        env_file = env.get("CLAUDE_ENV_FILE") or None
        cwd = start_cwd(ctx)
        readable = [p for p in (snapshot, env_file) if p]
        if input.run_in_background:
            script = wrap_command(
                input.command, snapshot=snapshot, env_file=env_file, cwd_file=None, path=path
            )
            launcher = sandbox_launcher(input, ctx, writable=[], readable=readable)
            return await self._start_background(input, ctx, state, script, cwd, env, launcher)

        output_path, cwd_file = state.next_command_files()
        cwd_file.parent.mkdir(parents=True, exist_ok=True)
        # A folder of its own for the trailer: a sandboxed or confined command may write there, and must not
        # be able to plant anything (a symlink) where a later command's trailer will be written.
        cwd_file = Path(tempfile.mkdtemp(prefix=cwd_file.stem + "-", dir=cwd_file.parent)) / cwd_file.name
        script = wrap_command(
            input.command, snapshot=snapshot, env_file=env_file, cwd_file=cwd_file, path=path
        )
        launcher = sandbox_launcher(input, ctx, writable=[cwd_file.parent], readable=readable)
        timeout_ms = foreground_timeout_ms(input.timeout, env)
        if launcher is None and ctx.terminal is not None:  # unconfined anyway: the editor may show it live
            shown = await self._in_terminal(input, ctx, script, cwd, env, output_path, cwd_file, timeout_ms)
            if shown is not None:
                return shown
        outcome = await run_foreground(
            script,
            cwd=cwd,
            env=env,
            output_path=output_path,
            timeout_s=timeout_ms / 1000,
            cancel=ctx.cancel,
            keep_on_timeout=lambda: may_move_to_background(input.command) and state.tasks.has_room(),
            launcher=launcher,
        )
        if outcome.process is not None:
            limit = max_output_chars(env)
            return self._moved_to_background(input, state, outcome, output_path, timeout_ms, limit)
        return self._finished(input, ctx, outcome, output_path, cwd_file, timeout_ms, env)

    async def _in_terminal(
        self,
        input: BashInput,
        ctx: ToolContext,
        script: str,
        cwd: Path,
        env: dict[str, str],
        output_path: Path,
        cwd_file: Path,
        timeout_ms: float,
    ) -> ToolResult | None:
        """The command run in the front-end's terminal (None: it offered none that works; run locally)."""
        from yoke.tools.shell.terminal import run_in_terminal

        if ctx.terminal is None:
            return None
        outcome = await run_in_terminal(
            ctx.terminal,
            script,
            cwd=cwd,
            env=env,
            output_path=output_path,
            timeout_s=timeout_ms / 1000,
            cancel=ctx.cancel,
            tool_use_id=ctx.tool_use_id,
        )
        if outcome is None:
            return None
        return self._finished(input, ctx, outcome, output_path, cwd_file, timeout_ms, env)

    def _finished(
        self,
        input: BashInput,
        ctx: ToolContext,
        outcome: ForegroundOutcome,
        output_path: Path,
        cwd_file: Path,
        timeout_ms: float,
        env: dict[str, str],
    ) -> ToolResult:
        cwd_note = carry_cwd(ctx, cwd_file, env)
        chunk = read_capped(output_path, 0, max_output_chars(env))
        if not chunk.elided:
            output_path.unlink(missing_ok=True)
        note, ctx.session.services.confinement_note = ctx.session.services.confinement_note, ""
        cwd_note = "\n".join(n for n in (cwd_note, note) if n)
        return finished_result(input.command, chunk, outcome, output_path, timeout_ms, cwd_note)

    async def _start_background(
        self,
        input: BashInput,
        ctx: ToolContext,
        state: ShellState,
        script: str,
        cwd: Path,
        env: dict[str, str],
        launcher: Launcher | None = None,
    ) -> ToolResult:
        lifetime_ms = min(input.timeout or DEFAULT_BACKGROUND_LIFETIME_MS, MAX_BACKGROUND_LIFETIME_MS)
        task = await state.tasks.start(
            script,
            command=input.command,
            description=input.description or "",
            cwd=cwd,
            env=env,
            lifetime_s=lifetime_ms / 1000,
            launcher=launcher,
        )
        announce_background(task, ctx)
        text = (
            f"Command running in the background with ID: {task.id}. Its output is written to "
            f"{task.output_path}. Check on it with TaskOutput (task_id {task.id!r}); stop it with TaskStop."
        )
        return ToolResult(text, data=_data("", backgroundTaskId=task.id))

    def _moved_to_background(
        self,
        input: BashInput,
        state: ShellState,
        outcome: ForegroundOutcome,
        output_path: Path,
        timeout_ms: float,
        limit: int,
    ) -> ToolResult:
        assert outcome.process is not None
        chunk = read_capped(output_path, 0, limit)
        task = state.tasks.adopt(
            outcome.process,
            command=input.command,
            description=input.description or "",
            output_path=output_path,
            read_offset=chunk.end,
            started_at=outcome.started_at,
            lifetime_s=DEFAULT_BACKGROUND_LIFETIME_MS / 1000,
        )
        parts = [chunk.text.rstrip("\n")] if chunk.text.strip() else []
        parts.append(
            f"Command was still running after {_seconds(timeout_ms)}, so it was moved to the background with "
            f"ID: {task.id}. Read its further output with TaskOutput (task_id {task.id!r}) or the file "
            f"{output_path}; stop it with TaskStop."
        )
        return ToolResult("\n".join(parts), data=_data(chunk.text, backgroundTaskId=task.id))


def finished_result(
    command: str,
    chunk: OutputChunk,
    outcome: ForegroundOutcome,
    output_path: Path,
    timeout_ms: float,
    cwd_note: str,
) -> ToolResult:
    """The model-facing text and structured data for a command that has ended (or was stopped)."""
    output = chunk.text.rstrip("\n")
    parts = [output] if output.strip() else []
    extra: dict[str, Any] = {}
    if chunk.elided:
        parts.append(persisted_note(output_path, chunk))
        extra.update(persistedOutputPath=str(output_path), persistedOutputSize=os.path.getsize(output_path))
    code = outcome.exit_code
    is_error = False
    if outcome.interrupted:
        parts.append("[Command interrupted by the user; it and its child processes were stopped]")
        is_error = True
    elif outcome.timed_out:
        parts.append(f"[Command timed out after {_seconds(timeout_ms)} and was stopped]")
        is_error = True
    elif code:
        parts.append(f"Exit code {code}")
        benign = BENIGN_EXIT_1.get(_program(command)) if code == 1 else None
        if benign:
            extra["returnCodeInterpretation"] = benign
        else:
            is_error = True
    if cwd_note:
        parts.append(cwd_note)
    text = "\n".join(parts) if parts else "(Command completed with no output)"
    data = _data(output, interrupted=outcome.interrupted, exitCode=code, **extra)
    return ToolResult(text, is_error=is_error, data=data)


def _data(stdout: str, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "stdout": stdout,
        "stderr": "",  # merged into stdout, in the order it was written
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    data.update(extra)
    return data


def _seconds(ms: float) -> str:
    return f"{ms / 1000:g}s"


def _program(command: str) -> str:
    """The program a simple command runs ('' for pipelines and lists, whose status means something else)."""
    if any(op in command for op in ("|", ";", "&", "\n")):
        return ""
    try:
        words = shlex.split(command)
    except ValueError:
        return ""
    return os.path.basename(words[0]) if words else ""


def foreground_timeout_ms(requested: float | None, env: dict[str, str]) -> float:
    """The timeout for a foreground call: the default when not given, larger values reduced to the max."""
    default = _env_ms(env, "BASH_DEFAULT_TIMEOUT_MS", DEFAULT_TIMEOUT_MS)
    maximum = min(max(_env_ms(env, "BASH_MAX_TIMEOUT_MS", MAX_TIMEOUT_MS), default), TIMEOUT_CEILING_MS)
    if requested is None or requested <= 0:
        return min(default, maximum)
    return min(requested, maximum)


def _env_ms(env: dict[str, str], name: str, fallback: int) -> int:
    try:
        value = int(env.get(name, ""))
    except ValueError:
        return fallback
    return value if value > 0 else fallback


def may_move_to_background(command: str) -> bool:
    """A timed-out `sleep` is the model waiting too long, not work worth keeping."""
    return not command.lstrip().startswith("sleep")


def __getattr__(name: str) -> object:
    if name == "BashInput":  # the input model lives with the others, so this module imports without pydantic
        from yoke.tools.builtin.inputs import BashInput

        return BashInput
    raise AttributeError(name)
