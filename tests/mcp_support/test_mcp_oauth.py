"""An OAuth-protected MCP server: `needs-auth` until `yoke mcp login`, which runs the MCP authorization flow
(discovery, dynamic registration, PKCE, a callback on 127.0.0.1) and stores the tokens 0600 in Yoke's home."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.conftest import anthropic_env
from tests.mcp_support.helpers import PY, free_port, text, tool_results, tool_use

from yoke.testing import ScriptedServer

OAUTH_SERVER = str(Path(__file__).with_name("oauth_test_server.py"))


def _wait_port(port: int) -> None:
    import socket

    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the OAuth test server did not start")


def test_needs_auth_then_login_then_connected(yoke, project, home, base_env):
    port = free_port()
    server = subprocess.Popen(
        [PY, OAUTH_SERVER, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_port(port)
        assert yoke("mcp", "add", "-t", "http", "secure", f"http://127.0.0.1:{port}/mcp").code == 0
        with ScriptedServer([text("hi")]) as srv:
            run = yoke("-p", "x", "--output-format", "stream-json", "--verbose", env=anthropic_env(srv))
        state = next(o for o in run.lines() if o.get("subtype") == "init")["mcp_servers"][0]
        assert state["status"] == "needs-auth" and "yoke mcp login secure" in state["error"]
        assert "Traceback" not in run.stderr

        login = subprocess.Popen(
            [sys.executable, "-m", "yoke", "mcp", "login", "secure", "--no-browser"],
            cwd=project,
            env=base_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        url = None
        for line in login.stdout:  # the user opens the printed URL; the test server approves at once
            found = re.search(r"http://\S+/authorize\S*", line)
            if found:
                url = found.group(0)
                break
        assert url, login.stderr.read()
        assert b"Signed in" in urllib.request.urlopen(url, timeout=30).read()
        assert login.wait(timeout=60) == 0, login.stderr.read()
        stored = home / ".yoke" / "mcp-auth" / "secure.json"
        assert stat.S_IMODE(os.stat(stored).st_mode) == 0o600
        assert json.loads(stored.read_text())["tokens"]["access_token"]

        with ScriptedServer([tool_use("mcp__secure__whoami", {}), text("ok")]) as srv:
            run = yoke(
                "-p",
                "x",
                "--output-format",
                "stream-json",
                "--verbose",
                "--allowedTools",
                "mcp__secure",
                env=anthropic_env(srv),
            )
        state = next(o for o in run.lines() if o.get("subtype") == "init")["mcp_servers"][0]
        assert state == {"name": "secure", "status": "connected"}, run.stderr
        assert tool_results(run)[0]["content"] == "signed in"
    finally:
        server.kill()
