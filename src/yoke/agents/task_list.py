"""Claude Code's task-list tools (TaskCreate, TaskGet, TaskList, TaskUpdate): one list per session, shared
by the session and its sub-agents, announced to TaskCreated / TaskCompleted listeners (which may refuse)."""

from __future__ import annotations

import json
from dataclasses import asdict, field
from typing import Any, ClassVar

from yoke.records import dataclass
from yoke.tools.base import ToolContext, ToolError, ToolKind, ToolResult
from yoke.tools.json_schema import SchemaTool

STATUSES = ["pending", "in_progress", "completed", "deleted"]


@dataclass
class TaskItem:
    id: str
    subject: str
    description: str
    activeForm: str = ""
    status: str = "pending"
    owner: str = ""
    blocks: list[str] = field(default_factory=list)
    blockedBy: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


class TaskList:
    def __init__(self, lifecycle: Any = None):
        self.lifecycle = lifecycle
        self.items: dict[str, TaskItem] = {}
        self._next = 1

    async def create(self, fields: dict[str, Any]) -> TaskItem:
        item = TaskItem(str(self._next), fields["subject"], fields.get("description", ""))
        item.activeForm = fields.get("activeForm", "")
        item.metadata = dict(fields.get("metadata") or {})
        await self._announce("TaskCreated", item)
        self._next += 1
        self.items[item.id] = item
        return item

    def get(self, task_id: str) -> TaskItem:
        item = self.items.get(str(task_id))
        if item is None:
            raise ToolError(f"Task {task_id} not found.")
        return item

    async def update(self, fields: dict[str, Any]) -> TaskItem:
        item = self.get(fields["taskId"])
        if fields.get("status") == "completed" and item.status != "completed":
            await self._announce("TaskCompleted", item)
        for key in ("subject", "description", "activeForm", "status", "owner"):
            if key in fields:
                setattr(item, key, fields[key])
        item.blocks += [str(x) for x in fields.get("addBlocks") or []]
        item.blockedBy += [str(x) for x in fields.get("addBlockedBy") or []]
        item.metadata.update(fields.get("metadata") or {})
        if item.status == "deleted":
            del self.items[item.id]
        return item

    async def _announce(self, event: str, item: TaskItem) -> None:
        if self.lifecycle is None:
            return
        out = await self.lifecycle.announce(
            event, task_id=item.id, task_subject=item.subject, task_description=item.description
        )
        if out.block or out.stop:
            raise ToolError(out.reason or out.stop_reason or f"A {event} hook refused this.")


def _store(ctx: ToolContext) -> TaskList:
    store = ctx.session.services.task_list
    if store is None:
        store = ctx.session.services.task_list = TaskList()
    return store


class _TaskTool(SchemaTool):
    kind: ClassVar[ToolKind] = "think"
    read_only: ClassVar[bool] = True  # the session's own bookkeeping; nothing outside changes


class TaskCreateTool(_TaskTool):
    name: ClassVar[str] = "TaskCreate"
    description: ClassVar[str] = (
        "Add a task to the session's task list (shared with sub-agents). Use it to plan multi-step work; "
        "mark tasks in_progress and completed with TaskUpdate as you go."
    )
    schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "subject": {"type": "string", "description": "A brief title"},
            "description": {"type": "string", "description": "What needs to be done"},
            "activeForm": {
                "type": "string",
                "description": "Present continuous form, shown while in progress",
            },
            "metadata": {"type": "object"},
        },
        "required": ["subject", "description"],
        "additionalProperties": False,
    }

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        item = await _store(ctx).create(input)
        return ToolResult(
            f"Task #{item.id} created successfully: {item.subject}",
            data={"task": {"id": item.id, "subject": item.subject}},
        )


class TaskGetTool(_TaskTool):
    name: ClassVar[str] = "TaskGet"
    description: ClassVar[str] = "Read one task of the session's task list by id."
    schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"taskId": {"type": "string"}},
        "required": ["taskId"],
        "additionalProperties": False,
    }

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        item = _store(ctx).get(input["taskId"])
        return ToolResult(json.dumps(asdict(item), indent=1), data={"task": asdict(item)})


class TaskListTool(_TaskTool):
    name: ClassVar[str] = "TaskList"
    description: ClassVar[str] = "List the session's tasks with their status, owner and blockers."
    schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}, "additionalProperties": False}

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        items = list(_store(ctx).items.values())
        if not items:
            return ToolResult("No tasks found", data={"tasks": []})
        lines = [
            f"#{t.id} [{t.status}] {t.subject}"
            + (f" (owner: {t.owner})" if t.owner else "")
            + (f" (blocked by {', '.join('#' + b for b in t.blockedBy)})" if t.blockedBy else "")
            for t in items
        ]
        return ToolResult("\n".join(lines), data={"tasks": [asdict(t) for t in items]})


class TaskUpdateTool(_TaskTool):
    name: ClassVar[str] = "TaskUpdate"
    description: ClassVar[str] = (
        "Update a task: its status (pending, in_progress, completed, deleted), subject, description, owner "
        "or dependencies."
    )
    schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "taskId": {"type": "string"},
            "subject": {"type": "string"},
            "description": {"type": "string"},
            "activeForm": {"type": "string"},
            "status": {"type": "string", "enum": STATUSES},
            "addBlocks": {"type": "array", "items": {"type": "string"}},
            "addBlockedBy": {"type": "array", "items": {"type": "string"}},
            "owner": {"type": "string"},
            "metadata": {"type": "object"},
        },
        "required": ["taskId"],
        "additionalProperties": False,
    }

    async def run(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        item = await _store(ctx).update(input)
        return ToolResult(f"Updated task #{item.id} {item.status}", data={"success": True, "taskId": item.id})
