"""SDK hooks as they arrive over the control protocol: the `initialize` request's `hooks` field.

`{"PreToolUse": [{"matcher": "Bash" | null, "hookCallbackIds": ["hook_0"], "timeout": 30,
"onFailure": "block"}]}`. Each callback id becomes a Python callback on the listener that asks the SDK
(`call(callback_id, input, tool_use_id)` sends the `hook_callback` control request and returns the
response's hook output).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from yoke.hooks.config import KNOWN_EVENTS
from yoke.hooks.listener import HookListener

SdkCall = Callable[[str, dict[str, Any], "str | None"], Awaitable[dict[str, Any] | None]]


def register_sdk_hooks(listener: HookListener, hooks: Any, call: SdkCall) -> list[str]:
    """Register every callback of an initialize request's `hooks`; returns warnings for what was skipped."""
    warnings: list[str] = []
    if not isinstance(hooks, dict):
        return ["initialize: `hooks` must be an object of event names; ignored"] if hooks else []
    for event, matchers in hooks.items():
        if event not in KNOWN_EVENTS or not isinstance(matchers, list):
            warnings.append(f"initialize: hooks for {event!r} skipped (unknown event or not a list)")
            continue
        for entry in matchers:
            if not isinstance(entry, dict):
                continue
            timeout = entry.get("timeout")
            timeout = float(timeout) if isinstance(timeout, int | float) and timeout > 0 else None
            for callback_id in entry.get("hookCallbackIds") or []:
                listener.register_callback(
                    event,
                    _forwarder(call, str(callback_id)),
                    matcher=str(entry.get("matcher") or ""),
                    timeout=timeout,
                    fail_closed=entry.get("onFailure") == "block",
                )
    return warnings


def _forwarder(call: SdkCall, callback_id: str) -> Callable[..., Awaitable[dict[str, Any] | None]]:
    async def forward(data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any] | None:
        return await call(callback_id, data, tool_use_id)

    forward.__qualname__ = f"sdk:{callback_id}"
    return forward
