"""The session's collaborators: checkpoints before file changes, nested memory files after reads and edits,
and the compactor with its PreCompact/PostCompact announcements. Each is an ordinary object the session
builds and hands to the loop; nothing is assigned into the loop from outside."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.tools.base import Tool, ToolContext

if TYPE_CHECKING:
    from yoke.loop.lifecycle import Lifecycle
    from yoke.loop.turn import Agent
    from yoke.memory.files import MemoryIndex
    from yoke.session.recorder import Recorder


def _touched(tool: Tool, input: dict[str, Any], cwd: Path) -> Path | None:
    for raw in tool.paths(input):
        path = Path(raw).expanduser()
        return path if path.is_absolute() else cwd / path
    return None


class Checkpointer:
    """Before a turn's first change (any tool that is not read-only: Bash, MCP, sub-agents too) snapshot the
    whole tree, and before a file-changing call keep the file's prior content, so `/rewind` can restore
    them; when the turn ends, snapshot the tree again (what the session left: a later rewind tells the
    user's own edits from it). A turn that changes nothing costs nothing."""

    def __init__(
        self,
        session_dir: Path,
        recorder: Recorder,
        cwd: Path | None = None,
        say: Callable[[Any], None] | None = None,
    ):
        from yoke.session.checkpoints import Checkpoints

        self.checkpoints = Checkpoints(session_dir, cwd)
        self.recorder = recorder
        self.say = say  # a warning for the user, shown with the running query's events
        self.skipped: set[str] = set()  # too large to snapshot, already noted in the transcript
        recorder.on_result.append(self.turn_ended)

    def before_change(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> None:
        uuid = self.recorder.last_prompt_uuid
        if uuid is None:
            return
        self._tree(uuid, "start")
        if tool.kind not in ("edit", "delete", "move"):
            return
        path = _touched(tool, input, ctx.cwd)
        if path is None:
            return
        try:
            self.checkpoints.snapshot(path, uuid)
        except (OSError, ValueError):
            pass  # a checkpoint that cannot be taken must not block the edit

    def turn_ended(self) -> None:
        if self.recorder.last_prompt_uuid is not None:
            self._tree(self.recorder.last_prompt_uuid, "end")

    def _tree(self, uuid: str, phase: str) -> None:
        # TreeError is a ValueError (not imported: a -p that changes nothing never imports the tree store);
        # a checkpoint that cannot be taken must not block the work
        try:
            snap = self.checkpoints.snapshot_tree(uuid, phase)
        except (OSError, ValueError):
            return
        new = [p for p in (snap.skipped if snap is not None else []) if p not in self.skipped]
        if new:  # noted once in the transcript; a rewind lists them again
            self.skipped.update(new)
            shown = ", ".join(new[:5]) + (f" and {len(new) - 5} more" if len(new) > 5 else "")
            text = f"Checkpoint: {len(new)} large file(s) not snapshotted (a rewind leaves them as they are): {shown}"
            self.recorder.notice("checkpoint", text)
            if self.say is not None:
                from yoke import events as ev

                self.say(ev.Notice("warning", text))

    def after_success(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> str | None:
        return None


class NestedMemory:
    """Reading or editing a file under a folder with its own CLAUDE.md brings that file into context."""

    def __init__(self, memory: MemoryIndex):
        self.memory = memory

    def before_change(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> None:
        return None

    def after_success(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> str | None:
        if tool.kind not in ("read", "edit"):
            return None
        path = _touched(tool, input, self.memory.cwd)
        if path is None:
            return None
        from yoke.memory import memory_reminder

        files = self.memory.memory_for_path(path)
        return memory_reminder(files) if files else None


def make_compactor(agent: Agent, model: str, session_dir: Path, memory: MemoryIndex, env: Any) -> Any:
    """The context package's compactor, summarizing with the session's own provider, announcing
    PreCompact before a summary and PostCompact after it."""
    import json

    from yoke.context.compaction import Compactor
    from yoke.loop.summarize import make_summarizer

    state = agent.executor.ctx.session
    registry, transcript = agent.executor.registry, agent.recorder.transcript.path

    def offer_recall() -> None:  # imported when needed: the tool's module brings pydantic
        from yoke.session.history_recall import offer_recall

        offer_recall(registry, transcript, session_dir)

    if _compacted_before(transcript):  # a resumed session whose turns were dropped: Recall from the start
        offer_recall()
    tools_json = json.dumps([spec.input_schema for spec in agent.executor.registry.specs()])
    overhead = (sum(len(b.get("text", "")) for b in agent.system) + len(tools_json)) // 4
    lifecycle = agent.lifecycle
    return Compactor(
        model=model,
        summarize=make_summarizer(agent),
        session_dir=session_dir,
        env=env,
        overhead_tokens=overhead,
        recent_files=lambda: [Path(p) for p in reversed(list(state.read_files))],
        todos=lambda: list(state.services.todos),
        memory_files=lambda: list(memory.later),
        pre_compact=_pre_compact(lifecycle),
        post_compact=_post_compact(lifecycle),
        locate=agent.recorder.locate,  # the ledger's transcript ranges
        compacted=offer_recall,  # the dropped turns come back
    )


def _compacted_before(transcript: Path) -> bool:
    try:
        with open(transcript, "rb") as fh:
            return any(b'"keptMessages"' in line and b'"compact_boundary"' in line for line in fh)
    except OSError:
        return False


def _pre_compact(lifecycle: Lifecycle) -> Any:
    async def pre_compact(trigger: str, instructions: str | None) -> str | None:
        out = await lifecycle.announce("PreCompact", trigger=trigger, custom_instructions=instructions or "")
        if out.block or out.stop:
            from yoke.context.compaction import CompactionError

            raise CompactionError(out.reason or out.stop_reason or "A PreCompact hook blocked compaction.")
        return out.additional_context or None

    return pre_compact


def _post_compact(lifecycle: Lifecycle) -> Any:
    async def post_compact(trigger: str) -> str | None:
        await lifecycle.announce("PostCompact", trigger=trigger, compact_summary="")
        start = await lifecycle.announce("SessionStart", source="compact")
        return start.additional_context or None

    return post_compact
