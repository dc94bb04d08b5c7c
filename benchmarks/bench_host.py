"""The session host (`yoke host`, docs/wire.md) against the local scripted server:

- time from `yoke --bg "prompt"` to the first request reaching the server, with no host running (started on
  demand) and with one already running;
- time per streamed event (`--include-partial-messages`) for a client attached through the host, against
  reading the same session's stdout pipe directly (what an in-process front-end would see, plus one pipe);
- the host's memory, and the sessions' processes', with 20 idle sessions.

Run: `python benchmarks/bench_host.py`."""

from __future__ import annotations

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from yoke.host.paths import runtime_dir
from yoke.testing import ScriptedServer

WORDS = 2000  # about one streamed event per word
IDLE_SESSIONS = 20


def _env(root: Path, srv) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_", "CLAUDE_"))
    }
    env.update(
        HOME=str(root),
        YOKE_HOME=str(root / ".yoke"),
        CLAUDE_CONFIG_DIR=str(root / ".claude"),
        XDG_RUNTIME_DIR=str(root / "run"),
        ANTHROPIC_BASE_URL=srv.url,
        ANTHROPIC_API_KEY="sk-bench",
        YOKE_HOST_IDLE_STOP="60",
    )
    (root / "run").mkdir(exist_ok=True)
    return env


class Client:
    def __init__(self, path: Path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.reader = self.sock.makefile("rb")
        self.count = 0

    def call(self, method: str, params: dict) -> dict:
        self.count += 1
        ident = f"b{self.count}"
        self.sock.sendall(
            (
                json.dumps({"id": ident, "type": "request", "payload": {"method": method, "params": params}})
                + "\n"
            ).encode()
        )
        while True:
            message = json.loads(self.reader.readline())
            if message.get("id") == ident and message["type"] in ("response", "error"):
                return message

    def messages(self):
        while line := self.reader.readline():
            message = json.loads(line)
            if message["type"] == "stream":
                yield message["payload"]["message"]


def _kill_host(env: dict[str, str]) -> None:
    try:
        pid = Client(runtime_dir(env) / "host.sock").call("hello", {})["payload"]["host"]
        os.kill(pid, signal.SIGTERM)
        time.sleep(0.5)
    except OSError:
        pass


def bg_to_first_request(root: Path) -> tuple[float, float]:
    cold, warm = [], []
    for attempt in range(6):
        with ScriptedServer(default_turn={"content": [{"type": "text", "text": "ok"}]}) as srv:
            env = _env(root, srv)
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "yoke", "--bg", "hi"],
                env=env,
                cwd=root,
                capture_output=True,
                check=True,
            )
            while not srv.requests:
                time.sleep(0.001)
            (cold if attempt % 2 == 0 else warm).append(time.perf_counter() - started)
            if attempt % 2 == 1:
                _kill_host(env)
    return statistics.median(cold), statistics.median(warm)


def _span(messages) -> tuple[float, int]:
    """Seconds from the first streamed event to the result, and the number of streamed events."""
    first, count = None, 0
    for message in messages:
        if message.get("type") == "stream_event":
            first = first or time.perf_counter()
            count += 1
        elif message.get("type") == "result":
            return time.perf_counter() - (first or time.perf_counter()), count
    raise RuntimeError("no result")


def per_event(root: Path) -> tuple[float, float, int]:
    text = " ".join(f"w{i}" for i in range(WORDS))
    with ScriptedServer(default_turn={"content": [{"type": "text", "text": text}]}) as srv:
        env = _env(root, srv)
        direct = []
        for _ in range(3):
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "yoke",
                    "-p",
                    "go",
                    "--output-format",
                    "stream-json",
                    "--verbose",
                    "--include-partial-messages",
                ],
                env=env,
                cwd=root,
                stdout=subprocess.PIPE,
            )
            assert proc.stdout is not None
            direct.append(_span(json.loads(line) for line in proc.stdout))
            proc.wait()
        run = subprocess.run(
            [sys.executable, "-m", "yoke", "--bg", "go", "--include-partial-messages"],
            env=env,
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        )
        ident = run.stdout.split("· ")[1].split()[0]
        client = Client(runtime_dir(env) / "host.sock")
        client.call("attach", {"session": ident, "since": 0})
        stream = client.messages()
        _span(stream)  # the first turn, partly replayed
        hosted = []
        for _ in range(3):
            client.call("prompt", {"session": ident, "text": "again"})
            hosted.append(_span(stream))
        _kill_host(env)
    d = statistics.median(s / n for s, n in direct)
    h = statistics.median(s / n for s, n in hosted)
    return d, h, direct[0][1]


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def idle_memory(root: Path) -> tuple[float, float]:
    with ScriptedServer(default_turn={"content": [{"type": "text", "text": "ok"}]}) as srv:
        env = _env(root, srv)
        subprocess.run(
            [sys.executable, "-m", "yoke", "--bg", "warm up"],
            env=env,
            cwd=root,
            capture_output=True,
            check=True,
        )
        client = Client(runtime_dir(env) / "host.sock")
        for i in range(IDLE_SESSIONS - 1):
            client.call("start", {"prompt": f"session {i}", "cwd": str(root), "env": env})
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            rows = client.call("list", {})["payload"]["sessions"]
            if len(rows) >= IDLE_SESSIONS and all(r.get("state") == "idle" for r in rows[-IDLE_SESSIONS:]):
                break
            time.sleep(0.5)
        host = client.call("hello", {})["payload"]["host"]
        children = [r["pid"] for r in rows if r.get("pid")]
        host_mb = _rss_kb(host) / 1024
        children_mb = sum(_rss_kb(pid) for pid in children) / 1024
        _kill_host(env)
    return host_mb, children_mb


# before the session port (main at 09bed94, 2026-11-28): what the port was to shrink
BEFORE = {"engine": 399, "ui": 125, "host": 19}


def code_figures() -> tuple[int, int, int]:
    """Lines of session/engine.py, and `: Any` annotations in ui/ and host/ (the session port's measures)."""
    src = Path(__file__).resolve().parent.parent / "src" / "yoke"
    engine = len((src / "session" / "engine.py").read_text().splitlines())
    anys = [
        sum(": Any" in line for p in (src / d).rglob("*.py") for line in p.read_text().splitlines())
        for d in ("ui", "host")
    ]
    return engine, anys[0], anys[1]


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="ykb") as tmp:
        root = Path(tmp)
        cold, warm = bg_to_first_request(root)
        print(
            f"yoke --bg to the first request at the server:  {cold * 1000:.0f} ms (host started on demand), {warm * 1000:.0f} ms (host running)"
        )
        direct, hosted, count = per_event(root)
        print(
            f"per streamed event ({count} events a turn):        {direct * 1e6:.0f} µs on the session's own pipe, "
            f"{hosted * 1e6:.0f} µs attached through the host (+{(hosted - direct) * 1e6:.0f} µs)"
        )
        engine, ui_any, host_any = code_figures()
        print(
            f"session/engine.py: {engine} lines (before the port: {BEFORE['engine']}); `: Any` in ui/: {ui_any} "
            f"({BEFORE['ui']}), in host/: {host_any} ({BEFORE['host']})"
        )
        host_mb, children_mb = idle_memory(root)
        print(
            f"{IDLE_SESSIONS} idle hosted sessions:                      host {host_mb:.0f} MB RSS, sessions' processes "
            f"{children_mb:.0f} MB ({children_mb / IDLE_SESSIONS:.0f} MB each)"
        )


if __name__ == "__main__":
    main()
