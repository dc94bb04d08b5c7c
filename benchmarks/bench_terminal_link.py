"""A `yoke` terminal's session lent to the session host (docs/remote.md, "Any session"), measured against a
real host process with the terminal's side in process (a stand-in session port that publishes events):

- the time to register (connect to the host's socket, `register`, the entry written);
- the time per streamed text event from the terminal's port to a client attached through the host, for a
  2000-event turn (compare `bench_host.py`'s figure for a hosted session's events through the host);
- what a plain terminal session pays when no host runs: the settings read and the refused connection.

Run: `python benchmarks/bench_terminal_link.py`."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from yoke import events as ev
from yoke.events import port
from yoke.providers import base as pb

EVENTS = 2000


class StandIn:
    """The part of a terminal session's port the link reads."""

    def __init__(self, ident: str):
        self.id = ident
        self.model = "claude-bench"
        self.permission_mode = "default"
        self.messages: list[Any] = []
        self.transcript_path = None
        self.subscribers = port.Subscribers()

    def events(self):
        return self.subscribers.subscribe()

    def init_fields(self) -> dict[str, Any]:
        return {}

    def snapshot(self) -> port.Snapshot:
        return port.Snapshot(id=self.id, model=self.model, permission_mode="default", cwd="/")

    async def submit(self, op: Any) -> dict[str, Any]:
        return {}


async def _watcher(ident: str, path: str):
    reader, writer = await asyncio.open_unix_connection(path, limit=16 * 1024 * 1024)
    request = {
        "id": "w",
        "type": "request",
        "payload": {"method": "attach", "params": {"session": ident, "role": "watcher"}},
    }
    writer.write((json.dumps(request) + "\n").encode())
    while json.loads(await reader.readline()).get("id") != "w":
        pass
    return reader, writer


async def measure(socket: str) -> tuple[float, float]:
    from yoke.host.terminal_link import TerminalLink

    registrations = []
    for attempt in range(10):
        session = StandIn(f"bench-{attempt:04d}-0000-0000-000000000000")
        started = time.perf_counter()
        link = await TerminalLink.open(session, "/tmp")
        registrations.append(time.perf_counter() - started)
        await link.close()
        await asyncio.sleep(0.05)
    session = StandIn("bench-stream-0000-0000-000000000000")
    link = await TerminalLink.open(session, "/tmp")
    reader, writer = await _watcher(link.ident, socket)
    started = time.perf_counter()
    session.subscribers.publish(ev.StreamEvent(pb.MessageStart("m", "claude-bench", pb.Usage())))
    for index in range(EVENTS):
        session.subscribers.publish(ev.StreamEvent(pb.TextDelta(0, f"word{index} ")))
        if index % 50 == 0:
            await asyncio.sleep(0)  # the port's events arrive as a model streams them, not all at once
    seen = 0
    while seen < EVENTS:
        message = json.loads(await reader.readline())
        line = message["payload"].get("message") or {} if message.get("type") == "stream" else {}
        if (
            line.get("type") == "stream_event"
            and (line["event"].get("delta") or {}).get("type") == "text_delta"
        ):
            seen += 1
    per_event = (time.perf_counter() - started) / EVENTS
    writer.close()
    await link.close()
    return statistics.median(registrations), per_event


def no_host_cost(root: Path) -> float:
    from yoke.host.registrar import remote_policy
    from yoke.host.terminal_link import LinkError, TerminalLink

    async def once() -> None:
        remote_policy(str(root), dict(os.environ), None)
        try:
            await TerminalLink.open(StandIn("nohost-0000-0000-0000-000000000000"), str(root))
        except LinkError:
            pass

    times = []
    for _ in range(20):
        started = time.perf_counter()
        asyncio.run(once())
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="ykt") as tmp:
        root = Path(tmp)
        (root / "run").mkdir()
        os.environ.update(HOME=str(root), YOKE_HOME=str(root / ".yoke"), CLAUDE_CONFIG_DIR=str(root / ".claude"),
                          XDG_RUNTIME_DIR=str(root / "run"), YOKE_HOST_IDLE_STOP="30")  # fmt: skip
        from yoke.host.paths import socket_path

        alone = no_host_cost(root)
        host = subprocess.Popen([sys.executable, "-m", "yoke", "host"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            while not socket_path().exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            register, per_event = asyncio.run(measure(str(socket_path())))
        finally:
            host.terminate()
            host.wait(10)
    print(f"terminal session, registering with a running host:  {register * 1000:.1f} ms (median of 10)")
    print(
        f"terminal session, per streamed event to an attached client ({EVENTS} a turn): {per_event * 1e6:.0f} µs"
    )
    print(f"terminal session, no host running (settings read + refused connect): {alone * 1000:.1f} ms")


if __name__ == "__main__":
    main()
