"""What background hooks say after the moment they were started for: queued until the front-end takes them
(`take`) or the next announcement that can carry them (`deliver`): context on the next prompt or tool
result, a wake-up on the next tool result or Stop, user lines on any of those."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from yoke.hooks.outcome import from_json
from yoke.hooks.runners import HookRun, is_async_answer
from yoke.jsonsafe import loads as safe_json
from yoke.loop.lifecycle import LifecycleOutcome

# Where a background hook's later message can reach the session (see `BackgroundMessages.deliver`).
DELIVERED_AT: dict[str, frozenset[str]] = {
    "context": frozenset({"UserPromptSubmit", "PostToolUse", "PostToolUseFailure"}),
    "rewake": frozenset({"PostToolUse", "PostToolUseFailure", "Stop"}),
    "system": frozenset({"UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop"}),
}


@dataclass(slots=True)
class AsyncHookMessage:
    """Something a background hook said after the moment it was started for.

    kind: "rewake" (it exited 2: the model should be woken with `text` as a system reminder), "context"
    (additionalContext for the model's next turn) or "system" (a line for the user)."""

    kind: str
    text: str
    hook_name: str
    event: str


class BackgroundMessages:
    def __init__(self) -> None:
        self.pending: list[AsyncHookMessage] = []
        self.ready = asyncio.Event()  # set while messages wait

    def queue_answer(self, run: HookRun, cap: Callable[[str, str], str]) -> None:
        """What a background hook printed or exited with, once it finished."""
        stdout = without_async_marker(run.stdout)
        if run.exit_code == 2:
            text = cap(run.stderr.strip() or stdout.strip(), f"{run.hook_name} hook message")
            self.queue(
                AsyncHookMessage(
                    "rewake", text or f"{run.hook_name} hook exited with status 2", run.hook_name, run.event
                )
            )
            return
        output = last_json_object(stdout)
        if output is None:
            return
        answer = from_json(output, run.event, cap)
        if answer.additional_context:
            self.queue(AsyncHookMessage("context", answer.additional_context, run.hook_name, run.event))
        if answer.system_message:
            self.queue(AsyncHookMessage("system", answer.system_message, run.hook_name, run.event))

    def queue(self, message: AsyncHookMessage) -> None:
        self.pending.append(message)
        self.ready.set()

    def waiting_for(self, event: str) -> bool:
        return any(event in DELIVERED_AT[m.kind] for m in self.pending)

    def deliver(self, event: str) -> LifecycleOutcome | None:
        """Background hooks' messages not taken by the front-end ride on the next announcement that can
        carry them: context on the next prompt or tool result, a wake-up on the next tool result or Stop
        (where it keeps the model going, as a blocking Stop hook does), user lines on any of those."""
        ready = [m for m in self.pending if event in DELIVERED_AT[m.kind]]
        if not ready:
            return None
        self.pending = [m for m in self.pending if m not in ready]
        if not self.pending:
            self.ready.clear()
        out = LifecycleOutcome()
        wake = [m.text for m in ready if m.kind == "rewake"]
        context = [m.text for m in ready if m.kind == "context"]
        if wake and event == "Stop":
            out.block, out.reason = True, "\n".join(wake)
        else:
            context = wake + context
        out.additional_context = "\n".join(context)
        out.system_message = "\n".join(m.text for m in ready if m.kind == "system")
        return out

    def take(self) -> list[AsyncHookMessage]:
        out, self.pending = self.pending, []
        self.ready.clear()
        return out


def without_async_marker(stdout: str) -> str:
    first, _, rest = stdout.partition("\n")
    return rest if is_async_answer(first.encode()) else stdout


def last_json_object(text: str) -> dict[str, Any] | None:
    stripped = text.strip()
    if not stripped:
        return None
    try:
        value = safe_json(stripped)
        return value if isinstance(value, dict) else None
    except ValueError:
        pass
    for line in reversed(stripped.splitlines()):
        try:
            value = safe_json(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None
