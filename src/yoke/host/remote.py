"""A hosted session seen from the terminal UI (`yoke attach`): the few things the UI asks of a session,
answered over the bridge. Stream-json messages become the events the UI renders; a permission prompt goes to
the UI's asker, and is withdrawn when another client answers it first."""

from __future__ import annotations

import asyncio
import contextlib
import json
from types import SimpleNamespace
from typing import Any, TypedDict, cast, get_args

from yoke import events as ev
from yoke.events import Usage
from yoke.host.paths import socket_path
from yoke.host.protocol import MAX_MESSAGE, REQUEST_TIMEOUT
from yoke.jsonsafe import loads
from yoke.messages import Message


class RemoteSession:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, record: dict, asker: Any):
        self.reader, self.writer, self.record, self.asker = reader, writer, record, asker
        self.id = record["sessionId"]
        self.model = str(record.get("model") or "")  # until the stream's system/init says
        self.profile: str | None = record.get("profile")  # the profile in force there, for the footer
        self.permission_mode = "default"
        self.started = SimpleNamespace(permission_mode="default")
        self.total_cost_usd = 0.0
        self.model_usage: dict[str, Any] = {}
        self.transcript_path = None
        self.env: dict[str, str] = {}
        self.warnings: list[str] = []
        self.messages: asyncio.Queue[dict[str, Any]] = asyncio.Queue()  # stream messages, in order
        self.replies: dict[str, asyncio.Future] = {}
        self.asking: dict[str, asyncio.Task] = {}  # permission prompts shown here, by request id
        self.count = 0
        self.pump = asyncio.get_running_loop().create_task(self._pump())

    @classmethod
    async def open(cls, record: dict, asker: Any) -> RemoteSession:
        reader, writer = await asyncio.open_unix_connection(str(socket_path()), limit=MAX_MESSAGE + 1)
        session = cls(reader, writer, record, asker)
        attached = await session.request("attach", {"session": record["id"], "role": "driver"})
        if not attached.get("driver"):
            session.warnings.append("another client drives this session: you can watch, answer and interrupt")
        for message in attached.get("pending") or []:
            session._ask(message)
        return session

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.count += 1
        ident = f"ui{self.count}"
        future = asyncio.get_running_loop().create_future()
        self.replies[ident] = future
        line = {"id": ident, "type": "request", "payload": {"method": method, "params": params}}
        self.writer.write((json.dumps(line) + "\n").encode())
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                return await future
        finally:
            self.replies.pop(ident, None)

    async def _pump(self) -> None:
        while line := await self.reader.readline():
            message = loads(line)
            payload = message.get("payload") or {}
            future = self.replies.get(message.get("id") or "")
            if future is not None and message.get("type") in ("response", "error") and not future.done():
                if message["type"] == "error":
                    future.set_exception(RuntimeError(str(payload.get("message"))))
                else:
                    future.set_result(payload)
            elif message.get("type") == "stream":
                self._observe(payload.get("message") or {})
        await self.messages.put(
            {"type": "result", "subtype": "error", "is_error": True, "result": "host gone"}
        )

    def _observe(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "control_request":
            self._ask(message)
            return
        if kind == "control_response":
            task = self.asking.pop(str((message.get("response") or {}).get("request_id")), None)
            if task is not None:
                task.cancel()  # answered by another client
            return
        self.messages.put_nowait(message)

    def _ask(self, message: dict[str, Any]) -> None:
        request = message.get("request") or {}
        if request.get("subtype") != "can_use_tool":
            return
        request_id = str(message.get("request_id"))
        self.asking[request_id] = asyncio.get_running_loop().create_task(self._answer(request_id, request))

    async def _answer(self, request_id: str, request: dict[str, Any]) -> None:
        from yoke.seams import PermissionQuestion

        question = PermissionQuestion(
            tool_name=str(request.get("tool_name")),
            input=dict(request.get("input") or {}),
            tool_use_id=str(request.get("tool_use_id") or ""),
            reason=str(request.get("decision_reason") or ""),
            suggestions=list(request.get("permission_suggestions") or []),
        )
        answer = await self.asker.ask(question)
        self.asking.pop(request_id, None)
        if answer.behavior == "allow":
            reply: dict[str, Any] = {"behavior": "allow"}
            if answer.updated_input is not None:
                reply["updatedInput"] = answer.updated_input
        else:
            reply = {
                "behavior": "deny",
                "message": answer.message or "Denied.",
                "interrupt": answer.interrupt,
            }
        with contextlib.suppress(RuntimeError):  # answered elsewhere meanwhile
            await self.request(
                "answer", {"session": self.record["id"], "request_id": request_id, "response": reply}
            )

    async def query(self, prompt: str):
        while not self.messages.empty():  # what others' turns left: not this turn's
            self.messages.get_nowait()
        try:
            await self.request("prompt", {"session": self.record["id"], "text": prompt})
        except (RuntimeError, TimeoutError) as exc:  # another client drives, or the session is gone
            yield ev.Notice("warning", str(exc))
            yield ev.Result("completed", False, "", 0, 0, 0, self.total_cost_usd, Usage(), {}, [])
            return
        streamed = False
        while True:
            message = await self.messages.get()
            for event in _events(self, message, streamed):
                yield event
            if message.get("type") == "stream_event":
                streamed = True
            elif message.get("type") == "assistant":
                streamed = False
            elif message.get("type") == "result":
                return

    def interrupt(self) -> None:
        asyncio.get_running_loop().create_task(self.request("interrupt", {"session": self.record["id"]}))

    async def close(self, reason: str = "") -> None:
        """Leave the session running."""
        for task in self.asking.values():
            task.cancel()
        with contextlib.suppress(Exception):
            await self.request("detach", {"session": self.record["id"]})
        self.pump.cancel()
        self.writer.close()

    def init_fields(self) -> dict[str, Any]:
        return {}

    def background_tasks(self) -> list[Any]:
        return []

    def permission_modes(self) -> list[str]:
        return [self.permission_mode]

    def set_permission_mode(self, mode: str) -> None:
        raise ValueError("the permission mode of a hosted session is set when it starts")

    async def slash_commands(self) -> list[dict[str, str]]:
        return []

    async def notify(self, message: str, notification_type: str, title: str = "") -> None:
        return None  # the hosted session runs its own Notification hooks


class _Where(TypedDict):
    """Which agent an event belongs to: the keyword arguments every agent event takes."""

    agent_id: str
    parent_tool_use_id: str | None


TERMINATION_REASONS: dict[str, ev.TerminationReason] = {
    reason: reason for reason in get_args(ev.TerminationReason)
}


def _events(session: RemoteSession, message: dict[str, Any], streamed: bool) -> list[Any]:
    kind = message.get("type")
    parent = message.get("parent_tool_use_id")
    where: _Where = {"agent_id": "sub" if parent else "main", "parent_tool_use_id": parent}
    if kind == "system" and message.get("subtype") == "init":
        session.model = str(message.get("model") or session.model)
        if isinstance(message.get("profile"), str):
            session.profile = message["profile"]
        session.permission_mode = str(message.get("permissionMode") or session.permission_mode)
        return []
    if kind == "stream_event":
        delta = (message.get("event") or {}).get("delta") or {}
        if delta.get("type") == "text_delta":
            return [ev.TextDelta(str(delta.get("text") or ""), **where)]
        if delta.get("type") == "thinking_delta":
            return [ev.ThinkingDelta(str(delta.get("thinking") or ""), **where)]
        return []
    if kind == "assistant":
        return _assistant_events(message, streamed, where)
    if kind == "user":
        content = (message.get("message") or {}).get("content")
        return (
            [
                ev.ToolResultEvent(
                    str(block.get("tool_use_id")),
                    "",
                    block,
                    message.get("tool_use_result"),
                    bool(block.get("is_error")),
                    **where,
                )
                for block in content
                if isinstance(block, dict) and block.get("type") == "tool_result"
            ]
            if isinstance(content, list)
            else []
        )
    if kind == "result":
        return _result_events(session, message, where)
    return []


def _assistant_events(message: dict[str, Any], streamed: bool, where: _Where) -> list[Any]:
    """An assistant message: its text (unless it was streamed), its tool calls, then the message itself."""
    body: dict[str, Any] = message.get("message") or {}
    out: list[Any] = []
    for block in body.get("content") or []:
        if block.get("type") == "text" and not streamed:
            out.append(ev.TextDelta(str(block.get("text") or ""), **where))
        elif block.get("type") == "tool_use":
            out.append(ev.ToolCallStarted(str(block.get("id")), str(block.get("name")), **where))
            out.append(
                ev.ToolCallCompleted(
                    str(block.get("id")), str(block.get("name")), block.get("input") or {}, **where
                )
            )
    out.append(
        ev.AssistantMessage(
            cast(Message, body),  # an API message: a Message with its id, model and usage beside
            str(body.get("id") or ""),
            str(body.get("model") or ""),
            body.get("stop_reason"),
            Usage.from_dict(body.get("usage")),
            str(message.get("uuid") or ""),
            **where,
        )
    )
    return out


def _result_events(session: RemoteSession, message: dict[str, Any], where: _Where) -> list[Any]:
    """The hosted session's result line, as the `Result` event (its cost kept on the session)."""
    session.total_cost_usd = float(message.get("total_cost_usd") or 0)
    text = str(message.get("result") or "; ".join(message.get("errors") or []))
    # absent, or a reason this version does not know: what is_error tells
    reason: ev.TerminationReason = TERMINATION_REASONS.get(str(message.get("terminal_reason"))) or (
        "completed" if not message.get("is_error") else "model_error"
    )
    usage = Usage.from_dict(message.get("usage"))
    return [
        ev.Result(reason, bool(message.get("is_error")), text, int(message.get("num_turns") or 0),
                  int(message.get("duration_ms") or 0), int(message.get("duration_api_ms") or 0),
                  session.total_cost_usd, usage, {}, list(message.get("permission_denials") or []), **where)
    ]  # fmt: skip
