"""TaskOutput and TaskStop: reading and stopping background shell tasks (legacy BashOutput, KillShell)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from yoke.tools.base import Tool, ToolContext, ToolError, ToolKind, ToolResult
from yoke.tools.schema import ToolInput
from yoke.tools.shell.output import max_output_chars, persisted_note
from yoke.tools.shell.script import settings_env
from yoke.tools.shell.state import task_manager
from yoke.tools.shell.tasks import ShellTask

DEFAULT_WAIT_MS = 30_000
MAX_WAIT_MS = 600_000

TASK_OUTPUT_DESCRIPTION = """\
Reads what a background task (a Bash command run with run_in_background, or one moved to the background \
when it timed out) has printed since you last checked, with its status: running, completed, failed or \
killed, and its exit code once it has ended.
- By default waits (`block`, up to `timeout` milliseconds, 30000 unless given) for the task to finish; pass \
`block: false` to look without waiting.
- Each call returns only new output. The task's full output is also in the file named when it started.\
"""

TASK_STOP_DESCRIPTION = """\
Stops a running background task by its id (the one Bash gave when it started the task), together with every \
process it started. Use it for servers or watchers you no longer need and for tasks that hang.\
"""


class TaskOutputInput(ToolInput):
    task_id: str | None = Field(default=None, description="The id of the background task")
    block: bool | None = Field(default=None, description="Wait for the task to finish (default true)")
    timeout: float | None = Field(
        default=None, description="How long to wait, in milliseconds (default 30000)"
    )
    # Legacy BashOutput shape: {bash_id, filter?}.
    bash_id: str | None = Field(default=None, description="Legacy name of task_id")
    filter: str | None = Field(default=None, description="Keep only output lines matching this regex")


class TaskOutputTool(Tool):
    name: ClassVar[str] = "TaskOutput"
    kind: ClassVar[ToolKind] = "read"
    aliases: ClassVar[tuple[str, ...]] = ("BashOutput",)
    description: ClassVar[str] = TASK_OUTPUT_DESCRIPTION
    input_model: ClassVar[type[BaseModel]] = TaskOutputInput
    read_only: ClassVar[bool] = True
    concurrency_safe: ClassVar[bool] = True
    timeout_s: ClassVar[float | None] = MAX_WAIT_MS / 1000 + 60

    def input_schema(self) -> dict[str, Any]:
        schema = super().input_schema()
        for legacy in ("bash_id", "filter"):
            schema["properties"].pop(legacy, None)
        schema["required"] = ["task_id"]
        return schema

    async def run(self, input: TaskOutputInput, ctx: ToolContext) -> ToolResult:
        legacy = input.task_id is None and input.bash_id is not None
        task_id = input.task_id or input.bash_id
        if not task_id:
            raise ToolError("Give task_id: the id Bash returned when it started the background task.")
        pattern = _compile_filter(input.filter)
        agents = ctx.session.services.agents  # a background sub-agent (the session's agent runner)
        if agents is not None and task_id in agents.agents:
            wait_ms = min(input.timeout if input.timeout is not None else DEFAULT_WAIT_MS, MAX_WAIT_MS)
            block = input.block if input.block is not None else True
            return await agents.output(task_id, max(0.0, wait_ms) / 1000 if block else 0.0)
        manager = task_manager(ctx)
        task = manager.get(task_id)
        block = input.block if input.block is not None else not legacy
        if block and task.running:
            wait_ms = min(input.timeout if input.timeout is not None else DEFAULT_WAIT_MS, MAX_WAIT_MS)
            await manager.wait(task, max(0.0, wait_ms) / 1000, ctx.cancel)
        chunk = manager.read_new(task, max_output_chars(settings_env(ctx)))
        output = chunk.text
        if pattern is not None:
            output = "\n".join(line for line in output.splitlines() if pattern.search(line))
        if chunk.elided:
            output = f"{output}\n{persisted_note(task.output_path, chunk)}"
        if legacy:
            return _legacy_result(task, output)
        return _task_result(task, output, block)


def _compile_filter(pattern: str | None) -> re.Pattern[str] | None:
    if not pattern:
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"filter is not a valid regular expression: {exc}") from exc


def _task_result(task: ShellTask, output: str, blocked: bool) -> ToolResult:
    retrieval = "success" if not task.running else ("timeout" if blocked else "not_ready")
    lines = [
        f"<retrieval_status>{retrieval}</retrieval_status>",
        f"<task_id>{task.id}</task_id>",
        "<task_type>local_bash</task_type>",
        f"<status>{task.status}</status>",
    ]
    if task.exit_code is not None:
        lines.append(f"<exit_code>{task.exit_code}</exit_code>")
    if task.note:
        lines.append(f"<note>Stopped because {task.note}.</note>")
    lines.append(f"<output>\n{output.rstrip(chr(10))}\n</output>" if output.strip() else "<output></output>")
    data = {
        "retrieval_status": retrieval,
        "task": {
            "task_id": task.id,
            "task_type": "local_bash",
            "status": task.status,
            "description": task.description,
            "output": output,
            "exitCode": task.exit_code,
        },
    }
    return ToolResult("\n".join(lines), data=data)


def _legacy_result(task: ShellTask, output: str) -> ToolResult:
    timestamp = datetime.now(UTC).isoformat()
    lines = [f"<status>{task.status}</status>"]
    if task.exit_code is not None:
        lines.append(f"<exit_code>{task.exit_code}</exit_code>")
    if output.strip():
        lines.append(f"<stdout>\n{output.rstrip(chr(10))}\n</stdout>")
    lines.append(f"<timestamp>{timestamp}</timestamp>")
    data = {
        "shellId": task.id,
        "command": task.command,
        "status": task.status,
        "exitCode": task.exit_code,
        "stdout": output,
        "stderr": "",
        "stdoutLines": len(output.splitlines()),
        "stderrLines": 0,
        "timestamp": timestamp,
    }
    return ToolResult("\n".join(lines), data=data)


class TaskStopInput(ToolInput):
    task_id: str | None = Field(default=None, description="The id of the background task to stop")
    shell_id: str | None = Field(default=None, description="Deprecated: use task_id")


class TaskStopTool(Tool):
    name: ClassVar[str] = "TaskStop"
    kind: ClassVar[ToolKind] = "execute"
    aliases: ClassVar[tuple[str, ...]] = ("KillShell", "KillBash")
    description: ClassVar[str] = TASK_STOP_DESCRIPTION
    input_model: ClassVar[type[BaseModel]] = TaskStopInput

    async def run(self, input: TaskStopInput, ctx: ToolContext) -> ToolResult:
        task_id = input.task_id or input.shell_id
        if not task_id:
            raise ToolError("Give task_id: the id of the background task to stop.")
        agents = ctx.session.services.agents  # a background sub-agent (the session's agent runner)
        if agents is not None and agents.stop(task_id):
            message = f"Stopped background agent {task_id}."
            return ToolResult(
                message, data={"message": message, "task_id": task_id, "task_type": "local_agent"}
            )
        manager = task_manager(ctx)
        task = manager.get(task_id)
        await manager.stop(task, "TaskStop was called")
        message = f"Stopped background task {task.id} ({task.command})."
        data: dict[str, Any] = {
            "message": message,
            "task_id": task.id,
            "task_type": "local_bash",
            "command": task.command,
        }
        if input.shell_id is not None:
            data["shell_id"] = task.id  # the legacy KillShell output shape
        return ToolResult(message, data=data)
