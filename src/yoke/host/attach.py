"""`yoke attach <id>`: in a terminal, the terminal UI driving the hosted session (`host/remote.py`); from a
pipe or with `--lines`, a line client: lines typed are prompts, `y`/`n` answers a waiting permission prompt,
`/interrupt` interrupts, `/detach` or end of input leaves. Either way the session keeps running."""

from __future__ import annotations

import sys
import threading
import uuid
from typing import Any

from yoke.host.client import HostClient, HostError
from yoke.host.render import render


class LineClient:
    """The line client's state: the permission prompts waiting, the prompts this client sent whose turn
    has not ended, and whether its input has ended (then it leaves once they have)."""

    def __init__(self, client: HostClient, session: str, pending: list[str]):
        self.client, self.session, self.pending = client, session, pending
        self.sent: dict[str, str] = {}  # request id of an `op` prompt -> the prompt's id
        self.mine: set[str] = set()  # prompts sent, not ended
        self.running = ""  # the prompt whose turn runs now (this client's or another's)
        self.input_ended = threading.Event()
        self.leave = threading.Event()  # /detach

    def op(self, op: dict[str, Any]) -> str:
        return self.client.send("op", {"session": self.session, "op": op})

    def prompt(self, text: str) -> None:
        ident = str(uuid.uuid4())
        self.mine.add(ident)
        self.sent[self.op({"op": "prompt", "content": text, "id": ident})] = ident

    @property
    def done(self) -> bool:
        return self.leave.is_set() or (self.input_ended.is_set() and not self.mine)


def run_attach(record: dict[str, Any]) -> int:
    """The line client: never a traceback; from a pipe (`echo prompt | yoke attach ID`) it prints the answer
    and leaves when the turns of the prompts it sent have ended."""
    try:
        client = HostClient.connect(start=False)
        attached = client.request("attach", {"session": record["id"], "since": 0, "role": "driver"})
    except HostError as exc:
        print(f"yoke attach: {exc} (yoke respawn {record['id']} restarts it)", file=sys.stderr)
        return 1
    lines = LineClient(
        client, attached["session"], [str(m.get("request_id")) for m in attached.get("pending") or []]
    )
    print(
        f"attached to {lines.session} ({'driving' if attached['driver'] else 'watching'}); "
        "/detach leaves it running",
        flush=True,
    )
    threading.Thread(target=_keyboard, args=(lines,), daemon=True).start()
    code = 0
    try:
        while not lines.done:
            try:
                message = client.read(0.2)
            except HostError:
                print("(the host closed the connection)", flush=True)
                code = 1
                break
            if message is not None:
                code = _show(message, lines) or code
    except KeyboardInterrupt:
        pass
    except Exception as exc:  # a bug: one line, never a traceback
        print(f"yoke attach: {type(exc).__name__}: {exc}", file=sys.stderr)
        code = 1
    client.close()
    return code


def _show(message: dict[str, Any], lines: LineClient) -> int:
    """Print one message; 1 when the host refused a prompt of this client."""
    payload = message.get("payload") or {}
    if message.get("type") == "error" and message.get("id") in lines.sent:
        lines.mine.discard(lines.sent.pop(message["id"]))
        print(f"yoke attach: {payload.get('message')}", file=sys.stderr, flush=True)
        return 1
    if message.get("type") == "notification" and payload.get("method") == "session.state":
        if sys.stdout.isatty():  # the terminal title says when the session waits on the user
            sys.stdout.write(f"\033]0;yoke {payload['params']['session']}: {payload['params']['state']}\007")
        return 0
    if message.get("type") != "stream":
        return 0
    inner = payload.get("message") or {}
    kind = inner.get("type")
    if kind == "control_request":
        lines.pending.append(str(inner.get("request_id")))
    elif kind == "control_response":
        answered = str((inner.get("response") or {}).get("request_id"))
        if answered in lines.pending:
            lines.pending.remove(answered)
    elif kind == "user" and inner.get("isReplay"):
        lines.running = str(inner.get("uuid") or "")
    elif kind == "result":
        lines.mine.discard(lines.running)
        lines.running = ""
    elif kind == "system" and inner.get("subtype") == "session_ended":
        lines.mine.clear()
    text = render(inner)
    if text:
        print(text, flush=True)
    return 0


def _keyboard(lines: LineClient) -> None:
    try:
        for line in sys.stdin:
            text = line.strip()
            if text == "/detach":
                lines.leave.set()
                return
            if not text:
                continue
            if text == "/interrupt":
                lines.op({"op": "interrupt"})
            elif lines.pending and text.lower() in ("y", "yes", "n", "no"):
                allow = text.lower().startswith("y")
                answer = {"behavior": "allow"} if allow else {"behavior": "deny", "message": "Denied."}
                lines.op({"op": "reply", "request_id": lines.pending[0], "answer": answer})
            else:
                lines.prompt(text)
    except (OSError, ValueError):  # stdin closed under us, or the connection: the input has ended
        pass
    finally:
        lines.input_ended.set()


def run_attach_ui(record: dict[str, Any]) -> int:
    """The terminal UI driving the hosted session; leaving it (Ctrl+D, /exit) leaves the session running."""
    import asyncio

    try:
        return asyncio.run(attach_ui(record))
    except KeyboardInterrupt:
        return 130


async def attach_ui(record: dict[str, Any], banner: Any = None) -> int:
    """`banner(ui)`: the text to show after the session's past (`--remote-control`: the page's URL and
    code); it may keep `ui` to say more later."""
    import os

    from yoke.host.remote import RemoteSession
    from yoke.ui.app import TerminalUI
    from yoke.ui.asker import UIAsker

    ui: TerminalUI

    async def opener(**overrides: Any) -> RemoteSession:
        if overrides:  # /clear, /resume, /rewind open other sessions: not this client's to do
            raise ValueError("an attached session stays the same session; detach and start another")
        return await RemoteSession.open(record, UIAsker(ui))

    ui = TerminalUI(opener, record["cwd"], None, dict(os.environ))
    ui.settings_flag = None
    ui.auto_mode_enabled = False
    from yoke.host.hosted import read_stream_log

    shown = [render(entry["message"]) for entry in read_stream_log(record["id"])[-200:]]
    ui.emit("".join(f"{text}\n" for text in shown if text))  # what the session said so far
    ui.emit(f"attached to {record['id']} ({record.get('name') or ''}) · leaving keeps it running\n")
    if banner is not None:
        ui.emit(banner(ui))
    return await ui.run()
