"""Helpers for the MCP tests: the test server's command, free ports, config files."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

SERVER = str(Path(__file__).with_name("mcp_test_server.py"))
PY = sys.executable


def stdio_entry(*extra: str) -> dict:
    return {"command": PY, "args": [SERVER, "stdio", *extra]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_remote(transport: str, port: int, *extra: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [PY, SERVER, transport, str(port), *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"the {transport} test server did not start")


def write_config(path: Path, servers: dict) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def tool_use(name: str, input: dict, id: str = "toolu_1") -> dict:
    return {"content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}


def text(t: str) -> dict:
    return {"content": [{"type": "text", "text": t}]}


def tool_results(run) -> list[dict]:
    out = []
    for line in run.lines():
        if line.get("type") == "user":
            out.extend(b for b in line["message"]["content"] if b.get("type") == "tool_result")
    return out
