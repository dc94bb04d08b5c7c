"""TodoWrite: replaces the list, validates statuses, stores it in the session and publishes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from yoke.events import TodosChanged
from yoke.tools.base import SessionState, ToolContext
from yoke.tools.builtin.todo import TodoWriteInput, TodoWriteTool


def make_ctx(tmp_path: Path, emit=None) -> ToolContext:
    return ToolContext(cwd=tmp_path, session=SessionState("s", tmp_path / "s"), emit=emit)


def todo(content: str, status: str) -> dict:
    return {"content": content, "status": status, "activeForm": f"{content}ing"}


async def write(ctx: ToolContext, todos: list[dict]):
    return await TodoWriteTool().run(TodoWriteInput.model_validate({"todos": todos}), ctx)


async def test_replaces_list_and_reports_old_and_new(tmp_path):
    events = []
    ctx = make_ctx(tmp_path, emit=events.append)
    first = [todo("Build", "in_progress"), todo("Test", "pending")]
    result = await write(ctx, first)
    assert result.content.startswith("Todos have been modified successfully.")
    assert result.data == {"oldTodos": [], "newTodos": first}
    assert ctx.session.services.todos == first
    second = [todo("Build", "completed"), todo("Test", "in_progress")]
    result = await write(ctx, second)
    assert result.data["oldTodos"] == first and result.data["newTodos"] == second
    assert events == [TodosChanged(first), TodosChanged(second)]


async def test_all_completed_clears_stored_list(tmp_path):
    ctx = make_ctx(tmp_path)
    done = [todo("Build", "completed")]
    result = await write(ctx, done)
    assert result.data["newTodos"] == done
    assert ctx.session.services.todos == []


async def test_works_without_emit(tmp_path):
    ctx = make_ctx(tmp_path)
    await write(ctx, [todo("Build", "pending")])
    assert ctx.session.services.todos[0]["content"] == "Build"


def test_statuses_and_fields_are_validated():
    with pytest.raises(ValidationError):
        TodoWriteInput.model_validate({"todos": [todo("Build", "done")]})
    with pytest.raises(ValidationError):
        TodoWriteInput.model_validate({"todos": [{"content": "Build", "status": "pending"}]})
    with pytest.raises(ValidationError):
        TodoWriteInput.model_validate({"todos": [todo("", "pending")]})
    legacy = {
        "content": "Build",
        "status": "pending",
        "activeForm": "Building",
        "id": "1",
        "priority": "high",
    }
    assert TodoWriteInput.model_validate({"todos": [legacy]}).todos[0].model_dump()["priority"] == "high"
