"""Background sub-agents (the Agent tool's default in a main session with a follow-up query): launched as a
task that runs on after the Agent call returned, its answer written to the session's tasks folder, its end
posted to the parent's stream and left in its inbox as a notice; and what a program is told when any
sub-agent starts and ends. The runner (`agents/runner.py`) calls these; they read its session and depth."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.messages import task_notice
from yoke.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    from yoke.agents.runner import AgentRunner, RunningAgent


def task_fields(runner: AgentRunner, agent: RunningAgent, input: dict[str, Any]) -> dict[str, Any]:
    """What a program is told when a sub-agent starts (stream-json `task_started`)."""
    return {
        "description": input.get("description", ""),
        "subagent_type": agent.definition.name,
        "prompt": input.get("prompt", ""),
        "background": agent.background,
        "depth": runner.depth + 1,
    }


def task_outcome(runner: AgentRunner, agent: RunningAgent, missing: str = "") -> dict[str, Any]:
    """What a program is told when a sub-agent ends (stream-json `task_notification`); its answer (`missing`
    when it has none) is kept in the session's tasks folder, as a background agent's is."""
    result = agent.result
    text = result.text if result is not None else missing
    output_file = runner.session.session_dir / "tasks" / f"{agent.id}.output"
    try:
        output_file.parent.mkdir(parents=True, exist_ok=True)
        output_file.write_text(text, encoding="utf-8")
    except OSError:
        output_file = None
    usage = result.usage.as_dict() if result is not None and hasattr(result.usage, "as_dict") else {}
    return {
        "status": "completed" if result is not None and not result.is_error else "failed",
        "summary": text,
        "output_file": str(output_file) if output_file is not None else "",
        "total_tokens": sum(v for v in usage.values() if isinstance(v, int)),
        "tool_uses": agent.tool_uses,
        "duration_ms": int((time.monotonic() - agent.started) * 1000),
    }


def launch(
    runner: AgentRunner, agent: RunningAgent, input: dict[str, Any], prompt: str, ctx: ToolContext
) -> ToolResult:
    """Start `agent` as a background task and return the Agent call's answer at once: where its output will
    be. Its end reaches the parent as a task event and a notice in the parent's inbox (`run`)."""
    agent.background = True  # (its session was built so: the parent's interrupt does not stop it)
    agent.output_file = runner.session.session_dir / "tasks" / f"{agent.id}.output"
    agent.output_file.parent.mkdir(parents=True, exist_ok=True)
    if ctx.emit is not None:  # announced before the call's result, as 2.1.330 writes it
        ctx.emit(ev.TaskEvent("started", agent.id, ctx.tool_use_id, task_fields(runner, agent, input)))
    agent.task = asyncio.get_running_loop().create_task(run(runner, agent, prompt, ctx.tool_use_id))
    data = {
        "isAsync": True,
        "status": "async_launched",
        "agentId": agent.id,
        "description": input.get("description", ""),
        "resolvedModel": agent.session.model,
        "prompt": prompt,
        "outputFile": str(agent.output_file),
        "canReadOutputFile": True,
        "canContinueAgent": True,
    }
    text = (
        f"Async agent launched successfully.\nagentId: {agent.id}\nThe agent is working in the "
        f"background; you will be notified when it completes. Its output will be at {agent.output_file}."
    )
    return ToolResult(text, data=data)


async def run(runner: AgentRunner, agent: RunningAgent, prompt: str, tool_use_id: str) -> None:
    """The background task: drive the agent, then write its answer to its output file, post its end and
    leave the parent a notice (unless TaskStop ended it)."""
    post = runner.session.post_background  # its lines reach the stream after its Agent call returned
    failure = ""
    try:
        await runner._drive(agent, prompt, post)
    except Exception as exc:  # the parent is told why, not left with a warning nobody reads
        failure = f"The agent failed: {type(exc).__name__}: {exc}"
    finally:  # also when cancelled: every task_started gets its end
        outcome = task_outcome(runner, agent, failure or "(no answer)")  # writes the output file (guarded)
        outcome["background"] = True
        if agent.stopped:
            outcome["status"] = "stopped"
        post(ev.TaskEvent("ended", agent.id, tool_use_id, outcome))
        if not agent.stopped:  # one stopped on purpose needs no answer
            status = outcome["status"]
            summary = f'Agent "{agent.definition.name}" {status}'
            notice = task_notice(agent.id, status, summary, agent.output_file, result=outcome["summary"])
            runner.session.agent.inbox.append(notice)


async def output(agent: RunningAgent, wait_s: float) -> ToolResult:
    """TaskOutput for a background agent: its answer once done (waiting up to `wait_s`)."""
    if agent.task is not None and agent.running and wait_s > 0:
        await asyncio.wait({agent.task}, timeout=wait_s)
    done = not agent.running
    result = agent.result
    status = (
        "running" if not done else ("completed" if result is not None and not result.is_error else "failed")
    )
    text = result.text if done and result is not None else ""
    retrieval = "success" if done else ("timeout" if wait_s > 0 else "not_ready")
    lines = [
        f"<retrieval_status>{retrieval}</retrieval_status>",
        f"<task_id>{agent.id}</task_id>",
        "<task_type>local_agent</task_type>",
        f"<status>{status}</status>",
        f"<output>\n{text}\n</output>" if text else "<output></output>",
    ]
    task = {"task_id": agent.id, "task_type": "local_agent", "status": status, "output": text}
    return ToolResult("\n".join(lines), data={"retrieval_status": retrieval, "task": task})
