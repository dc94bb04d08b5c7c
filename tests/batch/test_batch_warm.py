"""`yoke batch` with a warm template serving its user: the workers are forked from it (docs/warm.md), run
the tasks as cold workers do, and go with the batch process."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from tests.batch.helpers import batch_argv, git_repo, requests_per_task, results, server, task, write_tasks
from tests.cli.test_warm import Template
from tests.conftest import anthropic_env

# One worker for every test that needs a template to stay fresh: test_warm.py touches a Yoke module to
# make its own template stale, which makes every template alive at that moment stale too (cli/warm_template.py).
pytestmark = pytest.mark.xdist_group("warm")


@pytest.fixture
def template(base_env):
    t = Template(dict(base_env, YOKE_HOST_DIR="/nonexistent"))
    yield t
    t.stop()


def test_workers_forked_from_the_template_run_the_tasks(tmp_path, base_env, template):
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task(f"p{n}", repo) for n in range(4)])
    out = tmp_path / "out"
    with server() as srv:
        env = {**base_env, **anthropic_env(srv), "YOKE_HOST_DIR": str(template.folder)}
        proc = subprocess.Popen(
            batch_argv(str(tasks), "--out", str(out), "--workers", "2"),
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        forked: set[int] = set()
        while proc.poll() is None:
            forked |= set(template.runs())
            time.sleep(0.05)
        _, err = proc.communicate()
        assert proc.returncode == 0, err
        assert len(forked) == 2  # both workers were the template's forks
        assert len(results(out)) == 4
        assert requests_per_task(srv) == {f"p{n}": 2 for n in range(4)}
    deadline = time.monotonic() + 10
    while template.runs() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert template.runs() == []


def test_a_batch_killed_takes_its_forked_workers_with_it(tmp_path, base_env, template):
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task(f"p{n}", repo) for n in range(6)])
    with server(delay=0.5) as srv:
        env = {**base_env, **anthropic_env(srv), "YOKE_HOST_DIR": str(template.folder)}
        proc = subprocess.Popen(
            batch_argv(str(tasks), "--out", str(tmp_path / "out"), "--workers", "2"),
            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while len(template.runs()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(template.runs()) == 2
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 15
        while template.runs() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert template.runs() == []
    assert os.path.exists(Path(template.sock))
