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

`Registrar` is the terminal UI's hold on it (handed to the UI by the CLI: `ui/` never imports `host/`):
after each session opens it registers when a host runs for this configuration home, unless the settings say
`remoteControlAtStartup: false`; `/remote-control` (or `remoteControlAtStartup: true` in the user's settings)
starts a host if needed, registers and has it serve the page; `disableRemoteControl: true` refuses both.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import urllib.parse
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
# scopes whose `remoteControlAtStartup: true` is honoured; a project's cannot switch it on (as Claude Code)
ENABLING_SCOPES = ("user", "managed", "policy", "flag")


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


def remote_policy(cwd: str, env: dict[str, str], settings_flag: str | None) -> str:
    """What the settings say of remote control: "disabled" (`disableRemoteControl: true` anywhere: never),
    "off" (`remoteControlAtStartup: false` anywhere: not registered by itself, `/remote-control` still
    works), "on" (`remoteControlAtStartup: true` in the user's, managed or `--settings` settings: switched
    on at start) or "auto" (registered when a host runs)."""
    from yoke.config.settings import load_settings

    try:
        home = Path(env.get("HOME") or Path.home())
        sources = load_settings(Path(cwd), home=home, flag_settings=settings_flag).sources
    except (OSError, ValueError):
        return "auto"
    if any(s.data.get("disableRemoteControl") is True for s in sources):
        return "disabled"
    values = [(s.scope, s.data.get("remoteControlAtStartup")) for s in sources]
    if any(value is False for _, value in values):
        return "off"
    if any(value is True and scope in ENABLING_SCOPES for scope, value in values):
        return "on"
    return "auto"


class Registrar:
    """The terminal UI's registration: follows the UI's session (a new one after /clear or /resume), and
    switches on for `/remote-control`."""

    def __init__(self, ui: Any):
        self.ui = ui
        self.link: TerminalLink | None = None
        self.page: asyncio.Task[None] | None = None  # the connection the host serves the page for
        self.url = ""  # the session's page
        self.switched_on = False  # `/remote-control` (or the setting): registered whatever else runs
        self.lock = asyncio.Lock()

    def policy(self) -> str:
        ui = self.ui
        return remote_policy(ui.cwd, ui.env, getattr(ui, "settings_flag", None))

    async def session_opened(self) -> None:
        """Register the session the UI has just opened, as the settings say."""
        async with self.lock:
            await self._unlink()
            policy = self.policy()
            if policy == "disabled" or (policy == "off" and not self.switched_on):
                return
            if policy == "on" and not self.switched_on:
                await self._switch_on()
                return
            try:
                await self._link()
            except LinkError:
                return  # no host runs: a plain terminal session, as before
            if not self.switched_on:
                self.ui.say(
                    f"  ⎿  in the session host as {self.link.ident if self.link else '?'} "
                    "(yoke attach; /remote-control for the page)",
                    "dim",
                )

    async def switch_on(self) -> None:
        """`/remote-control`: start a host if none runs, register, and have the host serve the page."""
        async with self.lock:
            if self.policy() == "disabled":
                self.ui.say("  /remote-control is disabled by the settings (disableRemoteControl)", "yellow")
                return
            await self._switch_on()

    async def _switch_on(self) -> None:
        from yoke.host.client import HostClient, HostError

        self.switched_on = True
        try:
            if self.link is None:
                client = await asyncio.to_thread(HostClient.connect, True)  # starts the host if none runs
                client.close()
                await self._link()
            if self.page is None:
                await self._serve_page()
            else:  # on already: the page's address again
                self.ui.say(f"  Remote control is on: {self.url} (pair with the last code shown)", "dim")
        except (HostError, LinkError, RuntimeError, OSError) as exc:
            self.ui.say(f"  /remote-control: {exc}", "red")

    async def _link(self) -> None:
        session = self.ui.session
        if session is None:
            raise LinkError("no session is open")
        self.link = await TerminalLink.open(session, self.ui.cwd)
        self.link.on_end = self._link_ended

    def _link_ended(self, link: TerminalLink) -> None:
        from yoke.host import records

        if not link.dropped and link.ident:  # the host went without ending the entry: no stale record
            with contextlib.suppress(OSError, ValueError):
                records.remove(link.ident)
        if link is self.link:
            self.link = None
            if link.dropped:
                self.ui.say("  ⎿  the session host let go of this session (/remote-control again)", "dim")
            elif self.ui.session is link.session:
                self.ui.say("  ⎿  the session host went away (/remote-control to start it again)", "dim")

    async def _serve_page(self) -> None:
        from yoke.host.remote_command import _describe, open_page, pairing_url, qr_text

        assert self.link is not None
        ident = self.link.ident
        url = ""
        ui = self.ui

        def announce(code: str) -> None:
            ui.emit(f"Paired. Next pairing code: {code}\n{qr_text(pairing_url(url, code))}")

        page, self.page = await open_page("127.0.0.1", 0, None, announce, drive=ident)
        url = f"{page['url']}s/{urllib.parse.quote(ident)}"
        self.url = url
        ui.emit(_describe(page, url).replace("Ctrl-C stops", "while this terminal runs"))

    async def _unlink(self) -> None:
        link, self.link = self.link, None
        if link is not None:
            link.on_end = None
            await link.close()

    async def close(self) -> None:
        """The terminal quits: the host's entry and the page go with their connections."""
        await self._unlink()
        if self.page is not None:
            self.page.cancel()
            self.page = None
