"""The door itself (`yoke.spawn`) and the rule that keeps it the only one (`scripts/check_spawn.py`, run by
`make lint`): a process start planted anywhere else in a copy of the package fails the rule."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from yoke import spawn

ROOT = Path(__file__).resolve().parent.parent.parent
CHECK = ROOT / "scripts" / "check_spawn.py"


def _check(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(CHECK), str(root)], capture_output=True, text=True, timeout=120
    )


def test_the_checkout_starts_processes_only_through_the_door():
    run = _check(ROOT / "src" / "yoke")
    assert run.returncode == 0, run.stdout


def test_make_lint_runs_the_rule():
    lint = (ROOT / "Makefile").read_text().split("\nlint:", 1)[1].split("\n\n", 1)[0]
    assert "scripts/check_spawn.py" in lint


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory) -> Path:
    """The folder the planted module goes in (the rule reads each module on its own; the whole checkout
    passing is the first test)."""
    copy = tmp_path_factory.mktemp("pkg") / "yoke"
    (copy / "tools" / "builtin").mkdir(parents=True)
    shutil.copy(ROOT / "src" / "yoke" / "spawn.py", copy / "spawn.py")  # the door itself stays allowed
    return copy


@pytest.mark.parametrize(
    "planted",
    [
        "import subprocess\nsubprocess.run(['true'])\n",
        "import subprocess as sp\nsp.Popen(['true'])\n",
        "from subprocess import check_output\ncheck_output(['true'])\n",
        "import asyncio\nasync def f():\n    await asyncio.create_subprocess_exec('true')\n",
        "from asyncio import create_subprocess_shell as go\nasync def f():\n    await go('true')\n",
        "import asyncio.subprocess\nasync def f():\n    await asyncio.subprocess.create_subprocess_exec('x')\n",
        "import os\nos.execvp('true', ['true'])\n",
        "import os\nos.posix_spawn('/bin/true', ['true'], {})\n",
        "import os\nif os.fork() == 0:\n    pass\n",
        "import os\nos.system('true')\n",
        "import pty\npty.spawn(['true'])\n",
        "def f():\n    from os import spawnlp\n    spawnlp(0, 'true', 'true')\n",
        "import anyio\nasync def f():\n    await anyio.open_process(['true'])\n",
        "import asyncio\nasync def f():\n    await asyncio.get_running_loop().subprocess_exec(object, 'true')\n",
        "from multiprocessing import Process\nProcess(target=print).start()\n",
    ],
)
def test_a_process_started_outside_the_door_fails_the_rule(package_copy, planted):
    target = package_copy / "tools" / "builtin" / "planted.py"
    target.write_text(planted)
    run = _check(package_copy)
    assert run.returncode == 1
    assert "src/yoke/tools/builtin/planted.py:" in run.stdout and "outside the door" in run.stdout


def test_the_door_forks_only_in_its_one_named_entry(tmp_path):
    """spawn.fork_warm_run (the warm start's template) is the one fork; another in the door fails too."""
    door = tmp_path / "spawn.py"
    door.write_text((ROOT / "src" / "yoke" / "spawn.py").read_text())
    assert _check(tmp_path).returncode == 0
    door.write_text(door.read_text() + "\n\ndef another():\n    return os.fork()\n")
    run = _check(tmp_path)
    assert run.returncode == 1 and "outside fork_warm_run" in run.stdout


def test_exceptions_that_only_name_the_module_pass(tmp_path):
    (tmp_path / "ok.py").write_text(
        "import subprocess\ntry:\n    pass\nexcept subprocess.TimeoutExpired:\n    x = subprocess.PIPE\n"
    )
    assert _check(tmp_path).returncode == 0


def test_a_child_whose_gate_never_opens_runs_nothing(tmp_path):
    """The gate: had Yoke died between the start and the guard's listing, the pipe closes unread and the
    program never runs."""
    marker = tmp_path / "ran"
    closed = subprocess.run(
        spawn.gated(["touch", str(marker)]), stdin=subprocess.DEVNULL, capture_output=True, timeout=10
    )
    assert closed.returncode == 125 and not marker.exists()
    opened = subprocess.run(spawn.gated(["touch", str(marker)]), input=b"1\n", timeout=10)
    assert opened.returncode == 0 and marker.exists()


def test_the_door_applies_the_confinement_and_keeps_stdin(tmp_path):
    seen: list[list[str]] = []

    def confine(argv: list[str]) -> list[str]:
        seen.append(argv)
        return ["env", "CONFINED=1", *argv]

    done = spawn.run(["sh", "-c", 'echo "$CONFINED"; cat'], confine=confine, input=b"payload", timeout=10)
    assert seen == [["sh", "-c", 'echo "$CONFINED"; cat']]
    assert done.stdout == b"1\npayload" and done.returncode == 0


def test_no_input_reads_as_dev_null():
    done = spawn.run(["sh", "-c", "[ -p /dev/stdin ] && echo pipe || echo other"], confine=None, timeout=10)
    assert done.stdout == b"other\n"


def test_a_timeout_kills_the_whole_group(tmp_path):
    pid_file = tmp_path / "pid"
    with pytest.raises(subprocess.TimeoutExpired):
        spawn.run(["sh", "-c", f"sleep 300 & echo $! > {pid_file}; wait"], confine=None, timeout=1)
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state == "Z":
            break
        time.sleep(0.05)
    assert (
        not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().rsplit(")")[1][:3]
    )


def test_async_start_lists_the_group_with_the_guard():
    async def go() -> int:
        proc = await spawn.start(["sh", "-c", "exit 3"], confine=None)
        assert proc.pid in spawn._live_groups
        return await proc.wait()

    assert asyncio.run(go()) == 3
