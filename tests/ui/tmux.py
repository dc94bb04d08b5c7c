"""Driving the real `yoke` inside tmux: type with send-keys, read the screen with capture-pane.

Each test gets its own tmux server (a private socket), so tests never see each other's panes. Waits poll
the screen against a deadline instead of sleeping fixed times (the machine may be loaded).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
needs_tmux = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (make system-deps)")
CONF = "set -g remain-on-exit on\nset -sg escape-time 0\nset -g history-limit 5000\nset -g status off\n"


class Pane:
    def __init__(
        self,
        args: list[str],
        env: dict[str, str],
        cwd: Path,
        width: int = 100,
        height: int = 40,
        inner_env: dict[str, str] | None = None,  # set inside the pane (tmux sets TERM there itself)
    ):
        self.socket = f"yoke-test-{uuid.uuid4().hex[:10]}"
        conf = cwd.parent / f"{self.socket}.conf"
        conf.write_text(CONF)
        self.env = dict(env)
        self.env.pop("TMUX", None)
        self.env.setdefault("TERM", "xterm-256color")
        self.env.pop("NO_COLOR", None) if "NO_COLOR" not in env else None
        command = [sys.executable, "-m", "yoke", *args]
        if inner_env:
            command = ["env", *(f"{k}={v}" for k, v in inner_env.items()), *command]
        # tmux does not always keep a dead pane's exit status: the shell prints it instead
        command = ["sh", "-c", '"$@"; echo "[yoke exited $?]"', "sh", *command]
        self._tmux(
            "-f", str(conf), "new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height),
            "-c", str(cwd), *command,
        )  # fmt: skip

    def _tmux(self, *args: str) -> str:
        proc = subprocess.run(
            [TMUX or "tmux", "-L", self.socket, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=20,
        )
        return proc.stdout

    def keys(self, *keys: str) -> None:
        """tmux key names: Enter, Escape, BTab, C-c, Down ..."""
        self._tmux("send-keys", "-t", "t", *keys)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "t", "-l", text)

    def screen(self, history: bool = True) -> str:
        args = ["capture-pane", "-p", "-t", "t"]
        if history:
            args += ["-S", "-3000"]
        return self._tmux(*args)

    def wait_for(self, pattern: str, timeout: float = 30.0, regex: bool = False) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if re.search(pattern, screen) if regex else pattern in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{pattern!r} did not appear within {timeout}s; the screen:\n{screen}")

    def wait_gone(self, pattern: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen(history=False)
            if pattern not in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{pattern!r} still on screen after {timeout}s:\n{screen}")

    def dead(self) -> bool:
        return self._tmux("display-message", "-p", "-t", "t", "#{pane_dead}").strip() == "1"

    def exit_status(self) -> int:
        """The exit code of `yoke`, once it has exited."""
        match = re.search(r"\[yoke exited (\d+)\]", self.wait_for("[yoke exited ", 10))
        assert match is not None
        return int(match.group(1))

    def wait_exit(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.dead():
                return
            time.sleep(0.1)
        raise AssertionError(f"yoke did not exit within {timeout}s:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run([TMUX or "tmux", "-L", self.socket, "kill-server"], capture_output=True, env=self.env)


def trusted_home_env(base_env: dict[str, str], project: Path) -> dict[str, str]:
    """base_env with `project` already trusted (so a test starts at the prompt)."""
    from yoke.config.trust import trust_folder

    trust_folder(project, Path(base_env["YOKE_HOME"]))
    return base_env


def wait_prompt(pane: Pane, timeout: float = 30.0) -> str:
    """Wait until the session is open and the prompt takes input (the footer shows the mode hint)."""
    return pane.wait_for("shift+tab to cycle", timeout)


os.environ.setdefault("YOKE_UI_TESTS", "1")


def pick(pane: Pane, label: str, timeout: float = 30.0) -> None:
    """Choose the option whose text contains `label` in the question on screen (by its number)."""
    screen = pane.wait_for(r"(?m)^\s*❯?\s*\d\. .*" + re.escape(label), timeout, regex=True)
    for line in reversed(screen.splitlines()):
        match = re.match(r"\s*❯?\s*(\d)\. (.*)", line)
        if match and label in match.group(2):
            pane.keys(match.group(1))
            return
    raise AssertionError(f"no option {label!r} on screen:\n{screen}")
