"""One hosted session: a child `yoke` speaking stream-json, numbered messages, a replay buffer, clients.

Every message the session sends gets the next sequence number, goes to every attached client and to the
stream log on disk (so `logs` and a reconnect beyond the buffer work, and so do both after the host died).
A client is never awaited: its `send` queues or drops it (server.py), so a slow client cannot slow the session.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any, Protocol

from yoke import jsonsafe, spawn
from yoke.host.limits import ReplayBuffer, StreamLog, rotated
from yoke.host.owned import open_private
from yoke.host.protocol import MAX_MESSAGE, encode
from yoke.host.records import stream_log_path, write_record
from yoke.jsonsafe import loads

# messages kept in memory for reconnecting clients; older ones come from the stream log
BUFFER = int(os.environ.get("YOKE_HOST_REPLAY_BUFFER") or 2000)
CHILD_FLAGS = [
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-prompt-tool",
    "stdio",
    "--replay-user-messages",  # each prompt enters the stream when its turn begins: the queue moves on
    "--forward-subagent-text",  # sub-agents' messages too: watching clients nest them in their Agent call
    "--include-partial-messages",  # always: the page and `attach` render the text as it arrives
]
# control requests a client may send a session through the host (`control`), as the Agent SDK sends them
CONTROL_SUBTYPES = (
    "set_permission_mode", "set_model", "interrupt", "get_context_usage", "mcp_status",
    "rewind_files", "stop_task", "mcp_reconnect", "mcp_toggle", "yoke_describe",
)  # fmt: skip
CONTROL_TIMEOUT = 10.0


class Peer(Protocol):
    def send(self, data: bytes) -> bool: ...


class HostedSession:
    def __init__(self, record: dict[str, Any], env: dict[str, str]):
        self.record = record
        self.env = env
        self.proc: Any = None  # asyncio's Process, or host/warm.py's ForkedRun
        self.buffer = ReplayBuffer(BUFFER)
        self.seq = _last_seq(record["id"])
        self.clients: dict[Peer, str] = {}  # client -> the id of its attach request (its stream's id)
        self.driver: Peer | None = None
        self.would_drive: list[Peer] = []  # clients that attached as drivers, oldest first
        self.pending: dict[str, dict[str, Any]] = {}  # permission prompts waiting: request_id -> message
        self._log: StreamLog | None = None
        self.on_change: Callable[[HostedSession], None] | None = None  # the session's state changed
        self.on_request: Callable[[HostedSession, dict[str, Any]], None] | None = None  # host/messages.py
        # each message the session sends, after its state is kept (the host's notifier, notifier.py)
        self.on_message: Callable[[HostedSession, dict[str, Any]], None] | None = None
        self.removed = False  # `rm`: no record is written again
        self.queued: list[str] = []  # prompts sent whose turn has not begun (they run one after another)
        self.last_activity = int(record.get("lastActivityAt") or 0)  # ms: the last message, or prompt
        self.controls: dict[str, asyncio.Future] = {}  # control requests sent by `control`, by request id
        self.stopping = False  # `stop` asked it to end
        self.unattended = False  # the running (or last) turn is one no person started: a schedule's, a goal's
        self.count = 0

    @property
    def ident(self) -> str:
        return self.record["id"]

    @property
    def live(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def start(self, args: list[str], resume: bool) -> None:
        session_flag = "--resume" if resume else "--session-id"
        argv = [sys.executable, "-m", "yoke", *CHILD_FLAGS, session_flag, self.record["sessionId"], *args]
        with open_private(stream_log_path(self.ident).with_suffix(".stderr"), "ab") as stderr:
            # Through the door (forked from the warm template when there is one, else started): its own
            # group (the terminal's Ctrl-C is not the session's), and it ends with the host however the host
            # dies (the guard's SIGTERM: interrupted, transcript kept).
            from yoke.host.warm import fork_session

            env = {**self.env, "YOKE_HOSTED": "1"}
            self.proc = await fork_session(argv[3:], self.record["cwd"], env, stderr, 8 * MAX_MESSAGE)
            self.proc = self.proc or await spawn.start(
                argv,
                confine=None,
                cwd=self.record["cwd"],
                env={**self.env, "YOKE_HOSTED": "1"},
                stdin=spawn.PIPE,
                stdout=spawn.PIPE,
                stderr=stderr,
                limit=8 * MAX_MESSAGE,
            )
        self._log = StreamLog(stream_log_path(self.ident))
        self.record.update(pid=self.proc.pid, hostPid=os.getpid(), startedAt=int(time.time() * 1000))
        self.set_state("idle", "idle")
        asyncio.get_running_loop().create_task(self._pump())

    def set_state(self, status: str, state: str) -> None:
        self.record.update(status=status, state=state, lastActivityAt=self.last_activity or None)
        if not self.removed:
            try:
                write_record(self.record)
            except OSError:  # a full disk: the session goes on; `agents` shows the last state written
                pass
        if self.on_change is not None:
            self.on_change(self)

    async def _pump(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        while True:
            try:
                line = await self.proc.stdout.readline()
            except ValueError:  # a line past the pipe's limit: said, not relayed
                self.publish(
                    {
                        "type": "system",
                        "subtype": "host_notice",
                        "message": "a message over the limit was left out",
                    }
                )
                continue
            if not line:
                break
            try:
                message = loads(line)
            except ValueError:
                continue  # stream-json stdout is JSON by contract; anything else is not the session's
            if isinstance(message, dict) and not self._observe(message):
                self.publish(message)
                if self.on_message is not None:
                    self.on_message(self, message)
        await self.proc.wait()
        self.pending.clear()
        self.queued.clear()
        for future in self.controls.values():
            if not future.done():
                future.set_exception(RuntimeError(f"session {self.ident} ended"))
        ended = {"type": "system", "subtype": "session_ended", "exit_code": self.proc.returncode}
        self.publish(ended)
        if self.on_message is not None:
            self.on_message(self, ended)
        # died in a turn, not stopped by `stop`: `respawn` continues that turn
        self.record["midTurn"] = not self.stopping and self.record.get("state") in ("working", "blocked")
        self.set_state("idle", "stopped")
        if self._log is not None:
            self._log.close()

    def _observe(self, message: dict[str, Any]) -> bool:
        """Keep the session's state, cost, mode and queue; True for a message that is the host's own (the
        answer to a `control` request), not published."""
        kind = message.get("type")
        if kind == "system" and message.get("subtype") == "init":
            for key in ("profile", "model"):  # `yoke agents`, the remote page and an attached UI show them
                if isinstance(message.get(key), str):
                    self.record[key] = message[key]
        if kind == "system" and message.get("subtype") in ("init", "unattended_turn"):
            self.unattended = message.get("subtype") == "unattended_turn"  # each query's init comes first
        mode = message.get("permissionMode") if kind == "system" else None
        if isinstance(mode, str) and mode != self.record.get("permissionMode"):
            self.record["permissionMode"] = mode  # written with the next state (init) or now (a status line)
            if message.get("subtype") != "init":
                self.set_state(self.record.get("status") or "busy", self.record.get("state") or "working")
        if kind == "control_response":
            response = message.get("response") or {}
            future = self.controls.pop(str(response.get("request_id")), None)
            if future is not None:
                if not future.done():
                    future.set_result(response)
                return True
        if kind == "control_request" and (message.get("request") or {}).get("subtype") == "yoke_host":
            if self.on_request is not None:  # ListAgents/SendMessage across the host's sessions
                self.on_request(self, message)
            return True
        if kind == "control_request" and (message.get("request") or {}).get("subtype") == "can_use_tool":
            self.pending[str(message.get("request_id"))] = message
            self.set_state("busy", "blocked")
            alone = self.record.get("unattended") == "deny" or self.unattended  # host/schedules.py
            if alone and not self.clients:
                asyncio.get_running_loop().call_soon(self._deny_alone, str(message.get("request_id")))
        elif kind == "result":
            if isinstance(message.get("total_cost_usd"), int | float):
                self.record["costUsd"] = message["total_cost_usd"]  # the session's whole cost so far
            self.set_state(*(("busy", "working") if self.queued else ("idle", "idle")))  # or the next turn
        elif kind == "user" and message.get("isReplay") and self.queued:
            self.queued.pop(0)  # its turn begins
            try:
                journal_queue(self.ident, "dequeue", str(message.get("uuid") or ""))
            except OSError:  # a full disk must not stop the relay; the transcript's own dequeue record
                pass  # (held by its writer until the disk has room) says the turn began
            self.set_state("busy", "working")
        elif kind == "system" and message.get("subtype") == "init" and self.record.get("state") != "working":
            self.set_state("busy", "working")
        return False

    def publish(self, message: dict[str, Any]) -> None:
        self.last_activity = int(time.time() * 1000)
        self.seq += 1
        entry = {"session": self.ident, "seq": self.seq, "message": message}
        line = json.dumps(entry, separators=(",", ":")) + "\n"
        self.buffer.add(entry, len(line))
        if self._log is not None and not self._log.closed:
            self._log.write(line)  # a full disk: clients still get it from the buffer
        for client, stream_id in list(self.clients.items()):
            if not client.send(encode("stream", stream_id, entry)):
                self.detach(client)

    def replay(self, since: int) -> list[dict[str, Any]]:
        """The messages after `since`: from the buffer, and from the stream log for what it no longer holds."""
        first = self.buffer[0]["seq"] if self.buffer else self.seq + 1
        older = read_stream_log(self.ident, since, first) if since + 1 < first else []
        return older + [entry for entry in self.buffer if entry["seq"] > since]

    def attach(self, client: Peer, stream_id: str, drive: bool) -> bool:
        self.clients[client] = stream_id
        if drive:
            self.would_drive.append(client)
        if drive and (self.driver is None or self.driver not in self.clients):
            self.driver = client
        return self.driver is client

    def detach(self, client: Peer) -> None:
        self.clients.pop(client, None)
        if client in self.would_drive:
            self.would_drive.remove(client)
        if self.driver is client:  # the client that asked to drive first, of those still attached, drives
            self.driver = self.would_drive[0] if self.would_drive else None

    def _write(self, message: dict[str, Any]) -> None:
        if not self.live or self.proc is None or self.proc.stdin is None:
            raise RuntimeError(f"session {self.ident} is not running (yoke respawn {self.ident})")
        self.proc.stdin.write((json.dumps(message) + "\n").encode())

    async def op(self, op: dict[str, Any]) -> dict[str, Any]:
        """One session-port op (`yoke.wire.ops`), as the session's stream-json input carries it: a prompt
        as a user message, a reply as the permission prompt's answer, the rest as control requests."""
        from yoke.events import port
        from yoke.wire.ops import answer_to_wire, op_from_wire

        if op.get("op") == "reply" and isinstance(op.get("answer"), dict):  # as the client wrote it, whole
            self.answer(str(op.get("request_id")), op["answer"])  # (updatedPermissions, updatedInput, ...)
            return {}
        parsed = op_from_wire(op)
        match parsed:
            case port.Prompt(content=content, id=ident):
                return self.prompt(content, ident)
            case port.Compact(instructions=instructions):
                return self.prompt(f"/compact {instructions}".strip())
            case port.Interrupt():
                self.interrupt()
            case port.Reply(request_id=request_id, answer=answer):
                self.answer(request_id, answer_to_wire(answer))
            case port.SetMode(mode=mode):
                await self.control({"subtype": "set_permission_mode", "mode": mode})
            case port.SetModel(model=model):
                return await self.control({"subtype": "set_model", "model": model})
            case port.Rewind(user_message_id=message_id):
                return await self.control({"subtype": "rewind_files", "user_message_id": message_id})
            case port.StopTask(task_id=task_id):
                await self.control({"subtype": "stop_task", "task_id": task_id})
                return {"stopped": True}
            case port.McpReconnect(server=server):
                await self.control({"subtype": "mcp_reconnect", "serverName": server})
            case port.McpEnable(server=server, enabled=enabled):
                await self.control({"subtype": "mcp_toggle", "serverName": server, "enabled": enabled})
            case port.Describe(what=what):
                return await self.control({"subtype": "yoke_describe", "what": what})
        return {}

    def prompt(self, content: Any, ident: str = "", priority: str = "") -> dict[str, Any]:
        """The prompt on disk (the session's queue journal) before it is acknowledged, then to the session;
        its `uuid` comes back on the replayed user line when its turn begins (or, `priority` `next`, when it
        joins the running turn)."""
        import uuid

        ident = ident or str(uuid.uuid4())
        text = content if isinstance(content, str) else json.dumps(content)
        journal_queue(self.ident, "enqueue", ident, content)
        self._write(
            {
                "type": "user",
                "message": {"role": "user", "content": content},
                "parent_tool_use_id": None,
                "session_id": self.record["sessionId"],
                "uuid": ident,
                **({"priority": priority} if priority else {}),  # 2.1.332's SDK field: now, next or later
            }
        )
        self.queued.append(text)
        self.last_activity = int(time.time() * 1000)
        self.set_state("busy", "working")
        return {"id": ident, "position": len(self.queued) - 1}

    async def control(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send the session a control request (the Agent SDK's shape); its answer's `response`, or
        RuntimeError with the session's error."""
        if request.get("subtype") not in CONTROL_SUBTYPES:
            raise ValueError(f"control subtype must be one of {', '.join(CONTROL_SUBTYPES)}")
        self.count += 1
        request_id = f"host-control-{self.count}"
        future = asyncio.get_running_loop().create_future()
        self.controls[request_id] = future
        try:
            self._write({"type": "control_request", "request_id": request_id, "request": request})
            async with asyncio.timeout(CONTROL_TIMEOUT):
                response = await future
        except TimeoutError:
            raise RuntimeError(
                f"session {self.ident} did not answer within {CONTROL_TIMEOUT:.0f} s"
            ) from None
        finally:
            self.controls.pop(request_id, None)
        if response.get("subtype") == "error":
            raise RuntimeError(str(response.get("error") or "the session refused"))
        return dict(response.get("response") or {})

    def answer(self, request_id: str, response: dict[str, Any]) -> None:
        """The first answer to a permission prompt wins; every client sees it answered (as a message)."""
        if self.pending.pop(request_id, None) is None:
            raise KeyError(f"permission request {request_id} is not waiting (answered already, or unknown)")
        reply = {"subtype": "success", "request_id": request_id, "response": response}
        self._write({"type": "control_response", "response": reply})
        self.publish({"type": "control_response", "response": reply})
        if not self.pending:
            self.set_state("busy", "working")

    def _deny_alone(self, request_id: str) -> None:
        """An ask nobody is attached to answer, in a session the host started for a durable task or in a turn
        no person started (a cron's, a wake-up's, a goal's next turn, and the goal's check after it): denied
        at once, the reason told to the model and kept in the stream log; the turn goes on."""
        if request_id in self.pending and not self.clients:
            deny = (
                "Nobody is attached to this scheduled run to ask (a turn no person started: a schedule's or"
                " a goal's), so it is denied; `yoke attach` to answer such questions."
            )
            try:
                self.answer(request_id, {"behavior": "deny", "message": deny})
            except (KeyError, RuntimeError):  # answered meanwhile, or the session ended
                pass

    def interrupt(self) -> None:
        self._write(
            {"type": "control_request", "request_id": f"host-{self.seq}", "request": {"subtype": "interrupt"}}
        )

    async def stop(self, force: bool) -> None:
        """Stop the session's process; its transcript stays and `respawn` continues it."""
        if not self.live or self.proc is None:
            return
        self.stopping = True
        try:
            if force:
                self.proc.kill()
            else:
                self.proc.send_signal(signal.SIGTERM)  # yoke interrupts the turn and closes the transcript
            try:
                async with asyncio.timeout(10):
                    await self.proc.wait()
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        except ProcessLookupError:
            pass


def _last_seq(ident: str) -> int:
    """A respawned session continues its numbering, so a client's last seen number stays meaningful."""
    last = 0
    for path in (rotated(stream_log_path(ident)), stream_log_path(ident)):
        try:
            with open(path, "rb") as handle:
                for line in handle:
                    try:
                        last = max(last, int(jsonsafe.loads(line)["seq"]))
                    except (ValueError, KeyError, TypeError):
                        continue
        except OSError:
            pass
    return last


def read_stream_log(ident: str, since: int = 0, before: int | None = None) -> list[dict[str, Any]]:
    entries = []
    for path in (rotated(stream_log_path(ident)), stream_log_path(ident)):  # the older part first
        try:
            with open(path, "rb") as handle:
                for line in handle:
                    try:
                        entry = jsonsafe.loads(line)
                        seq = int(entry["seq"])
                    except (ValueError, KeyError, TypeError):
                        continue  # a torn last line after a crash
                    if seq > since and (before is None or seq < before):
                        entries.append(entry)
        except OSError:
            pass
    return entries


def queue_journal_path(ident: str) -> Any:
    return stream_log_path(ident).with_suffix(".queue")


def journal_queue(ident: str, operation: str, prompt_id: str, content: Any = None) -> None:
    """The host's queue of a session on disk (`hosted/<id>.queue`, one JSON line per enqueue and dequeue):
    a prompt is written here before the client hears it was accepted, so a killed host, a `stop` or a
    restart loses none; `respawn` sends again those never begun (`pending_queue`)."""
    entry: dict[str, Any] = {"op": operation, "id": prompt_id}
    if content is not None:
        entry["content"] = content
    with open_private(queue_journal_path(ident), "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, separators=(",", ":")) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def pending_queue(ident: str) -> list[tuple[str, Any]]:
    """(id, content) of the prompts enqueued and never begun, oldest first."""
    pending: dict[str, Any] = {}
    try:
        with open(queue_journal_path(ident), "rb") as handle:
            for line in handle:
                try:
                    entry = jsonsafe.loads(line)
                except ValueError:
                    continue  # a torn last line
                if entry.get("op") == "enqueue":
                    pending[str(entry.get("id"))] = entry.get("content")
                elif entry.get("op") == "dequeue":
                    pending.pop(str(entry.get("id")), None)
    except OSError:
        pass
    return list(pending.items())


def clear_queue_journal(ident: str) -> None:
    """Once the pending prompts were sent again, the journal starts afresh (they are enqueued anew)."""
    try:
        os.unlink(queue_journal_path(ident))
    except OSError:
        pass
