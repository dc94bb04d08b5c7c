"""The answers to stream-json control requests (`control_request` frames on stdin): initialize, interrupt,
set_permission_mode, set_model, the MCP server requests, context usage, rewind_files and stop_task. Each
request is answered by a `control_response` frame; `cli/stream_input.py` reads the frames and calls these."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from yoke.jsonsafe import dict_at

SERVER_MODES = ("default", "manual", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions")
MCP_CONTROL = ("mcp_reconnect", "mcp_toggle")


def answer_later(run: Any, work: Any) -> None:
    """Answer a control request in its own task; at EOF the session waits for it (bounded)."""
    task = asyncio.ensure_future(work)
    pending = run.__dict__.setdefault("pending_controls", set())
    pending.add(task)
    task.add_done_callback(pending.discard)


async def answer_set_model(frame: dict[str, Any], request: dict[str, Any], run: Any, emit: Any) -> None:
    """`set_model {model}`: the switch, with PreModelSwitch and PostModelSwitch hooks around it."""
    request_id = frame.get("request_id", "")
    model = request.get("model")
    refusal = ""
    try:
        if model and model != "default":
            refusal = await run.core.switch_model(model, "sdk")
    except ValueError as exc:
        refusal = str(exc)
    if refusal:
        response = {"subtype": "error", "request_id": request_id, "error": refusal}
    else:
        # the model now in use, as 2.1.330 answers
        response = {"subtype": "success", "request_id": request_id, "response": {"model": run.core.model}}
    emit({"type": "control_response", "response": response})


async def answer_mcp_control(frame: dict[str, Any], request: dict[str, Any], run: Any, emit: Any) -> None:
    """`mcp_reconnect {serverName}` and `mcp_toggle {serverName, enabled}` on the session's MCP servers."""
    request_id = frame.get("request_id", "")
    name = request.get("serverName")
    try:
        if not isinstance(name, str) or not name:
            raise KeyError(f"{request.get('subtype')} needs serverName")
        if request.get("subtype") == "mcp_reconnect":
            await run.core.mcp_reconnect(name)
        else:
            await run.core.mcp_set_enabled(name, bool(request.get("enabled", True)))
        response = {"subtype": "success", "request_id": request_id, "response": {}}
    except KeyError as exc:
        response = {
            "subtype": "error",
            "request_id": request_id,
            "error": str(exc.args[0] if exc.args else exc),
        }
    emit({"type": "control_response", "response": response})


def answer_control(frame: dict[str, Any], run: Any, channel: Any = None) -> dict[str, Any]:
    """The `control_response` frame to a request answered at once: success with its answer, or its error."""
    request_id = frame.get("request_id", "")
    request = dict_at(frame, "request")
    subtype = request.get("subtype")
    try:
        response = control_response(subtype, request, run, channel)
    except ValueError as exc:
        return {
            "type": "control_response",
            "response": {"subtype": "error", "request_id": request_id, "error": str(exc)},
        }
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response},
    }


def hook_callback(channel: Any) -> Any:
    """An SDK hook callback answered over the control protocol: a `hook_callback` request, its hook output."""

    async def call(callback_id: str, data: dict[str, Any], tool_use_id: str | None) -> dict[str, Any] | None:
        request = {"subtype": "hook_callback", "callback_id": callback_id, "input": data}
        if tool_use_id:
            request["tool_use_id"] = tool_use_id
        return await channel.request(request)

    return call


def control_response(
    subtype: str | None, request: dict[str, Any], run: Any, channel: Any = None
) -> dict[str, Any]:
    from yoke import __version__
    from yoke.wire.shapes import COMPAT_VERSION

    if subtype == "initialize":
        if request.get("hooks") and channel is not None:
            from yoke.session.wiring import attach_control_hooks  # the client's callbacks (docs/hooks.md)

            for warning in attach_control_hooks(run.core, request["hooks"], hook_callback(channel)):
                print(f"yoke: warning: {warning}", file=sys.stderr)
        return {
            "hook_on_failure_supported": True,
            "commands": [],
            "agents": [],
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": [],
            "account": {"apiKeySource": getattr(run.printer, "init_extra", {}).get("apiKeySource", "none")},
            "claude_code_version": COMPAT_VERSION,
            "yoke_version": __version__,
        }
    session = run.core
    if subtype == "interrupt":
        session.interrupt()
        return {}
    if subtype == "set_permission_mode":
        mode = request.get("mode")
        if mode not in SERVER_MODES:
            raise ValueError(f"unknown permission mode {mode!r}")
        session.set_permission_mode(mode)
        return {}
    if subtype == "get_context_usage":
        return session.context_usage()
    if subtype == "rewind_files":
        message_id = request.get("user_message_id")
        undo = request.get("undo") is True  # Yoke's: put back what the latest rewind replaced
        if not undo and (not isinstance(message_id, str) or not message_id):
            raise ValueError("rewind_files needs user_message_id")
        on_conflict = request.get("on_conflict", "refuse")  # Yoke's: files changed outside the session
        if on_conflict not in ("refuse", "keep", "overwrite"):
            raise ValueError("on_conflict is one of refuse, keep, overwrite")
        restored = session.rewind_files(str(message_id or ""), on_conflict=on_conflict, undo=undo)
        return {"restored": [str(p) for p in restored]}
    if subtype == "stop_task":
        if not session.stop_task(str(request.get("task_id") or "")):
            raise ValueError(f"no running task {request.get('task_id')!r}")
        return {}
    if subtype == "mcp_status":
        return {"mcpServers": session.mcp_servers()}
    if subtype == "yoke_describe":  # the session port's Describe, for the host's clients (docs/wire.md)
        return {"items": session.describe(str(request.get("what") or ""))}
    raise ValueError(f"Unsupported control request subtype: {subtype}")
