"""The hooks seam the loop calls at the documented moments. The hooks issue supplies the real runner
(command hooks from settings, SDK callbacks); until then `NoHooks` keeps the call sites honest."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(slots=True, frozen=True)
class HookOutcome:
    stop: bool = False  # `"continue": false`: end the query now (termination reason hook_stopped)
    block: bool = False  # UserPromptSubmit: reject the prompt; Stop: keep going with `reason` as feedback
    reason: str = ""
    additional_context: str = ""


class HookRunner(Protocol):
    async def fire(self, event: str, payload: dict[str, Any]) -> HookOutcome: ...


class NoHooks:
    async def fire(self, event: str, payload: dict[str, Any]) -> HookOutcome:
        return HookOutcome()
