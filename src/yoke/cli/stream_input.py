"""`--input-format stream-json`: the bidirectional NDJSON protocol the Claude Agent SDKs speak.

stdin carries user messages and control frames; stdout carries the stream-json messages plus control frames
of our own (`can_use_tool` when launched with `--permission-prompt-tool stdio`). Each user message runs one
query; the session ends at EOF once the running query is done.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from typing import Any

from yoke.permissions.gate import Answer, NoAsker, PermissionQuestion

SERVER_MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")


class ControlChannel:
    """Pairs our control requests with the client's responses, and answers the client's requests."""

    def __init__(self, write: Any):
        self.write = write
        self.pending: dict[str, asyncio.Future] = {}

    async def request(self, payload: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        request_id = str(uuid.uuid4())
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        self.write({"type": "control_request", "request_id": request_id, "request": payload})
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self.pending.pop(request_id, None)

    def resolve(self, response: dict[str, Any]) -> None:
        future = self.pending.get(response.get("request_id", ""))
        if future is None or future.done():
            return
        if response.get("subtype") == "error":
            future.set_exception(RuntimeError(str(response.get("error") or "control request failed")))
        else:
            future.set_result(response.get("response") or {})


class StdioAsker(NoAsker):
    """Permission prompts go to the SDK client as `can_use_tool` control requests."""

    def __init__(self, channel: ControlChannel, gate: Any = None):
        self.channel = channel
        self.gate = gate  # applies the permission updates an answer carries ("always allow", mode changes)

    async def ask(self, question: PermissionQuestion) -> Answer:
        try:
            reply = await self.channel.request(
                {
                    "subtype": "can_use_tool",
                    "tool_name": question.tool_name,
                    "input": question.input,
                    "permission_suggestions": question.suggestions,
                    "tool_use_id": question.tool_use_id,
                    "decision_reason": question.reason,
                }
            )
        except (RuntimeError, TimeoutError) as exc:
            return Answer("deny", f"Permission request failed: {exc}")
        if reply.get("behavior") == "allow":
            self._apply_updates(reply.get("updatedPermissions"))
            updated = reply.get("updatedInput")
            return Answer("allow", updated_input=updated if isinstance(updated, dict) else None)
        return Answer(
            "deny", str(reply.get("message") or "Denied by the user."), interrupt=bool(reply.get("interrupt"))
        )

    def _apply_updates(self, updates: Any) -> None:
        apply = getattr(self.gate, "apply_update", None)
        if not callable(apply) or not isinstance(updates, list):
            return
        for update in updates:
            try:
                apply(update)
            except (ValueError, OSError) as exc:
                print(f"yoke: warning: permission update not applied: {exc}", file=sys.stderr)


async def serve_stream_json(session: Any) -> bool:
    """Run queries from stdin until EOF. Returns True when the last result was an error."""
    printer = session.printer
    emit = printer.emit  # StreamJsonPrinter: one flushed line per object
    channel = ControlChannel(emit)
    if getattr(session, "permission_prompt_tool", None) == "stdio":
        session.tool_ctx.asker = StdioAsker(channel, session.agent.executor.gate)
    queue: asyncio.Queue = asyncio.Queue()
    reader = asyncio.get_running_loop().create_task(_read_stdin(queue, channel, session, emit))
    last_error = False
    try:
        while True:
            message = await queue.get()
            if message is None:
                break
            content = message.get("message", {}).get("content", "")
            if not content:
                continue
            result = await session.run(content)
            last_error = result is None or result.is_error
    finally:
        reader.cancel()
    return last_error


async def _read_stdin(queue: asyncio.Queue, channel: ControlChannel, session: Any, emit: Any) -> None:
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            queue.put_nowait(None)
            return
        line = line.strip()
        if not line:
            continue
        try:
            frame = json.loads(line)
        except ValueError:
            print(f"yoke: ignoring a stdin line that is not JSON: {line[:80]}", file=sys.stderr)
            continue
        kind = frame.get("type")
        if kind == "user":
            queue.put_nowait(frame)
        elif kind == "control_response":
            channel.resolve(frame.get("response") or {})
        elif kind == "control_request":
            emit(_answer_control(frame, session))
        elif kind == "control_cancel_request":
            continue


def _answer_control(frame: dict[str, Any], session: Any) -> dict[str, Any]:
    request_id = frame.get("request_id", "")
    request = frame.get("request") or {}
    subtype = request.get("subtype")
    try:
        response = _control_response(subtype, request, session)
    except ValueError as exc:
        return {
            "type": "control_response",
            "response": {"subtype": "error", "request_id": request_id, "error": str(exc)},
        }
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response},
    }


def _control_response(subtype: str | None, request: dict[str, Any], session: Any) -> dict[str, Any]:
    from yoke import __version__
    from yoke.cli.printers import COMPAT_VERSION

    if subtype == "initialize":
        return {
            "commands": [],
            "agents": [],
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": [],
            "account": {"apiKeySource": session.printer.init_extra.get("apiKeySource", "none")},
            "claude_code_version": COMPAT_VERSION,
            "yoke_version": __version__,
        }
    if subtype == "interrupt":
        session.agent.interrupt()
        return {}
    if subtype == "set_permission_mode":
        mode = request.get("mode")
        if mode not in SERVER_MODES:
            raise ValueError(f"unknown permission mode {mode!r}")
        gate = session.agent.executor.gate
        setter = getattr(gate, "set_mode", None)
        if callable(setter):
            setter(mode)
        else:
            gate.mode = mode
        return {}
    if subtype == "set_model":
        model = request.get("model")
        if model and model != "default":
            session.agent.settings.model = model
        return {}
    if subtype == "mcp_status":
        return {"mcpServers": []}
    raise ValueError(f"Unsupported control request subtype: {subtype}")
