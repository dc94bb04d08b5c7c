"""A background command as Claude Code 2.1.330 reports it (captured in tests/cli/cc_2_1_330/bash_background*):
a task that starts with the Bash call (`task_started`, task type `local_bash`) and, when the command ends,
a `task_notification` plus a completion notice the model reads before its next request (`-p` waits for it
and answers it in a follow-up query)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yoke import events as ev
from yoke.messages import task_notice

if TYPE_CHECKING:
    from yoke.tools.base import ToolContext
    from yoke.tools.shell.tasks import ShellTask


def announce_background(task: ShellTask, ctx: ToolContext) -> None:
    """Say the task started (on the call's event stream) and arrange its end's lines and notice."""
    description = task.description or task.command
    if ctx.emit is not None:
        fields = {"task_type": "local_bash", "description": description, "background": True}
        ctx.emit(ev.TaskEvent("started", task.id, ctx.tool_use_id, fields))
    services = ctx.session.services
    post, inbox, tool_use_id = services.post_background, services.inbox, ctx.tool_use_id

    def ended(task: ShellTask) -> None:
        status = "stopped" if task.status == "killed" else task.status
        summary = f"{description}: {status} (exit code {task.exit_code})"
        if post is not None:
            outcome = {
                "task_type": "local_bash",
                "background": True,
                "status": status,
                "summary": summary,
                "output_file": str(task.output_path),
            }
            post(ev.TaskEvent("ended", task.id, tool_use_id, outcome))
        if inbox is not None and status != "stopped":  # one it stopped needs no answer
            inbox.append(task_notice(task.id, status, summary, task.output_path))

    task.on_end = ended
