"""`yoke attach <id>`: in a terminal, the terminal UI driving the hosted session (`host/remote.py`); from a
pipe or with `--lines`, a line client: lines typed are prompts, `y`/`n` answers a waiting permission prompt,
`/interrupt` interrupts, `/detach` or end of input leaves. Either way the session keeps running."""

from __future__ import annotations

import sys
import threading
from typing import Any

from yoke.host.client import HostClient, HostError
from yoke.host.render import render


def run_attach(record: dict[str, Any]) -> int:
    try:
        client = HostClient.connect(start=False)
        attached = client.request("attach", {"session": record["id"], "since": 0, "role": "driver"})
    except HostError as exc:
        print(f"yoke attach: {exc} (yoke respawn {record['id']} restarts it)", file=sys.stderr)
        return 1
    session = attached["session"]
    pending: list[str] = [str(m.get("request_id")) for m in attached.get("pending") or []]
    print(
        f"attached to {session} ({'driving' if attached['driver'] else 'watching'}); /detach leaves it running"
    )
    done = threading.Event()
    threading.Thread(target=_keyboard, args=(client, session, pending, done), daemon=True).start()
    try:
        while not done.is_set():
            try:
                message = client.read(0.2)
            except HostError:
                print("(the host closed the connection)")
                return 1
            if message is None:
                continue
            _show(message, pending)
    except KeyboardInterrupt:
        pass
    client.close()
    return 0


def _show(message: dict[str, Any], pending: list[str]) -> None:
    payload = message.get("payload") or {}
    if message.get("type") == "notification" and payload.get("method") == "session.state":
        if sys.stdout.isatty():  # the terminal title says when the session waits on the user
            sys.stdout.write(f"\033]0;yoke {payload['params']['session']}: {payload['params']['state']}\007")
        return
    if message.get("type") != "stream":
        return
    inner = payload.get("message") or {}
    if inner.get("type") == "control_request":
        pending.append(str(inner.get("request_id")))
    elif inner.get("type") == "control_response":
        answered = str((inner.get("response") or {}).get("request_id"))
        if answered in pending:
            pending.remove(answered)
    text = render(inner)
    if text:
        print(text, flush=True)


def _keyboard(client: HostClient, session: str, pending: list[str], done: threading.Event) -> None:
    for line in sys.stdin:
        text = line.strip()
        if text == "/detach":
            break
        if not text:
            continue
        if text == "/interrupt":
            client.send("interrupt", {"session": session})
        elif pending and text.lower() in ("y", "yes", "n", "no"):
            allow = text.lower().startswith("y")
            answer = {"behavior": "allow"} if allow else {"behavior": "deny", "message": "Denied."}
            client.send("answer", {"session": session, "request_id": pending[0], "response": answer})
        else:
            client.send("prompt", {"session": session, "text": text})
    done.set()


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

    async def opener(**overrides: Any) -> Any:
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
