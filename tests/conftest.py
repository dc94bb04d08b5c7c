"""Shared fixtures: an isolated home, and the real `yoke` command run as a subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# The suite starts `yoke` hundreds of times; without cached bytecode each start compiles every module again.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# Every process a test starts inherits this mark (base_env keeps PYTEST_* variables), and pytest's own
# PYTEST_CURRENT_TEST names the test: what is still running after the last test is a leak, and says whose.
# Per pytest process (each xdist worker its own), so concurrent runs on one machine are told apart.
os.environ["PYTEST_YOKE_RUN"] = str(os.getpid())
_RUN_MARK = f"PYTEST_YOKE_RUN={os.getpid()}".encode()
LEAK_GRACE_S = 15.0  # how long the processes the last tests left get to finish ending
# Helpers of the pytest process itself, which end with it: multiprocessing's (a test used it) and the spawn
# door's guard (`yoke.spawn`: Yoke in process started a child; it kills what is listed when pytest dies).
_PYTEST_HELPERS = re.compile(
    r"from multiprocessing\.(resource_tracker|forkserver) import main|^\S*bash .*declare -A g;"
)


def _parent(pid: str) -> int:
    with open(f"/proc/{pid}/stat", "rb") as handle:
        return int(handle.read().rsplit(b")", 1)[1].split()[1])


def processes_left_behind(mark: bytes = _RUN_MARK) -> dict[int, tuple[str, str]]:
    """The live processes (not this one) started under this pytest process, or whose environment holds
    `mark` (NAME=value): pid -> (test, command line)."""
    found: dict[int, tuple[str, str]] = {}
    if not os.path.isdir("/proc"):
        return found
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ = handle.read().split(b"\0")  # a zombie's is empty: it is not running
            if mark not in environ:
                continue
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
            if _PYTEST_HELPERS.search(command) and _parent(name) == os.getpid():
                continue
        except OSError:  # gone meanwhile, or not ours to read
            continue
        test = next(
            (v[20:].decode(errors="replace") for v in environ if v.startswith(b"PYTEST_CURRENT_TEST=")), "?"
        )
        found[int(name)] = (test, command[:200])
    return found


def kill_processes_with(variable: str, value: str) -> None:
    """SIGKILL every process whose environment sets `variable` to `value` (a fixture's own folder): what
    a test started stops even when it cannot be asked to (a host that does not answer)."""
    for pid in processes_left_behind(f"{variable}={value}".encode()):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="session", autouse=True)
def no_process_left_behind():
    """Every child process dies with Yoke, and every test stops what it started (a host, a listener): after
    the last test (and a grace for those still ending), a process this run started fails the run, naming
    the test that started it; it is killed so it does not outlive the suite either."""
    yield
    deadline = time.monotonic() + LEAK_GRACE_S
    left = processes_left_behind()
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = processes_left_behind()
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    if left:
        lines = "\n".join(
            f"  pid {pid} from {test}: {command}" for pid, (test, command) in sorted(left.items())
        )
        pytest.fail(f"{len(left)} process(es) outlived the tests that started them (now killed):\n{lines}")


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    def lines(self) -> list[dict]:
        """stdout as NDJSON (every line must be JSON)."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]

    def result(self) -> dict:
        return [o for o in self.lines() if o.get("type") == "result"][-1]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "project"
    p.mkdir()
    return p


@pytest.fixture
def base_env(home: Path) -> dict[str, str]:
    """An environment with nothing of the developer's: fresh HOME, no provider variables."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(
            ("ANTHROPIC_", "OPENAI_", "YOKE_", "CLAUDE_", "AWS_", "GOOGLE_", "GEMINI_", "XAI_", "GROK_")
        )
    }
    env.update(
        {
            "HOME": str(home),
            "YOKE_HOME": str(home / ".yoke"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "YOKE_RETRY_BASE_DELAY": "0.01",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


@pytest.fixture
def yoke(base_env: dict[str, str], project: Path):
    """Run the real `yoke` command: yoke(*args, env={...}, cwd=..., input=...) -> Run."""

    def run(
        *args: str,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        input: str | None = None,
        timeout: float = 60,
    ) -> Run:
        full_env = dict(base_env)
        full_env.update(env or {})
        proc = subprocess.run(
            [sys.executable, "-m", "yoke", *args],
            cwd=cwd or project,
            env=full_env,
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr)

    return run


def anthropic_env(srv) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-test"}


def openai_env(srv) -> dict[str, str]:
    return {"OPENAI_BASE_URL": srv.openai_url, "OPENAI_API_KEY": "sk-test", "YOKE_PROVIDER": "openai"}
