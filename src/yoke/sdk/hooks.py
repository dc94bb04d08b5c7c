"""The SDK's Python hook callbacks (`hooks={"PreToolUse": [HookMatcher(matcher, [callback])]}`), answered
in process through the same listener and output rules as hooks from settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def sdk_hook_listener(hooks: dict[str, list[Any]], cwd: Path) -> Any:
    from yoke.session.wiring import callback_listener

    return callback_listener(
        cwd,
        (
            (event, matcher.matcher or "", _wire_names(callback), matcher.timeout)
            for event, matchers in hooks.items()
            for matcher in matchers
            for callback in matcher.hooks
        ),
    )


def _wire_names(callback: Any) -> Any:
    """Python can't name a field `async` or `continue`; the SDK spells them `async_` / `continue_`."""

    async def call(data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any] | None:
        output = await callback(data, tool_use_id, {"signal": None})
        if not isinstance(output, dict):
            return output
        renamed = {"async_": "async", "continue_": "continue"}
        return {renamed.get(key) or key: value for key, value in output.items()}

    return call
