"""The connection manager on its own: a remote server that drops comes back; shutdown is quick and clean."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from tests.mcp_support.helpers import free_port, start_remote, stdio_entry

import yoke.mcp.manager as manager_module
from yoke.mcp.config import parse_server
from yoke.mcp.manager import McpManager


async def _until(predicate, timeout: float) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.1)
    return False


async def test_remote_server_drop_and_reconnect(tmp_path):
    port = free_port()
    proc = start_remote("http", port)
    cfg = parse_server("r", {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"}, "flag", "", {})
    changes: list[tuple[str, str]] = []
    manager = McpManager({"r": cfg}, tmp_path, on_change=lambda n, s, e: changes.append((s, e)))
    manager.start()
    try:
        await manager.wait_started()
        assert manager.servers["r"].status == "connected"
        proc.kill()
        proc.wait()
        try:
            await manager.call_tool("r", "echo", {"text": "x"})
        except Exception as exc:
            assert "lost" in str(exc) or "did not" in str(exc) or "pending" in str(exc)
        assert await _until(lambda: manager.servers["r"].status == "pending", 15)
        proc = start_remote("http", port)
        assert await _until(lambda: manager.servers["r"].status == "connected", 30), changes
        result = await manager.call_tool("r", "echo", {"text": "back"})
        assert result.content[0].text == "echo: back"
    finally:
        proc.kill()
        await manager.aclose()


async def test_close_stops_stdio_servers_within_a_second(tmp_path):
    configs = {f"s{i}": parse_server(f"s{i}", stdio_entry(), "flag", "", os.environ) for i in range(3)}
    manager = McpManager(configs, Path(tmp_path))
    manager.start()
    await manager.wait_started()
    pids = [s.link.pid for s in manager.servers.values()]
    assert all(s.status == "connected" for s in manager.servers.values())
    started = time.time()
    await manager.aclose()
    assert time.time() - started < 1.5
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}") or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


async def test_a_server_that_keeps_dying_ends_failed(tmp_path, monkeypatch):
    # the real back-off (2, 4, 8 s) made this the suite's slowest test; its shape is what is tested here
    monkeypatch.setattr(manager_module, "BACKOFF_S", (0.1, 0.2, 0.2))
    cfg = parse_server("d", stdio_entry("--die-after", "1"), "flag", "", os.environ)
    seen: list[str] = []
    manager = McpManager({"d": cfg}, Path(tmp_path), on_change=lambda n, s, e: seen.append(s))
    manager.start()
    try:
        assert await _until(lambda: manager.servers["d"].status == "failed", 90), seen
    finally:
        await manager.aclose()
    assert seen.count("connected") >= 2  # it was restarted, then given up on
    assert "kept exiting" in manager.servers["d"].error or "MCP_TIMEOUT" not in manager.servers["d"].error
