"""The lifecycle seam: the one place where the session announces what it is doing.

The loop, the tool executor and the session announce each moment of Claude Code's hook catalogue (`announce`
with the event's name and its own payload fields); listeners (command/HTTP/prompt hooks from settings, the
SDK's Python callbacks, Yoke's own collaborators) answer with a `LifecycleOutcome`. Several listeners'
answers merge into one outcome with the strictest decision winning. Nothing in the loop knows who listens.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

from yoke.records import Record

# Claude Code's hook events (the reference's §1.3), in the order a session meets them.
HOOK_EVENTS: tuple[str, ...] = (
    "SessionStart",
    "InstructionsLoaded",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "Stop",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "ConfigChange",
    "Elicitation",
    "ElicitationResult",
    "SessionEnd",
)

PermissionVerdict = Literal["allow", "deny", "ask", "defer"]
_STRICTNESS = {"deny": 4, "defer": 3, "ask": 2, "allow": 1}


class LifecycleOutcome(Record):
    """Everything a listener may answer. Empty (the default) means "carry on as you were".

    decision: PreToolUse / PermissionRequest verdict (allow, deny, ask, defer), with `reason`.
    block: `decision: "block"` (UserPromptSubmit rejects the prompt; Stop/SubagentStop keep going with
        `reason` as feedback; PostToolUse shows `reason` to the model).
    stop: `"continue": false`, ending the query with `stop_reason`.
    updated_input: a rewritten tool input (PreToolUse, PermissionRequest).
    updated_output: a replaced tool output (PostToolUse `updatedToolOutput` / `updatedMCPToolOutput`).
    additional_context: text added for the model (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse...).
    system_message: a line shown to the user. suppress_output: hide the hook's stdout from the transcript view.
    extras: event-specific answers with no field of their own (initialUserMessage, sessionTitle, watchPaths,
        updatedPermissions, elicitation action/content, worktreePath, ...), camelCase keys as Claude Code
        names them.
    """

    __slots__ = (
        "decision",
        "reason",
        "block",
        "stop",
        "stop_reason",
        "updated_input",
        "updated_output",
        "additional_context",
        "system_message",
        "suppress_output",
        "extras",
    )

    decision: PermissionVerdict | None
    reason: str
    block: bool
    stop: bool
    stop_reason: str
    updated_input: dict[str, Any] | None
    updated_output: Any
    additional_context: str
    system_message: str
    suppress_output: bool
    extras: dict[str, Any]

    @property
    def empty(self) -> bool:
        return self == LifecycleOutcome()

    def __init__(
        self,
        decision: PermissionVerdict | None = None,
        reason: str = "",
        block: bool = False,
        stop: bool = False,
        stop_reason: str = "",
        updated_input: dict[str, Any] | None = None,
        updated_output: Any = None,
        additional_context: str = "",
        system_message: str = "",
        suppress_output: bool = False,
        extras: dict[str, Any] | None = None,
    ) -> None:
        self.decision = decision
        self.reason = reason
        self.block = block
        self.stop = stop
        self.stop_reason = stop_reason
        self.updated_input = updated_input
        self.updated_output = updated_output
        self.additional_context = additional_context
        self.system_message = system_message
        self.suppress_output = suppress_output
        self.extras = {} if extras is None else extras


def merge_outcomes(outcomes: list[LifecycleOutcome]) -> LifecycleOutcome:
    """One outcome from several listeners': the strictest decision (deny > defer > ask > allow) with its
    reason, any block or stop, the last rewrite of input or output, contexts and messages joined."""
    merged = LifecycleOutcome()
    contexts: list[str] = []
    messages: list[str] = []
    reasons: list[str] = []
    for out in outcomes:
        if out.decision is not None and (
            merged.decision is None or _STRICTNESS[out.decision] > _STRICTNESS[merged.decision]
        ):
            merged.decision = out.decision
            merged.reason = out.reason
        elif out.decision is None and out.reason and (out.block or out.stop):
            reasons.append(out.reason)
        merged.block = merged.block or out.block
        if out.stop and not merged.stop:
            merged.stop = True
            merged.stop_reason = out.stop_reason
        if out.updated_input is not None:
            merged.updated_input = out.updated_input
        if out.updated_output is not None:
            merged.updated_output = out.updated_output
        if out.additional_context:
            contexts.append(out.additional_context)
        if out.system_message:
            messages.append(out.system_message)
        merged.suppress_output = merged.suppress_output or out.suppress_output
        merged.extras.update(out.extras)
    if merged.decision is None and reasons:
        merged.reason = "\n".join(reasons)
    merged.additional_context = "\n".join(contexts)
    merged.system_message = "\n".join(messages)
    return merged


class LifecycleListener(Protocol):
    """Something that answers lifecycle announcements: the hook runner, SDK callbacks, a collaborator."""

    def wants(self, event: str) -> bool:
        """Whether this listener has anything for `event` (lets the seam skip building payloads)."""
        ...

    async def announce(self, event: str, payload: dict[str, Any]) -> LifecycleOutcome: ...


class Lifecycle:
    """The seam itself. `common` supplies the fields every payload carries (session_id, transcript_path,
    cwd, permission_mode, and agent_id/agent_type inside a sub-agent), read at announcement time."""

    def __init__(self, common: Callable[[], dict[str, Any]] | None = None):
        self._listeners: list[LifecycleListener] = []
        self._common = common or dict

    def derive(self, **fields: Any) -> Lifecycle:
        """A lifecycle for a sub-agent: the same listeners (its own may be added), with `fields` (agent_id,
        agent_type) among the common fields."""
        base = self._common
        child = Lifecycle(lambda: {**base(), **fields})
        child._listeners = list(self._listeners)
        return child

    def add(self, listener: LifecycleListener) -> None:
        self._listeners.append(listener)

    def remove(self, listener: LifecycleListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def listeners(self) -> list[LifecycleListener]:
        return list(self._listeners)

    def wants(self, event: str) -> bool:
        return any(listener.wants(event) for listener in self._listeners)

    async def announce(self, event: str, **fields: Any) -> LifecycleOutcome:
        """Tell every interested listener that `event` happens now; their merged answer.

        A listener that raises is a bug in it, never a reason to end the session: its answer is dropped
        and the failure comes back as a system message the front-end shows."""
        interested = [listener for listener in self._listeners if listener.wants(event)]
        if not interested:
            return LifecycleOutcome()
        payload = {**self._common(), "hook_event_name": event, **fields}
        outcomes: list[LifecycleOutcome] = []
        for listener in interested:
            try:
                outcomes.append(await listener.announce(event, payload))
            except Exception as exc:
                name = type(listener).__name__
                outcomes.append(LifecycleOutcome(system_message=f"{event} listener {name} failed: {exc}"))
        return outcomes[0] if len(outcomes) == 1 else merge_outcomes(outcomes)
