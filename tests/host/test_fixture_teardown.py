"""The suite's own hygiene: what a test starts is found (tests/conftest.py marks every process with its
pytest run and test), and a host whose socket no longer answers is stopped by its fixture all the same."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.conftest import kill_processes_with, processes_left_behind
from tests.host.conftest import _stop_host, runtime_of, socket_of, wait_for, yoke_cmd


def test_a_process_a_test_starts_is_found_with_its_test():
    child = subprocess.Popen(["sleep", "300"])
    try:
        test, command = processes_left_behind()[child.pid]
        assert "test_a_process_a_test_starts_is_found_with_its_test" in test and command == "sleep 300"
    finally:
        child.kill()
        child.wait()
    assert child.pid not in processes_left_behind()


def test_a_host_that_does_not_answer_is_stopped_with_its_sessions(base_env, project):
    runtime = tempfile.mkdtemp(prefix="yk")
    env = dict(base_env, XDG_RUNTIME_DIR=runtime, YOKE_HOST_IDLE_STOP="600")
    from yoke.config.trust import trust_folder

    trust_folder(project, Path(base_env["YOKE_HOME"]))
    try:
        env["ANTHROPIC_BASE_URL"], env["ANTHROPIC_API_KEY"] = "http://127.0.0.1:9", "sk-test"  # nobody there
        started = yoke_cmd(env, project, "--bg", "wait")
        assert started.returncode == 0, started.stderr
        mark = f"XDG_RUNTIME_DIR={runtime}".encode()

        def host() -> list[int]:
            return [pid for pid, (_, cmd) in processes_left_behind(mark).items() if cmd.endswith("yoke host")]

        (pid,) = wait_for(host)
        os.unlink(socket_of(env))  # hello can no longer reach it: stopping it by the pid hello says fails
        _stop_host(runtime_of(env))
        assert host() == [pid]  # the host outlived the old teardown (idle stop: 600 s)
        kill_processes_with("XDG_RUNTIME_DIR", runtime)
        assert wait_for(lambda: not processes_left_behind(mark), timeout=30)
    finally:
        kill_processes_with("XDG_RUNTIME_DIR", runtime)
        shutil.rmtree(runtime, ignore_errors=True)
