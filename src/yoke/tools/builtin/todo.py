"""TodoWrite: the session's task list, replaced whole on each call and published to front-ends."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from yoke.events import TodosChanged
from yoke.tools.base import Tool, ToolContext, ToolKind, ToolResult
from yoke.tools.schema import ToolInput

DESCRIPTION = """\
Keeps a structured task list for the current session, which the user can see. Each call replaces the whole \
list, so send every item each time.

Use it for work with several steps (three or more), for tasks the user lists, and when new requirements come \
up mid-task; skip it for a single quick change or a question.
- Each item has `content` (imperative: "Run the tests"), `activeForm` (present continuous, shown while it is \
being worked on: "Running the tests") and `status`: pending, in_progress or completed.
- Keep exactly one item in_progress while you work. Mark an item completed as soon as it is done (not in \
batches later), and only when it is fully done: tests pass, nothing left unfinished. If you are blocked, \
keep it in_progress and add an item for what must be resolved.
- Remove items that no longer apply; add new ones as you discover them.\
"""


class TodoItem(ToolInput):
    model_config = ConfigDict(extra="allow")  # 1.0.x items also carried id and priority

    content: str = Field(min_length=1, description="What to do, in the imperative")
    status: Literal["pending", "in_progress", "completed"]
    activeForm: str = Field(min_length=1, description="The same task in present continuous form")


class TodoWriteInput(ToolInput):
    todos: list[TodoItem] = Field(description="The whole updated todo list")


class TodoWriteTool(Tool):
    name: ClassVar[str] = "TodoWrite"
    kind: ClassVar[ToolKind] = "think"
    description: ClassVar[str] = DESCRIPTION
    input_model: ClassVar[type[BaseModel]] = TodoWriteInput

    async def run(self, input: TodoWriteInput, ctx: ToolContext) -> ToolResult:
        old = list(ctx.session.services.todos)
        new = [item.model_dump() for item in input.todos]
        # A finished list is cleared, so the next piece of work starts from an empty one.
        ctx.session.services.todos = [] if new and all(t["status"] == "completed" for t in new) else new
        if ctx.emit is not None:
            ctx.emit(TodosChanged(list(ctx.session.services.todos)))  # front-ends show it
        text = (
            "Todos have been modified successfully. Keep using the todo list to track your progress, "
            "and go on with the current task if there is one."
        )
        return ToolResult(text, data={"oldTodos": old, "newTodos": new})
