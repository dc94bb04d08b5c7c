"""Notification latency (docs/notifications.md): from a hosted session blocking on a permission prompt to the
push message received, verified and decrypted by a local push service (tests/host/push_service.py), and to
the webhook's POST. The clock starts when an attached client reads the session's `can_use_tool` message.

Path: session process -> host (relay, notifier) -> pywebpush (encrypt, sign) -> push service; and httpx ->
webhook. Run: `python benchmarks/bench_notify.py`."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.host.conftest import Raw  # noqa: E402
from tests.host.push_service import PushService  # noqa: E402

from yoke.testing import ScriptedServer  # noqa: E402

SESSIONS = 5


def _env(root: Path, srv, service: PushService) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_", "CLAUDE_"))
    }
    env.update(HOME=str(root), YOKE_HOME=str(root / ".yoke"), CLAUDE_CONFIG_DIR=str(root / ".claude"),
               XDG_RUNTIME_DIR=str(root / "run"), ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="sk-bench",
               YOKE_HOST_IDLE_STOP="30", YOKE_PUSH_ENDPOINTS=service.base + "/push/")  # fmt: skip
    (root / "run").mkdir(exist_ok=True)
    (root / ".claude").mkdir(exist_ok=True)
    hook = {"remoteNotifications": {"webhook": service.base + "/hook", "format": "ntfy"}}
    (root / ".claude" / "settings.json").write_text(json.dumps(hook))
    return env


def _subscribe(url: str, code: str, service: PushService) -> None:
    import http.client

    parts = urllib.parse.urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"

    def ask(method: str, path: str, body: str | None = None, headers: dict | None = None):
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        conn.request(method, path, body=body, headers=headers or {})
        reply = conn.getresponse()
        return reply, reply.read()

    reply, _ = ask("POST", "/pair", urllib.parse.urlencode({"code": code}),
                    {"Content-Type": "application/x-www-form-urlencoded"})  # fmt: skip
    cookie = reply.getheader("Set-Cookie").split(";")[0]
    _, data = ask("GET", "/push/key", headers={"Cookie": cookie})
    service.expected_key = json.loads(data)["publicKey"]
    body = json.dumps(service.subscriber("phone").subscription())
    reply, _ = ask("POST", "/push/subscribe", body,
                    {"Cookie": cookie, "Origin": origin, "Content-Type": "application/json"})  # fmt: skip
    assert reply.status == 200


def main() -> None:
    from yoke.config.trust import trust_folder
    from yoke.host.paths import runtime_dir

    service = PushService()
    call = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "python3 -c 'print(1)'"}}
    turns = [{"content": [call]} for _ in range(SESSIONS)]
    push, hook = [], []
    with (
        tempfile.TemporaryDirectory(prefix="ykn", ignore_cleanup_errors=True) as tmp,
        ScriptedServer(turns) as srv,
    ):
        root = Path(tmp)
        env = _env(root, srv, service)
        trust_folder(root, root / ".yoke")
        first = subprocess.run([sys.executable, "-m", "yoke", "--bg", "blocked 0"], env=env, cwd=root,
                               capture_output=True, text=True, check=True)  # fmt: skip
        idents = [first.stdout.split("· ")[1].split()[0]]
        page = subprocess.Popen([sys.executable, "-m", "yoke", "remote-control", "--json"], env=env, cwd=root,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
        try:
            line = json.loads(page.stdout.readline())  # type: ignore[union-attr]
            _subscribe(line["url"], line["code"], service)
            sock = runtime_dir(env) / "host.sock"
            for n in range(SESSIONS):
                if n:
                    run = subprocess.run([sys.executable, "-m", "yoke", "--bg", f"blocked {n}"], env=env,
                                         cwd=root, capture_output=True, text=True, check=True)  # fmt: skip
                    idents.append(run.stdout.split("· ")[1].split()[0])
                pushed, hooked = len(service.received), len(service.webhook)
                raw = Raw(sock)
                raw.call("attach", {"session": idents[n], "since": 0, "role": "watcher"})
                raw.until(
                    lambda m: ((m.get("payload") or {}).get("message") or {}).get("type") == "control_request"
                )
                seen = time.monotonic()
                deadline = seen + 30
                while (
                    len(service.received) == pushed or len(service.webhook) == hooked
                ) and time.monotonic() < deadline:
                    time.sleep(0.002)
                if len(service.received) > pushed:
                    push.append(service.received[-1]["at"] - seen)
                if len(service.webhook) > hooked:
                    hook.append(service.webhook[-1]["at"] - seen)
        finally:
            page.terminate()
            page.wait(10)
            with contextlib.suppress(OSError, KeyError, TypeError):  # the host, and its sessions with it
                os.kill(Raw(runtime_dir(env) / "host.sock").call("hello")["payload"]["host"], signal.SIGKILL)
            service.close()
    if service.errors:
        print(f"notification latency: push service refused: {service.errors[0]}")
    for name, values in (("Web Push (VAPID-verified, decrypted)", push), ("webhook (ntfy)", hook)):
        if not values:
            print(f"notification latency, blocked -> {name}: none received")
            continue
        ms = sorted(v * 1000 for v in values)
        print(f"notification latency, blocked -> {name}: median {statistics.median(ms):.0f} ms, "
              f"max {ms[-1]:.0f} ms over {len(ms)} sessions")  # fmt: skip


if __name__ == "__main__":
    main()
