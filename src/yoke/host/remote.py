"""A hosted session seen from a client (`yoke attach`'s terminal UI): the session port (`yoke.events.port`)
over the host's wire. Ops go as the host's one `op` method (`yoke.wire.ops`); every stream message of the
session, whichever client's turn it belongs to, becomes events (`yoke.wire.decode`) on `events()`, with the
port's own: `TurnBegan` (a replayed prompt, or a follow-up), `Asked` and `Answered` (a permission prompt, and
its answer from any client), `Idle`. A permission prompt also goes to this client's asker, and is withdrawn
when another client answers it first.

`RemoteSession` is checked against `TerminalSession` (what the terminal UI reads of a session) by mypy:
a member missing here is a type error (`_typed` below), not an AttributeError in a user's terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from yoke import events as ev
from yoke.events import port
from yoke.host.paths import socket_path
from yoke.host.protocol import MAX_MESSAGE, REQUEST_TIMEOUT
from yoke.jsonsafe import loads
from yoke.messages import Message
from yoke.seams import Asker, PermissionQuestion
from yoke.ui.port import TerminalSession
from yoke.wire.decode import message_events
from yoke.wire.ops import op_to_wire

NOT_HERE = "not available in an attached session (it runs in the host): detach and resume it to use it"


class RemoteSession:
    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, record: dict, asker: Asker | None
    ):
        self.reader, self.writer, self.record, self.asker = reader, writer, record, asker
        self.id: str = record["sessionId"]
        self.model = str(record.get("model") or "")  # until the stream's system/init says
        self.profile: str | None = record.get("profile")  # the profile in force there, for the footer
        self.permission_mode = str(record.get("permissionMode") or "default")
        self.started = SimpleNamespace(permission_mode=self.permission_mode)
        self.total_cost_usd = 0.0
        self.transcript_path: Path | None = None
        self.env: dict[str, str] = {}
        self.warnings: list[str] = []
        self.messages: list[Message] = []  # the history stays in the host's session
        self.debug_log: Path | None = None
        self.modes: list[str] = [self.permission_mode]
        self.init: dict[str, Any] = {}
        self.busy = False
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.asking: dict[str, asyncio.Task[None]] = {}  # permission prompts shown here, by request id
        self.answered_here: set[str] = set()
        self.subscribers = port.Subscribers()
        self.streamed = False  # the message being decoded came as text deltas already
        self.turn_opening = False  # an init line came: the next line says whose turn it is
        self.count = 0
        self.pump = asyncio.get_running_loop().create_task(self._pump())

    @classmethod
    async def open(cls, record: dict, asker: Asker | None) -> RemoteSession:
        reader, writer = await asyncio.open_unix_connection(str(socket_path()), limit=MAX_MESSAGE + 1)
        session = cls(reader, writer, record, asker)
        attached = await session.request("attach", {"session": record["id"], "role": "driver"})
        if not attached.get("driver"):
            session.warnings.append("another client drives this session: you can watch, answer and interrupt")
        for message in attached.get("pending") or []:
            session._ask(message)
        with contextlib.suppress(Exception):  # an older session answers no describe: one mode, as before
            session.modes = list((await session.submit(port.Describe("modes"))).get("items") or session.modes)
        return session

    # ---- the port -----------------------------------------------------------------------------------------

    async def submit(self, op: port.Op) -> dict[str, Any]:
        """The op to the host (`op` method); RuntimeError with the host's one-line refusal."""
        if isinstance(op, port.Reply):
            self.answered_here.add(op.request_id)
        reply = await self.request("op", {"session": self.record["id"], "op": op_to_wire(op)})
        if isinstance(op, port.SetMode):
            self.permission_mode = self.started.permission_mode = op.mode
        return reply

    def events(self) -> AsyncIterator[port.PortEvent]:
        return self.subscribers.subscribe()

    def snapshot(self) -> port.Snapshot:
        return port.Snapshot(
            id=self.id,
            model=self.model,
            permission_mode=self.permission_mode,
            cwd=str(self.record.get("cwd") or ""),
            total_cost_usd=self.total_cost_usd,
            tools=tuple(str(t) for t in self.init.get("tools") or ()),
            slash_commands=tuple(str(c) for c in self.init.get("slash_commands") or ()),
            busy=self.busy,
            init=dict(self.init),
            permission_modes=tuple(self.modes),
        )

    async def close(self, reason: str = "") -> None:
        """Leave the session running."""
        for task in self.asking.values():
            task.cancel()
        with contextlib.suppress(Exception):
            await self.request("detach", {"session": self.record["id"]})
        self.pump.cancel()
        self.writer.close()
        self._publish(None)

    # ---- the wire -----------------------------------------------------------------------------------------

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.count += 1
        ident = f"ui{self.count}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
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
            try:
                message = loads(line)
            except ValueError:
                continue
            payload = message.get("payload") or {}
            future = self.replies.get(message.get("id") or "")
            if future is not None and message.get("type") in ("response", "error") and not future.done():
                if message["type"] == "error":
                    future.set_exception(RuntimeError(str(payload.get("message"))))
                else:
                    future.set_result(payload)
            elif message.get("type") == "stream":
                self._observe(payload.get("message") or {})
            elif message.get("type") == "notification" and payload.get("method") == "session.state":
                params = payload.get("params") or {}
                if params.get("session") == self.record["id"] and params.get("state") == "idle":
                    self.busy = False
                    self._publish(port.Idle())
        self._publish(ev.Notice("warning", "the host closed the connection"))
        self._publish(None)

    def _publish(self, event: port.PortEvent | None) -> None:
        self.subscribers.publish(event)

    def _observe(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "control_request":
            self._ask(message)
            return
        if kind == "control_response":
            response = message.get("response") or {}
            request_id = str(response.get("request_id"))
            task = self.asking.pop(request_id, None)
            if task is not None:
                task.cancel()  # answered by another client
            behavior = str((response.get("response") or {}).get("behavior") or "answered")
            by = "here" if request_id in self.answered_here else "another client"
            self._publish(port.Answered(request_id, behavior, by))
            return
        if kind == "system" and message.get("subtype") == "init":
            self.init = {k: v for k, v in message.items() if k not in ("type", "subtype", "uuid")}
            self.turn_opening = True
        elif kind == "user" and message.get("isReplay"):
            self.turn_opening, self.busy = False, True
            content = (message.get("message") or {}).get("content")
            self._publish(port.TurnBegan(str(message.get("uuid") or ""), content, "prompt"))
            return
        elif kind == "system" and message.get("subtype") == "unattended_turn":  # a schedule's, a goal's
            self.turn_opening, self.busy = False, True
            self._publish(port.TurnBegan(str(message.get("prompt_id") or ""), "", "prompt", True))
            return
        elif self.turn_opening:  # a query no prompt started: a background notice's follow-up
            self.turn_opening, self.busy = False, True
            self._publish(port.TurnBegan("", "", "follow_up"))
        for event in message_events(self, message, self.streamed):
            self._publish(event)
        if kind == "system" and message.get("subtype") == "init":
            self.started.permission_mode = self.permission_mode
        if kind == "stream_event":
            self.streamed = True
        elif kind == "assistant":
            self.streamed = False

    def _ask(self, message: dict[str, Any]) -> None:
        request = message.get("request") or {}
        if request.get("subtype") != "can_use_tool":
            return
        request_id = str(message.get("request_id"))
        question = PermissionQuestion(
            tool_name=str(request.get("tool_name")),
            input=dict(request.get("input") or {}),
            tool_use_id=str(request.get("tool_use_id") or ""),
            reason=str(request.get("decision_reason") or ""),
            suggestions=list(request.get("permission_suggestions") or []),
        )
        self._publish(port.Asked(request_id, "permission", question))
        if self.asker is not None:
            self.asking[request_id] = asyncio.get_running_loop().create_task(
                self._answer(request_id, question)
            )

    async def _answer(self, request_id: str, question: PermissionQuestion) -> None:
        if self.asker is None:
            return
        answer = await self.asker.ask(question)
        self.asking.pop(request_id, None)
        with contextlib.suppress(RuntimeError, TimeoutError):  # answered elsewhere meanwhile
            await self.submit(port.Reply(request_id, answer, by="here"))

    # ---- what the terminal UI reads beside the port ---------------------------------------------------------

    def query(self, prompt: str | list[Any]) -> AsyncIterator[ev.Event]:
        return self._query(prompt)

    async def _query(self, prompt: str | list[Any]) -> AsyncIterator[ev.Event]:
        """One prompt's turn through the port (what `Session.query` is for a local session)."""
        stream = self.events()
        try:
            sent = await self.submit(port.Prompt(prompt))
        except (RuntimeError, TimeoutError) as exc:  # another client drives, or the session is gone
            yield ev.Notice("warning", str(exc))
            yield ev.Result("completed", False, "", 0, 0, 0, self.total_cost_usd, ev.Usage(), {}, [])
            return
        mine = False
        async for event in stream:
            if isinstance(event, port.TurnBegan):
                mine = event.prompt_id == sent.get("id")
            elif mine and not isinstance(event, port.PORT_EVENTS):
                yield event
                if isinstance(event, ev.Result) and event.agent_id == "main":
                    return

    def interrupt(self) -> None:
        asyncio.get_running_loop().create_task(self.submit(port.Interrupt()))

    def init_fields(self) -> dict[str, Any]:
        return {
            k: self.init[k] for k in ("slash_commands", "skills", "output_style", "plugins") if k in self.init
        }

    def model_usage(self) -> dict[str, ev.ModelUsage]:
        return {}

    def background_tasks(self) -> list[dict[str, Any]]:
        return []

    def permission_modes(self) -> list[str]:
        return list(self.modes)

    def set_permission_mode(self, mode: str) -> None:
        if mode not in self.modes:
            raise ValueError(f"{mode} is not available in this session")
        self.permission_mode = self.started.permission_mode = mode
        asyncio.get_running_loop().create_task(self.submit(port.SetMode(mode)))

    def apply_permission_update(self, update: dict[str, Any]) -> None:
        if update.get("type") == "setMode" and isinstance(update.get("mode"), str):
            self.set_permission_mode(update["mode"])
            return
        raise ValueError(f"a lasting permission rule is {NOT_HERE}")

    async def switch_model(self, spec: str, source: str = "command") -> str:
        try:
            reply = await self.submit(port.SetModel(spec))
        except RuntimeError as exc:
            return str(exc)
        self.model = str(reply.get("model") or spec)
        return ""

    def set_model(self, model: str) -> None:
        asyncio.get_running_loop().create_task(self.switch_model(model))

    async def slash_commands(self) -> list[dict[str, str]]:
        return []  # the session's skills and commands are in its init line (`init_fields`)

    async def notify(self, message: str, notification_type: str, title: str = "") -> None:
        return None  # the hosted session runs its own Notification hooks


def _typed(session: RemoteSession) -> TerminalSession:
    """mypy checks here that a RemoteSession is all the terminal UI reads of a session."""
    return session
