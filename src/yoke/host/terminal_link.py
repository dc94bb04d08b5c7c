"""The terminal's side of a registered session (docs/remote.md, "Any session"): a plain `yoke` terminal lends
its session's port to the session host (`host/registered.py` is the host's side), so the page and `yoke
attach` can watch it, prompt it and answer its questions while the terminal stays its screen and its one
writer.

What the session says (its port's events) goes to the host as the stream-json lines a hosted child writes
(`wire/`: a turn's `system/init` and its prompt as a replayed `user` line, a question as a `can_use_tool`
control request whose id is the port's question id, its answer as a `control_response`); the ops the host
sends back are submitted to the session's port as they are (a reply with `by="another client"`), and the
port's answer goes back, so a prompt is acknowledged once the session has it on disk and the first answer to a
question wins (`session/port.py`'s `PortAsker`).

`host/registrar.py` decides when a terminal registers (the settings, `/remote-control`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path
from typing import Any

from yoke import events as ev
from yoke.events import port
from yoke.host.paths import socket_path
from yoke.host.protocol import MAX_MESSAGE, REQUEST_TIMEOUT
from yoke.jsonsafe import loads

# (the wire's writers are imported when a session registers: the terminal draws its prompt before)
HISTORY = 200  # messages of the conversation before registering that the host is sent
BATCH_BYTES = 1024 * 1024  # lines sent to the host in one `registered.say`, at most about this much


class LinkError(Exception):
    pass


class TerminalLink:
    """One registration of one session with the host, over one connection to its Unix socket."""

    def __init__(self, session: Any, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.session, self.reader, self.writer = session, reader, writer
        self.ident = ""
        self.replies: dict[str, asyncio.Future[Any]] = {}
        self.count = 0
        self.asked: dict[str, str] = {}  # questions waiting: request id -> kind
        self.outbox: list[dict[str, Any]] = []
        self.ready = asyncio.Event()  # lines wait in the outbox
        from yoke.wire.stream import StreamLines

        self.wire = StreamLines(session.init_fields(), partial=True, forward_subagent_text=True)
        self.wire.start_mode(session.permission_mode)
        self.stream = session.events()  # subscribed now: nothing said after registering is missed
        self.tasks: list[asyncio.Task[None]] = []
        self.dropped = False  # the host let go of it (`yoke stop`), or went away
        self.on_end: Any = None  # called once when the link ends by itself

    @classmethod
    async def open(cls, session: Any, cwd: str) -> TerminalLink:
        """Register `session`; LinkError when no host runs or it refuses."""
        try:
            reader, writer = await asyncio.open_unix_connection(str(socket_path()), limit=MAX_MESSAGE + 1)
        except OSError as exc:
            raise LinkError(f"no session host is running ({exc.strerror or exc})") from None
        link = cls(session, reader, writer)
        link.tasks.append(asyncio.get_running_loop().create_task(link._read()))
        params = {
            "sessionId": session.id,
            "cwd": cwd,
            "name": f"{Path(cwd).name or cwd} (terminal)",
            "model": session.model,
            "permissionMode": session.permission_mode,
            "pid": os.getpid(),
        }
        try:
            link.ident = str((await link.request("register", params))["id"])
        except (RuntimeError, TimeoutError, KeyError) as exc:
            await link.close()
            raise LinkError(str(exc) or "the session host did not answer") from None
        link.history(cwd)
        link.tasks.append(asyncio.get_running_loop().create_task(link._pump()))
        link.tasks.append(asyncio.get_running_loop().create_task(link._flush()))
        return link

    def history(self, cwd: str) -> None:
        """The conversation so far (its last HISTORY messages), as the page renders an exported session: a
        session registered mid-way shows what it said before."""
        from yoke.ui.export_html import session_stream

        try:
            messages = list(self.session.messages)[-HISTORY:]
            self.outbox.extend(session_stream(messages, self.session.transcript_path, cwd))
        except (OSError, ValueError, TypeError, KeyError):  # shown from now on only
            return
        self.ready.set()

    async def close(self) -> None:
        for task in self.tasks:
            if task is not asyncio.current_task():
                task.cancel()
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()

    # ---- the host's connection ------------------------------------------------------------------------------

    def send(self, method: str, params: dict[str, Any]) -> str:
        self.count += 1
        ident = f"t{self.count}"
        if self.writer.is_closing():  # the host went: `_read` ends the link
            return ident
        line = {"id": ident, "type": "request", "payload": {"method": method, "params": params}}
        self.writer.write((json.dumps(line, separators=(",", ":")) + "\n").encode())
        return ident

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.replies[self.send(method, params)] = future
        async with asyncio.timeout(REQUEST_TIMEOUT):
            return await future

    async def _read(self) -> None:
        try:
            while line := await self.reader.readline():
                try:
                    message = loads(line)
                except ValueError:
                    continue
                if not isinstance(message, dict):
                    continue
                payload = message.get("payload") or {}
                future = self.replies.pop(str(message.get("id") or ""), None)
                if future is not None and not future.done():
                    if message.get("type") == "error":
                        future.set_exception(RuntimeError(str(payload.get("message"))))
                    else:
                        future.set_result(payload)
                elif message.get("type") == "notification":
                    self._notified(payload)
        except (OSError, ValueError):  # ValueError: a line over the limit
            pass
        self._ended()

    def _notified(self, payload: dict[str, Any]) -> None:
        params = payload.get("params") or {}
        if payload.get("method") == "registered.op":
            call = str(params.get("call"))
            asyncio.get_running_loop().create_task(self._op(call, params.get("op")))
        elif payload.get("method") == "registered.drop":
            self.dropped = True
            self.writer.close()  # `_read` ends, and with it the link

    def _ended(self) -> None:
        for task in self.tasks:  # the relay stops: nothing piles up for a host that is gone
            if task is not asyncio.current_task():
                task.cancel()
        self.writer.close()
        for future in self.replies.values():
            if not future.done():
                future.set_exception(RuntimeError("the session host closed the connection"))
        self.replies.clear()
        if self.on_end is not None:
            on_end, self.on_end = self.on_end, None
            on_end(self)

    # ---- ops from the host's clients ------------------------------------------------------------------------

    async def _op(self, call: str, data: Any) -> None:
        params: dict[str, Any] = {"session": self.ident, "call": call}
        try:
            op = self._parsed(data)
            params["result"] = await self.session.submit(op)
        except Exception as exc:  # the port's refusal, one line, to the client that sent the op
            params["error"] = str(exc).strip("'\"") or type(exc).__name__
        self.send("registered.done", params)
        self._mode_line()  # a mode set from the page: its status line at once

    def _parsed(self, data: Any) -> port.Op:
        """The op as the port takes it; a reply's wire answer read as the kind of question it answers."""
        from yoke.seams import answers_given, plan_mode_choice
        from yoke.wire.ops import answer_from_wire, op_from_wire

        op = op_from_wire(data)
        if not isinstance(op, port.Reply):
            return op
        kind = self.asked.get(op.request_id)
        if kind is None:
            raise KeyError(f"question {op.request_id} is not waiting (answered already, or unknown)")
        wired = data.get("answer")
        answer = answer_from_wire(wired)
        updates = wired.get("updatedPermissions") if isinstance(wired, dict) else None
        updates = updates if isinstance(updates, list) and answer.behavior == "allow" else []
        if kind == "questions":
            return port.Reply(op.request_id, answers_given(answer), by="another client")
        if kind == "plan":
            _, updates = plan_mode_choice(updates)  # the mode after the plan is the answer's own
        for update in updates:  # "allow for this session", a kept rule, a mode: as the terminal applies them
            if isinstance(update, dict):
                self.session.apply_permission_update(update)
        return port.Reply(op.request_id, answer, by="another client")

    # ---- what the session says, to the host ------------------------------------------------------------------

    async def _pump(self) -> None:
        async for event in self.stream:
            try:
                lines = self.lines(event)
            except Exception as exc:  # a line we cannot make: said to the clients, the relay goes on
                lines = [{"type": "system", "subtype": "host_notice", "message": f"not relayed: {exc}"}]
            if lines:
                self.outbox.extend(lines)
                self.ready.set()
        await self.close()  # the session closed: the host's entry goes with the connection

    def _mode_line(self) -> None:
        """A status line when the session's mode changed since the last one (Shift+Tab, a plan, an op)."""
        lines = self.wire.mode_changed(self.session.permission_mode)
        if lines:
            self.outbox.extend(lines)
            self.ready.set()

    async def _flush(self) -> None:
        """The outbox to the host, a batch per `registered.say`; waits only for the socket to take it (a
        host that stops reading ends the link: `_read` sees the connection go)."""
        try:
            await self._flushing()
        except (ConnectionError, OSError):
            self.writer.close()

    async def _flushing(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):  # each half second: a mode changed in the terminal
                async with asyncio.timeout(0.5):
                    await self.ready.wait()
            if not self.ready.is_set():
                self._mode_line()
            self.ready.clear()
            while self.outbox:
                batch: list[dict[str, Any]] = []
                size = 0
                while self.outbox and (not batch or size < BATCH_BYTES):
                    line = self.outbox.pop(0)
                    batch.append(line)
                    size += len(json.dumps(line, default=str))
                self.send("registered.say", {"session": self.ident, "messages": batch})
                await self.writer.drain()

    def lines(self, event: Any) -> list[dict[str, Any]]:
        """The stream-json lines a hosted child writes for `event` (docs/wire.md)."""
        if isinstance(event, port.TurnBegan):
            started = self.session.snapshot().started
            out = self.wire.lines(started) if started is not None else []
            if event.origin == "prompt":
                out.append({"type": "user", "message": {"role": "user", "content": event.content},
                            "parent_tool_use_id": None, "session_id": self.session.id,
                            "uuid": event.prompt_id, "isReplay": True})  # fmt: skip
            return out
        if isinstance(event, port.Asked):
            self.asked[event.request_id] = event.kind
            return [{"type": "control_request", "request_id": event.request_id, "request": _request(event)}]
        if isinstance(event, port.Answered):
            self.asked.pop(event.request_id, None)
            response = {"behavior": event.behavior}
            reply = {"subtype": "success", "request_id": event.request_id, "response": response}
            return [{"type": "control_response", "response": reply}]
        if isinstance(event, port.PORT_EVENTS):
            return []  # queued and idle: the host keeps its own queue and state
        out = self.wire.lines(event)
        deltas = (ev.StreamEvent, ev.TextDelta, ev.ThinkingDelta, ev.ToolCallInputPreview)
        if not isinstance(event, deltas):  # a plan approved, Shift+Tab: the mode's status line
            out += self.wire.mode_changed(self.session.permission_mode)
        return out


def _request(event: port.Asked) -> dict[str, Any]:
    """A question as the `can_use_tool` control request `--permission-prompt-tool stdio` sends."""
    if event.kind == "questions":
        return {"subtype": "can_use_tool", "tool_name": "AskUserQuestion", "tool_use_id": "",
                "input": {"questions": event.question}, "requires_user_interaction": True}  # fmt: skip
    if event.kind == "plan":
        return {"subtype": "can_use_tool", "tool_name": "ExitPlanMode", "tool_use_id": "",
                "input": {"plan": event.question}, "requires_user_interaction": True}  # fmt: skip
    question = event.question
    return {
        "subtype": "can_use_tool",
        "tool_name": question.tool_name,
        "input": question.input,
        "tool_use_id": question.tool_use_id,
        "permission_suggestions": question.suggestions,
        "decision_reason": question.reason,
    }
