"""Monitor: a background command whose every output line is an event for the model.

The command runs as a background shell task (the session's `ShellTaskManager`, TaskStop ends it, the
sandbox covers it as it covers Bash). A watcher reads its output as it grows; each batch of new complete
lines goes to the session's inbox (`SessionState.services.inbox`, the loop's `Agent.inbox`) as one
`<task-notification>`, which the model reads before its next request. The watch ends when the command
exits or its deadline passes (default 5 minutes, at most 10), and the model is told which.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from yoke.tools.base import Tool, ToolContext, ToolError, ToolKind, ToolResult
from yoke.tools.schema import ToolInput

DEFAULT_TIMEOUT_MS = 300_000
MAX_TIMEOUT_MS = 600_000
POLL_S = 0.25
MAX_LINES_PER_EVENT = 50
MAX_LINE_CHARS = 1000

DESCRIPTION = """\
Watches a long-running command in the background: every line it prints to stdout becomes an event you \
receive as a notification while you keep working. The command itself decides what is worth an event, so \
filter in it: `tail -f app.log | grep --line-buffered ERROR`, `inotifywait -m -q dir`, or a polling loop \
that prints one line per change. The watch ends when the command exits or after `timeout_ms` (default \
300000, at most 600000); you are told which, and can start it again.
- For a single "tell me when X is done", prefer Bash with `run_in_background` and a command that exits \
when X is true.
- Make every stage of a pipeline flush each line (`grep --line-buffered`, `awk ... fflush()`); `head` \
delivers nothing until it has all its lines.
- Stop a watch early with TaskStop and the id this tool returns.\
"""


class MonitorInput(ToolInput):
    description: str = Field(description="What you are watching, in a few words (shown with each event)")
    command: str = Field(
        description="Shell command; each line it prints is an event; its exit ends the watch"
    )
    timeout_ms: float | None = Field(
        default=None,
        description="Stop watching after this many milliseconds (default 300000, at most 600000)",
    )


class MonitorTool(Tool):
    name: ClassVar[str] = "Monitor"
    kind: ClassVar[ToolKind] = "execute"
    description: ClassVar[str] = DESCRIPTION
    input_model: ClassVar[type[BaseModel]] = MonitorInput

    def summary(self, input: Any) -> str:
        return f"Monitor({input.command})" if isinstance(input, MonitorInput) else self.name

    async def run(self, input: MonitorInput, ctx: ToolContext) -> ToolResult:
        from yoke.tools.shell.confinement import sandbox_launcher, start_cwd
        from yoke.tools.shell.script import command_env, fast_path_env, wrap_command
        from yoke.tools.shell.state import shell_state

        if not input.command.strip():
            raise ToolError("command is empty: give the shell command whose output lines are the events.")
        inbox = ctx.session.services.inbox
        if inbox is None:
            raise ToolError("This session cannot receive monitor events.")
        timeout_ms = min(max(input.timeout_ms or DEFAULT_TIMEOUT_MS, 1000), MAX_TIMEOUT_MS)
        state = shell_state(ctx.session)
        env = command_env(ctx)
        path = fast_path_env(ctx, env)
        script = wrap_command(input.command, snapshot=None, env_file=None, cwd_file=None, path=path)
        task = await state.tasks.start(
            script,
            command=input.command,
            description=input.description,
            cwd=start_cwd(ctx),
            env=env,
            lifetime_s=timeout_ms / 1000,
            launcher=sandbox_launcher(input, ctx, writable=[], readable=[]),
        )
        watcher = asyncio.ensure_future(_watch(task, state.tasks, inbox, input.description))
        _WATCHERS.add(watcher)
        watcher.add_done_callback(_WATCHERS.discard)
        text = (
            f"Monitor started with task id {task.id}: each line the command prints reaches you as a "
            f"notification, until it exits or {timeout_ms / 1000:g} s pass. Stop it with TaskStop "
            f"(task_id {task.id!r})."
        )
        return ToolResult(text, data={"taskId": task.id, "timeoutMs": timeout_ms})


_WATCHERS: set[asyncio.Task[None]] = set()  # kept referenced until done (the loop holds tasks weakly)


async def _watch(task: Any, tasks: Any, inbox: list[str], description: str) -> None:
    """Hand each batch of new complete lines to the inbox; say how the watch ended."""
    offset, pending = 0, b""
    while True:
        ended = not task.running
        offset, chunk = _read_from(task.output_path, offset)
        pending += chunk
        lines, _, pending = pending.rpartition(b"\n") if not ended else (pending, b"", b"")
        events = [ln for ln in lines.decode("utf-8", "replace").splitlines() if ln.strip()]
        for start in range(0, len(events), MAX_LINES_PER_EVENT):
            batch = [ln[:MAX_LINE_CHARS] for ln in events[start : start + MAX_LINES_PER_EVENT]]
            inbox.append(_notification(task.id, description, "event", "\n".join(batch)))
        if ended:
            break
        try:
            await asyncio.wait_for(task.done.wait(), POLL_S)
        except TimeoutError:
            pass
    how = task.note or (
        f"the command exited with code {task.exit_code}" if task.exit_code is not None else task.status
    )
    inbox.append(_notification(task.id, description, "ended", f"The watch ended: {how}."))


def _read_from(path: Any, offset: int) -> tuple[int, bytes]:
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except OSError:
        return offset, b""
    return offset + len(data), data


def _notification(task_id: str, description: str, kind: str, body: str) -> str:
    return (
        f"<task-notification>\n<task-id>{task_id}</task-id>\n<kind>monitor {kind}</kind>\n"
        f"<summary>{description}</summary>\n<output>\n{body}\n</output>\n</task-notification>"
    )
