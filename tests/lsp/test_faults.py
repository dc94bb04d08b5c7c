"""Servers that crash, hang or die: an edit still comes back within the diagnostics bound and says the
diagnostics were unavailable; a crashed server is started again after a pause, at most `maxRestarts` times;
servers stop with the session and die with Yoke, SIGKILL included."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.lsp.conftest import ARGV, DONE, FAKE, YOKE, call, server_log, server_log_pids, tool_results

from yoke.lsp.config import ServerSpec
from yoke.lsp.diagnostics import model_note
from yoke.lsp.manager import DiagnosticsSettings, LspManager
from yoke.testing.side_by_side import run_scenario

BOUND_MS = 300
SLACK_S = 1.5  # scheduling on a loaded machine; the servers themselves are given 15 s to start


def _manager(tmp_path: Path, mode: str, marker: Path | None = None, **spec) -> LspManager:
    args = [str(FAKE), mode, *([str(marker)] if marker else [])]
    fake = ServerSpec("fake", sys.executable, args, {".fk": "fake"}, **spec)
    return LspManager([fake], [tmp_path], dict(os.environ), DiagnosticsSettings(wait_ms=BOUND_MS))


async def _edit(manager: LspManager, path: Path, text: str) -> tuple[float, str]:
    started = time.monotonic()
    await manager.before_edit(path)
    path.write_text(text)
    report = await manager.after_edit(path)
    elapsed = time.monotonic() - started
    assert report is not None
    return elapsed, model_note([report], path.parent, 10)


@pytest.mark.parametrize("mode", ["crash", "hang"])
async def test_an_edit_returns_within_the_bound_when_the_server_fails(tmp_path, mode):
    manager = _manager(tmp_path, mode)
    path = tmp_path / "a.fk"
    path.write_text("ok\n")
    try:
        elapsed, note = await _edit(manager, path, "BROKEN\n")
    finally:
        await manager.close()
    # before and after each wait at most the bound
    assert elapsed < 2 * BOUND_MS / 1000 + SLACK_S
    assert "Diagnostics were unavailable" in note and "a.fk" in note
    assert "<new-diagnostics>" not in note


async def test_a_crashed_server_restarts_after_a_pause_and_gives_up_after_max_restarts(tmp_path):
    marker = tmp_path / "pids"
    manager = _manager(tmp_path, "marker", marker, max_restarts=1)
    manager.diagnostics.wait_ms = 10_000  # the server answers; the bound is not what this checks
    a, b, c, d = (tmp_path / f"{n}.fk" for n in "abcd")
    try:
        _, note = await _edit(manager, a, "BROKEN\n")
        assert "broken here" in note
        _, note = await _edit(manager, b, "DIE\n")  # the server exits on this text
        assert "unavailable" in note
        _, note = await _edit(manager, c, "BROKEN\n")
        assert "restarting after a pause" in note, note
        await asyncio.sleep(0.8)  # past the first pause (0.5 s)
        _, note = await _edit(manager, d, "BROKEN\n")
        assert "broken here" in note, note
        assert len(marker.read_text().split()) == 2  # started twice
        b.unlink()
        _, note = await _edit(manager, b, "DIE\n")
        await asyncio.sleep(1.2)
        _, note = await _edit(manager, a, "BROKEN\n")
        assert "not restarted" in note, note  # maxRestarts 1: no third start
        assert len(marker.read_text().split()) == 2
    finally:
        await manager.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = (
        Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if Path(f"/proc/{pid}").exists()
        else "Z"
    )
    return status != "Z"


def _wait_gone(pid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_a_server_dies_with_yoke_even_on_sigkill(tmp_path):
    marker = tmp_path / "pids"
    script = f"""
import asyncio, os, sys
from pathlib import Path
from yoke.lsp.config import ServerSpec
from yoke.lsp.manager import LspManager
async def main():
    spec = ServerSpec("fake", sys.executable, [{str(FAKE)!r}, "marker", {str(marker)!r}], {{".fk": "fake"}})
    manager = LspManager([spec], [Path({str(tmp_path)!r})], dict(os.environ))
    server, why = await manager.server_for(Path({str(tmp_path / "a.fk")!r}), wait=15)
    print("ready" if server else why, flush=True)
    await asyncio.sleep(60)
asyncio.run(main())
"""
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        pid = int(marker.read_text().split()[0])
        assert _alive(pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert _wait_gone(pid), "the language server outlived a SIGKILLed Yoke"
    finally:
        proc.kill()
        proc.wait()


def test_servers_stop_with_the_session_and_a_hung_one_does_not_hold_the_turn(tmp_path, base_env):
    servers = {
        "fake": {"command": sys.executable, "args": [str(FAKE), "marker"],
                 "extensionToLanguage": {".fk": "fake"}},
        "stuck": {"command": sys.executable, "args": [str(FAKE), "hang"], "extensionToLanguage": {".hg": "x"}},
    }  # fmt: skip
    scenario = {
        "argv": ARGV,
        "settings": {"lspServers": servers, "lsp": {"waitMs": BOUND_MS, "sandbox": False}},  # host pids
        "files": {"a.fk": "ok\n"},
        "turns": [
            call("r1", "Read", file_path="PROJECT/a.fk"),
            call("e1", "Write", file_path="PROJECT/b.hg", content="y\n"),
            DONE,
        ],
    }
    started = time.monotonic()
    result = run_scenario(YOKE, scenario, env=base_env, timeout=120)
    elapsed = time.monotonic() - started
    assert result["code"] == 0, result["stderr"][-2000:]
    text = tool_results(result["requests"][-1])["e1"]
    assert "Diagnostics were unavailable" in text and "stuck is still starting" in text, text
    assert elapsed < 15, "a hung server held the session"  # its start-up bound is 15 s
    (pid,) = server_log_pids(result, "fake")
    assert _wait_gone(pid, 5), "the server outlived its session"


def test_a_server_runs_in_the_sandbox_reading_but_not_writing_and_not_seeing_secrets(base_env):
    import shutil

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed (make test installs it)")
    servers = {
        "probe": {
            "command": sys.executable,
            "args": [str(FAKE), "probe"],
            "extensionToLanguage": {".fk": "x"},
        }
    }
    scenario = {
        "argv": ARGV,
        "settings": {"lspServers": servers, "lsp": {"waitMs": 20000}},
        "files": {"a.fk": "ok\n"},
        "turns": [
            call("r1", "Read", file_path="PROJECT/a.fk"),
            call("e1", "Write", file_path="PROJECT/b.fk", content="BROKEN\n"),
            DONE,
        ],
    }
    home = Path(base_env["HOME"])
    (home / ".aws").mkdir(parents=True, exist_ok=True)
    (home / ".aws" / "credentials").write_text("[default]\nsecret=1\n")
    env = {**base_env}
    result = run_scenario(YOKE, scenario, env=env, timeout=120)
    assert result["code"] == 0, result["stderr"][-2000:]
    log = server_log(result, "probe")
    assert "write: denied" in log and "secret: hidden" in log, log
    assert not (Path(result["project"]) / "written-by-server").exists()
    assert "broken here" in tool_results(result["requests"][-1])["e1"]  # and it still does its work


async def test_a_server_that_reports_only_changes_in_parts_and_without_versions(tmp_path):
    manager = _manager(tmp_path, "parts")
    path = tmp_path / "a.fk"
    path.write_text("ok\n")
    try:
        _, note = await _edit(manager, path, "still ok\n")  # it says nothing: silence, then a ping
        assert note == ""
        _, note = await _edit(manager, path, "BROKEN\n")  # an empty part first, the error 0.1 s later
        assert "broken here" in note, note
        _, note = await _edit(manager, path, "ok again\n")
        assert note == ""
    finally:
        await manager.close()
