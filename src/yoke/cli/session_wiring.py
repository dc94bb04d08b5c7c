"""How a headless session's parts are connected: checkpoints before file changes, nested memory files after
reads, the todo list into the transcript, and the compactor into the loop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.loop import events as ev
from yoke.loop.turn import Agent

PATH_KEYS = ("file_path", "notebook_path")


def _input_path(ctx_cwd: Path, input: dict[str, Any]) -> Path | None:
    for key in PATH_KEYS:
        value = input.get(key)
        if isinstance(value, str) and value:
            path = Path(value).expanduser()
            return path if path.is_absolute() else ctx_cwd / path
    return None


def checkpointer(session_dir: Path, recorder: Any, cwd: Path) -> Any:
    """Before a file-changing call, keep the file's prior content so `yoke rewind` can restore it."""
    from yoke.session.checkpoints import Checkpoints

    checkpoints = Checkpoints(session_dir)

    def snapshot(tool: Any, input: dict[str, Any]) -> None:
        path = _input_path(cwd, input)
        if path is None or recorder.last_prompt_uuid is None:
            return
        try:
            checkpoints.snapshot(path, recorder.last_prompt_uuid)
        except (OSError, ValueError):
            pass  # a checkpoint that cannot be taken must not block the edit

    return snapshot


def todo_recorder(recorder: Any, pending: list) -> Any:
    """Tools publish events through ctx.emit: the todo list goes to the transcript (so resume keeps it) and,
    as a TodosChanged event, to the front-end."""

    def emit(event: Any) -> None:
        if isinstance(event, ev.TodosChanged):
            recorder.todos(list(event.todos))
        pending.append(event)

    return emit


def nested_memory(memory: Any) -> Any:
    """Reading or editing a file under a folder with its own CLAUDE.md brings that file into context."""
    from yoke.memory import memory_reminder

    def annotate(tool: Any, input: dict[str, Any]) -> str | None:
        if tool.name not in ("Read", "Edit", "MultiEdit", "Write", "NotebookEdit"):
            return None
        path = _input_path(memory.cwd, input)
        if path is None:
            return None
        files = memory.memory_for_path(path)
        return memory_reminder(files) if files else None

    return annotate


def attach_compactor(agent: Agent, model: str, session_dir: Path, memory: Any) -> None:
    """Connect the context package's compactor to the loop's prepare / prompt-too-long hooks."""
    import json

    from yoke.context.compaction import Compactor
    from yoke.loop.summarize import make_summarizer

    state = agent.executor.ctx.session
    tools_json = json.dumps([spec.input_schema for spec in agent.executor.registry.specs()])
    overhead = (sum(len(b.get("text", "")) for b in agent.system) + len(tools_json)) // 4

    def recent_files() -> list[Path]:
        return [Path(p) for p in reversed(list(state.read_files))]

    compactor = Compactor(
        model=model,
        summarize=make_summarizer(agent),
        session_dir=session_dir,
        overhead_tokens=overhead,
        recent_files=recent_files,
        todos=lambda: list(state.extras.get("todos") or []),
        memory_files=lambda: list(memory.later),
    )

    def record(boundaries: list, trigger: str) -> None:
        for boundary in boundaries:
            agent.recorder.system(boundary)
            meta = boundary.get("compactMetadata") or {}
            agent.pending.append(ev.Compacted(meta.get("trigger", trigger), int(meta.get("preTokens", 0))))

    async def prepare(messages: list) -> list:
        result = await compactor.prepare(messages, agent.last_usage)
        record(result.boundaries, "auto")
        return result.messages

    async def on_prompt_too_long(messages: list) -> list | None:
        result = await compactor.on_prompt_too_long(messages)
        if result is None:
            return None
        record(result.boundaries, "auto")
        return result.messages

    async def compact_now(messages: list, instructions: str | None) -> list:
        result = await compactor.compact(messages, instructions)  # raises CompactionError (a RuntimeError)
        record(result.boundaries, "manual")
        return result.messages

    agent.prepare = prepare
    agent.on_prompt_too_long = on_prompt_too_long
    agent.compact_now = compact_now
