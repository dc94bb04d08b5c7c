"""A terminal session registered with the host (docs/remote.md, "Any session"): the `yoke` terminal keeps
owning its session (the one writer of its transcript) and lends the host its port over the host's own Unix
socket. The host lists it, relays what it says to attached clients (the page, `yoke attach`) exactly as a
hosted child's stream-json lines, and proxies their ops to it; the terminal answers each op with the port's
own answer, so a prompt is acknowledged only once the terminal's session has it on disk, and the first answer
to a question wins in the terminal's session, whoever gave it.

Methods (the registering connection only, and only over the Unix socket, which is the user's own):
`register {sessionId, cwd, name, model, permissionMode, pid}` -> `{id}`; `registered.say {messages}`: the
session's stream-json lines; `registered.done {call, result | error}`: the answer to an op the host sent as a
`registered.op {call, op}` notification. The connection closing ends the entry: the session leaves the list.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from typing import Any

from yoke.host import records
from yoke.host.hosted import HostedSession
from yoke.host.limits import StreamLog
from yoke.host.protocol import ProtocolError, encode
from yoke.host.records import stream_log_path

OP_TIMEOUT = 30.0  # seconds the terminal has to answer an op (it answers at once: a prompt only queues)


class RegisteredSession(HostedSession):
    """A `HostedSession` whose messages come from the registering terminal's connection instead of a child's
    stdout, and whose ops go back over it."""

    def __init__(self, record: dict[str, Any], owner: Any, forget: Any):
        super().__init__(record, env={})
        self.owner = owner  # the terminal's connection (server.Client)
        self.forget = forget  # drops this entry from the host's sessions
        self.ended = False
        self.calls: dict[
            str, tuple[asyncio.Future[dict[str, Any]], dict[str, Any]]
        ] = {}  # call -> (answer, op)
        self.numbers = itertools.count(1)
        self.queued_ids: list[str] = []  # the ids of `queued`, to take out the one whose turn begins

    @property
    def live(self) -> bool:
        return not self.ended

    def begin(self) -> None:
        self._log = StreamLog(stream_log_path(self.ident))
        self.record.update(hostPid=os.getpid(), startedAt=int(time.time() * 1000))
        self.set_state("idle", "idle")

    def say(self, message: dict[str, Any]) -> None:
        """One stream-json line of the terminal's session: kept (state, pending prompts) and relayed."""
        kind = message.get("type")
        if kind == "control_response":  # a question answered (in the terminal, or by a client through it)
            request_id = str((message.get("response") or {}).get("request_id"))
            if self.pending.pop(request_id, None) is not None and not self.pending:
                self.set_state("busy", "working")
        elif kind == "user" and message.get("isReplay"):
            ident = str(message.get("uuid") or "")
            if ident in self.queued_ids:  # a client's prompt: its turn begins
                index = self.queued_ids.index(ident)
                del self.queued_ids[index], self.queued[index]
            self.set_state("busy", "working")
            self.publish(message)
            return
        if not self._observe(message):
            self.publish(message)
            if self.on_message is not None:  # told like a hosted session (the host's notifier)
                self.on_message(self, message)

    async def op(self, op: dict[str, Any]) -> dict[str, Any]:
        """The op to the terminal's session, and its answer (RuntimeError with its one-line refusal)."""
        if op.get("op") == "reply" and str(op.get("request_id")) not in self.pending:
            raise KeyError(
                f"permission request {op.get('request_id')} is not waiting (answered already, or unknown)"
            )
        if self.ended:
            raise RuntimeError(f"session {self.ident} has left (its terminal closed)")
        call = str(next(self.numbers))
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.calls[call] = (future, op)
        try:
            self.owner.send(
                encode("notification", None, {"method": "registered.op", "params": {"call": call, "op": op}})
            )
            async with asyncio.timeout(OP_TIMEOUT):
                result = await future
        except TimeoutError:
            raise RuntimeError(
                f"session {self.ident}'s terminal did not answer within {OP_TIMEOUT:.0f} s"
            ) from None
        finally:
            self.calls.pop(call, None)
        return result

    def done(self, call: str, params: dict[str, Any]) -> None:
        """The terminal's answer to an op. A prompt joins the queue here, before the host reads the
        terminal's next line (which may already say its turn began)."""
        future, op = self.calls.get(call) or (None, {})
        if future is None or future.done():
            return
        if params.get("error") is not None:
            future.set_exception(RuntimeError(str(params["error"])))
            return
        given = params.get("result")
        result: dict[str, Any] = given if isinstance(given, dict) else {}
        if op.get("op") == "prompt" and isinstance(result.get("id"), str):
            content = op.get("content")
            self.queued.append(content if isinstance(content, str) else "(a prompt with attachments)")
            self.queued_ids.append(result["id"])
            self.last_activity = int(time.time() * 1000)
            self.set_state("busy", "working")
        future.set_result(result)

    def detach(self, client: Any) -> None:
        super().detach(client)
        if client is self.owner:
            self.end()

    async def stop(self, force: bool) -> None:
        """`yoke stop` on a terminal's session: the host lets go of it (the terminal goes on, unlisted)."""
        self.owner.send(encode("notification", None, {"method": "registered.drop", "params": {}}))
        self.end()

    def end(self) -> None:
        """The terminal left (or was let go): pending ops fail, clients hear it ended, the entry goes."""
        if self.ended:
            return
        self.ended = True
        for future, _ in self.calls.values():
            if not future.done():
                future.set_exception(RuntimeError(f"session {self.ident} has left (its terminal closed)"))
        self.pending.clear()
        self.queued.clear()
        self.publish({"type": "system", "subtype": "session_ended", "exit_code": 0})
        self.removed = True  # no record is written again: the entry leaves the list
        self.record.update(status="idle", state="stopped")
        if self.on_change is not None:
            self.on_change(self)
        if self._log is not None:
            self._log.close()
        records.remove(self.ident)
        asyncio.get_running_loop().call_soon(self.forget, self)


def _own_socket(client: Any) -> bool:
    """A connection to the host's Unix socket (0600 in the user's runtime folder): only the user's own
    processes reach it. A TCP or WebSocket client may not lend the host a session."""
    writer = getattr(client, "writer", None)
    if writer is None:
        return False
    return isinstance(writer.get_extra_info("sockname"), str)


def _owned(host: Any, client: Any, params: dict[str, Any]) -> RegisteredSession:
    session = host.sessions.get(str(params.get("session") or ""))
    if not isinstance(session, RegisteredSession) or session.owner is not client:
        raise ProtocolError("forbidden", "only the terminal that registered a session speaks for it")
    return session


async def register(host: Any, client: Any, ident: str, params: dict[str, Any]) -> dict[str, Any]:
    if not _own_socket(client):
        raise ProtocolError("forbidden", "a session registers over the host's Unix socket only")
    session_id = str(params.get("sessionId") or "")
    if len(session_id) < 8 or "/" in session_id:
        raise ProtocolError("invalid_params", "sessionId is the session's id")
    for other in host.sessions.values():  # one host entry per session
        if other.record.get("sessionId") == session_id and other.live:
            raise ProtocolError(
                "already_running", f"session {session_id} is already in the host as {other.ident}"
            )
    for stale in records.all_records():  # a terminal's entry left behind by a host that died
        if stale.get("kind") == "terminal" and stale["id"] not in host.sessions:
            records.remove(stale["id"])
    short = session_id[:8]
    record = {
        "id": short,
        "cwd": str(params.get("cwd") or ""),
        "kind": "terminal",
        "sessionId": session_id,
        "name": str(params.get("name") or short)[:80],
        "pid": int(params["pid"]) if isinstance(params.get("pid"), int) else None,
        "model": str(params.get("model") or ""),
        "permissionMode": str(params.get("permissionMode") or "default"),
    }
    from yoke.host.methods import _state

    session = RegisteredSession(record, client, lambda s: _forget(host, s))
    session.on_change = lambda s: host.broadcast("session.state", _state(s))
    session.on_message = lambda s, message: _told(host, s, message)
    host.sessions[short] = session
    session.begin()
    return {"id": short}


def _told(host: Any, session: Any, message: dict[str, Any]) -> None:
    """Blocked, finished, failed: told as for a hosted session (notifier.py). Not the model's PushNotification:
    a terminal's session is not hosted (no YOKE_HOSTED), so its tool posts the webhook itself."""
    from yoke.host.notifier import classify

    found = classify(message, bool(session.queued))
    if found is None or found[0] == "message":
        return
    host.notifier.observe(session, message)


def _forget(host: Any, session: RegisteredSession) -> None:
    if host.sessions.get(session.ident) is session:
        del host.sessions[session.ident]


async def say(host: Any, client: Any, ident: str, params: dict[str, Any]) -> dict[str, Any]:
    session = _owned(host, client, params)
    for message in params.get("messages") or []:
        if isinstance(message, dict):
            session.say(message)
    return {}


async def done(host: Any, client: Any, ident: str, params: dict[str, Any]) -> dict[str, Any]:
    _owned(host, client, params).done(str(params.get("call")), params)
    return {}


METHODS = {"register": register, "registered.say": say, "registered.done": done}
