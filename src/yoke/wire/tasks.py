"""Sub-agents as Claude Code 2.1.330 reports them in stream-json (captured in tests/cli/cc_2_1_330/agent_*):

- `system/task_started` when the Agent tool starts one, then (in the foreground) a `user` line with its
  prompt, under the call's `parent_tool_use_id`;
- before each of its tool calls' `assistant` line, a `system/task_progress` line (what it is doing, its
  running count of calls); its text and thinking blocks are not written unless `--forward-subagent-text`;
- when it ends, `system/task_updated` (the status patch), then `system/task_notification` (status, summary,
  output file, usage), both before the Agent call's result.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from yoke import events as ev
from yoke.ids import random_hex

SystemLine = Callable[..., dict[str, Any]]
# Which input field says what a call works on, per tool (the first present wins).
TARGET_FIELDS = ("file_path", "notebook_path", "path", "pattern", "command", "url", "query", "description")


class TaskLines:
    def __init__(self, system: SystemLine, forward_text: bool = False) -> None:
        self._system = system
        self.forward_text = forward_text
        self.tasks: dict[str, dict[str, Any]] = {}  # task id -> what its later lines repeat

    def started(self, event: ev.TaskEvent) -> list[dict[str, Any]]:
        data = event.data
        task = {
            "run_id": f"{random_hex(8)}-{random_hex(8)}",
            "description": data.get("description", ""),
            "subagent_type": data.get("subagent_type", ""),
            "started": time.monotonic(),
            "tool_uses": 0,
        }
        self.tasks[event.task_id] = task
        line = self._system(
            "task_started",
            task_id=event.task_id,
            run_id=task["run_id"],
            tool_use_id=event.tool_use_id,
            description=task["description"],
            subagent_type=task["subagent_type"],
            is_backgrounded=bool(data.get("background")),
            spawn_depth=data.get("depth", 1),
            task_type="local_agent",
            prompt=data.get("prompt", ""),
        )
        return [line]

    def ended(self, event: ev.TaskEvent) -> list[dict[str, Any]]:
        data = event.data
        task = self.tasks.pop(event.task_id, {})
        run_id = task.get("run_id", "")
        status = data.get("status", "completed")
        patch = {"status": status, "end_time": int(time.time() * 1000)}
        usage = {
            "total_tokens": data.get("total_tokens", 0),
            "tool_uses": data.get("tool_uses", 0),
            "duration_ms": data.get("duration_ms", 0),
        }
        return [
            self._system("task_updated", task_id=event.task_id, run_id=run_id, patch=patch),
            self._system(
                "task_notification",
                task_id=event.task_id,
                run_id=run_id,
                tool_use_id=event.tool_use_id,
                status=status,
                output_file=data.get("output_file", ""),
                summary=data.get("summary", ""),
                usage=usage,
            ),
        ]

    def shown_blocks(self, event: ev.AssistantMessage, blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The blocks of a sub-agent's message that are written: its tool calls (and, with
        --forward-subagent-text, its text and thinking)."""
        if event.parent_tool_use_id is None or self.forward_text:
            return blocks
        return [b for b in blocks if b.get("type") not in ("text", "thinking", "redacted_thinking")]

    def progress(self, event: ev.AssistantMessage, block: dict[str, Any]) -> list[dict[str, Any]]:
        """`task_progress` for a sub-agent's tool call, written just before the call's `assistant` line."""
        task = self.tasks.get(event.agent_id)
        if task is None or block.get("type") != "tool_use" or event.parent_tool_use_id is None:
            return []
        task["tool_uses"] += 1
        usage = event.usage.as_dict() if hasattr(event.usage, "as_dict") else {}
        name = block.get("name", "")
        return [
            self._system(
                "task_progress",
                task_id=event.agent_id,
                run_id=task["run_id"],
                tool_use_id=event.parent_tool_use_id,
                description=_activity(name, block.get("input")),
                subagent_type=task["subagent_type"],
                usage={
                    "total_tokens": sum(v for v in usage.values() if isinstance(v, int)),
                    "tool_uses": task["tool_uses"],
                    "duration_ms": int((time.monotonic() - task["started"]) * 1000),
                },
                last_tool_name=name,
            )
        ]


def _activity(name: str, input: Any) -> str:
    """A call in a few words: the tool and what it works on (a file's name, a command's start)."""
    if isinstance(input, dict):
        for field in TARGET_FIELDS:
            value = input.get(field)
            if isinstance(value, str) and value.strip():
                if field in ("file_path", "notebook_path", "path"):
                    value = os.path.basename(value.rstrip("/")) or value
                value = " ".join(value.split())
                return f"{name} {value[:60]}{'…' if len(value) > 60 else ''}"
    return name
