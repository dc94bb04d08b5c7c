"""Every child dies with Yoke, SIGKILL included: real `yoke -p` processes whose hook, Monitor command or
Bash command is still running when Yoke is killed with `kill -9` (one mechanism: the door's guard)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.cli.test_engine_defects import _pids_running
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer


def _kill_yoke_then_expect_gone(proc: subprocess.Popen, marker: str) -> None:
    deadline = time.monotonic() + 30
    while not _pids_running(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _pids_running(marker), "the child never started"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while _pids_running(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _pids_running(marker)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"{marker} outlived a SIGKILLed yoke"


def _launch(project: Path, env: dict[str, str], *flags: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "yoke", "-p", "go", *flags],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_a_hook_dies_with_a_killed_yoke(project, base_env, home):
    """A hook that hangs (here a UserPromptSubmit hook that would sleep for minutes) is killed with Yoke."""
    marker = "318.25"
    settings = {
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": f"sleep {marker}", "timeout": 600}]}
            ]
        }
    }
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    with ScriptedServer([{"content": [{"type": "text", "text": "never"}]}]) as srv:
        proc = _launch(project, dict(base_env, **anthropic_env(srv)))
        _kill_yoke_then_expect_gone(proc, f"sleep {marker}")


@pytest.mark.parametrize("mode", ["bypassPermissions", "default"])
def test_a_monitor_command_dies_with_a_killed_yoke(project, base_env, mode):
    """Monitor's command (allowed by the mode, or by the read-only fast path: `sleep` reads nothing) runs
    in the background; Yoke is killed while it runs, and it goes too."""
    marker = "319.25"
    call = {"command": f"sleep {marker}", "description": "wait"}
    turns = [
        {"content": [{"type": "tool_use", "id": "m1", "name": "Monitor", "input": call}]},
        {"content": [{"type": "text", "text": "watching"}], "delay": 60},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv))
        proc = _launch(project, env, "--permission-mode", mode, "--allowedTools", f"Monitor(sleep {marker})")
        _kill_yoke_then_expect_gone(proc, f"sleep {marker}")
