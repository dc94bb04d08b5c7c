"""`yoke batch` as a user runs it: a process against the scripted model server, which answers per task."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from tests.batch.helpers import batch_argv, git_repo, requests_per_task, results, server, task, write_tasks
from tests.conftest import anthropic_env


def _run(base_env, srv, *args: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    env = {**base_env, **anthropic_env(srv)}
    return subprocess.run(
        batch_argv(*args), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def _popen(base_env, srv, *args: str, cwd: Path) -> subprocess.Popen:
    """`yoke batch` started in the background, its output piped."""
    env = {**base_env, **anthropic_env(srv)}
    return subprocess.Popen(
        batch_argv(*args), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_twelve_tasks_half_pass_with_results_report_and_resume(tmp_path, base_env):
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task(f"p{n}", repo, suite="demo") for n in range(12)])
    out = tmp_path / "out"
    with server() as srv:
        run = _run(base_env, srv, str(tasks), "--out", str(out), "--workers", "2", "--json", cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        rows = results(out)
        assert len(rows) == 12
        assert sorted(r["id"] for r in rows if r["passed"]) == sorted(f"p{n}" for n in range(0, 12, 2))
        assert {r["status"] for r in rows} == {"passed", "failed"}
        for row in rows:
            assert row["attempt"] == 1 and row["turns"] == 2 and row["tokens"] > 0 and row["cost_usd"] > 0
            assert row["extra"] == {"suite": "demo"}
            assert Path(row["transcript"]).is_file() and Path(row["cassette"]).is_file()
            workspace = Path(row["workspace"])
            assert workspace.is_dir() and workspace != repo and not (repo / "out.txt").exists()
            assert "+++ b/out.txt" in Path(row["diff"]).read_text()
        report = json.loads(run.stdout)["models"]
        (model,) = report.values()
        assert model["pass@1"] == 0.5 and model["failures"]["grader fail"] == 6
        assert requests_per_task(srv) == {f"p{n}": 2 for n in range(12)}
        again = _run(base_env, srv, str(tasks), "--out", str(out), "--workers", "2", cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        assert "12 of 12 attempts already done" in again.stderr
        assert len(results(out)) == 12 and len(srv.requests) == 24  # nothing ran twice


def test_bad_task_lines_are_reported_by_number_and_the_rest_run(tmp_path, base_env):
    repo = tmp_path / "plain"
    repo.mkdir()
    good = [task("p0", repo), task("p1", repo)]
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        good,
        (
            '{"id": "p2", "prompt": ',
            '{"id": "p3", "repo": "plain"}',
            '{"id": "p4", "prompt": "x", "repo": "nowhere"}',
            '{"id": "p0", "prompt": "again", "repo": "plain"}',
            '{"id": "p5", "prompt": "x", "repo": "plain", "max_turns": -1}',
        ),
    )
    out = tmp_path / "out"
    with server() as srv:
        run = _run(base_env, srv, str(tasks), "--out", str(out), "--workers", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    for number in (3, 4, 5, 6, 7):
        assert f"line {number}:" in run.stderr
    assert "Traceback" not in run.stderr
    assert sorted(r["id"] for r in results(out)) == ["p0", "p1"]
    assert not (repo / "out.txt").exists()  # a plain folder is copied, never worked in


def test_bad_usage_is_one_line(tmp_path, base_env):
    with server() as srv:
        missing = _run(
            base_env, srv, str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "o"), cwd=tmp_path
        )
        no_out = _run(base_env, srv, str(tmp_path / "none.jsonl"), cwd=tmp_path)
        no_results = _run(base_env, srv, "report", str(tmp_path), cwd=tmp_path)
    for run in (missing, no_out, no_results):
        assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
        assert "Traceback" not in run.stderr


def test_a_task_that_times_out_one_over_budget_and_a_model_error(tmp_path, base_env):
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            task("slow", repo, timeout_s=2),
            task("costly", repo, budget_usd=0.5),
            task("p0", repo),
            task("broken", repo),
            task("p2", repo, timeout_s=2, grade="sleep 347 & sleep 347"),
        ],
    )
    out = tmp_path / "out"
    with server() as srv:
        started = time.monotonic()
        run = _run(base_env, srv, str(tasks), "--out", str(out), "--workers", "5", cwd=tmp_path)
        elapsed = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    status = {r["id"]: r["status"] for r in results(out)}
    assert status == {
        "slow": "timeout",
        "costly": "budget",
        "p0": "passed",
        "broken": "model_error",
        "p2": "timeout",
    }
    assert not _processes(b"sleep\x00347")  # the grader's whole tree was killed at its time limit
    assert elapsed < 15  # the slow answer takes 20 s; the attempt was cut at 2
    assert "timeout 2" in run.stdout and "budget 1" in run.stdout and "model error 1" in run.stdout
    (broken,) = [r for r in results(out) if r["id"] == "broken"]
    assert "bad request" in broken["error"]


def test_resume_after_kill_9_runs_nothing_twice(tmp_path, base_env):
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task(f"p{n}", repo) for n in range(8)])
    out = tmp_path / "out"
    with server(delay=0.15) as srv:
        env = {**base_env, **anthropic_env(srv)}
        proc = subprocess.Popen(
            batch_argv(str(tasks), "--out", str(out), "--workers", "2"),
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while len(results(out)) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        first = {r["id"] for r in results(out)}
        assert 3 <= len(first) < 8
        time.sleep(1.0)  # the workers die with the batch process; nothing more reaches the server
        before = requests_per_task(srv)
        time.sleep(1.0)
        assert requests_per_task(srv) == before
        run = _run(base_env, srv, str(tasks), "--out", str(out), "--workers", "2", cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        after = requests_per_task(srv)
    rows = results(out)
    assert sorted(r["id"] for r in rows) == sorted(f"p{n}" for n in range(8))  # one line per attempt
    for task_id in first:
        assert after[task_id] == 2  # done before the kill: not run again
    assert sum(r["passed"] for r in rows) == 4


def test_regrade_replays_without_a_model_request(tmp_path, base_env):
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task(f"p{n}", repo) for n in range(4)])
    out = tmp_path / "out"
    with server() as srv:
        assert (
            _run(base_env, srv, str(tasks), "--out", str(out), "--workers", "2", cwd=tmp_path).returncode == 0
        )
        sent = len(srv.requests)
        run = _run(
            base_env, srv, "regrade", str(out), "--grade", "grep -q fail out.txt", "--json", cwd=tmp_path
        )
        assert run.returncode == 0, run.stderr
        assert len(srv.requests) == sent
    regraded = [json.loads(line) for line in (out / "regrade" / "results.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in regraded if r["passed"]) == ["p1", "p3"]  # the new grader, inverted
    for row in regraded:
        assert Path(row["workspace"]).is_relative_to(out / "regrade")
        assert (Path(row["workspace"]) / "out.txt").is_file()  # the tools ran again, for real
    report = json.loads(run.stdout)
    assert next(iter(report["models"].values()))["pass@1"] == 0.5


def test_report_and_html_page(tmp_path, base_env):
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task(f"p{n}", repo) for n in range(2)])
    out = tmp_path / "out"
    with server() as srv:
        models = ("--models", "sonnet,haiku")
        first = _run(base_env, srv, str(tasks), "--out", str(out), "--attempts", "2", *models, cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        page = tmp_path / "report.html"
        run = _run(base_env, srv, "report", str(out), "--html", str(page), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert len(results(out)) == 8  # 2 tasks x 2 models x 2 attempts
    assert run.stdout.count("pass@1 50.0%  pass@2 50.0%") == 2  # one report per model
    assert {r["model_spec"] for r in results(out)} == {"sonnet", "haiku"}
    html = page.read_text()
    assert "<svg" in html and "pass@2" in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html
    assert "<script src" not in html and "<link" not in html


@pytest.mark.skipif(not Path("/usr/bin/bwrap").exists(), reason="needs bubblewrap")
def test_bash_runs_unasked_inside_the_sandbox(tmp_path, base_env):
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task("bash1", repo)])
    out = tmp_path / "out"
    with server() as srv:
        assert _run(base_env, srv, str(tasks), "--out", str(out), cwd=tmp_path).returncode == 0
    (row,) = results(out)
    assert row["status"] == "passed"  # acceptEdits, yet Bash ran: the sandbox allows it without a question
    assert not (
        Path(row["workspace"]).parent / "escaped"
    ).exists()  # its write outside never reached the disk


@pytest.mark.skipif(not Path("/usr/bin/bwrap").exists(), reason="needs bubblewrap")
def test_the_grader_runs_in_the_sandbox(tmp_path, base_env):
    repo = git_repo(tmp_path / "repo")
    outside = tmp_path / "outside.txt"
    tasks = write_tasks(
        tmp_path / "tasks.jsonl", [task("p0", repo, grade=f"echo x > {outside}; grep -q pass out.txt")]
    )
    out = tmp_path / "out"
    with server() as srv:
        assert _run(base_env, srv, str(tasks), "--out", str(out), cwd=tmp_path).returncode == 0
    (row,) = results(out)
    assert row["status"] == "passed"  # the grader ran in the workspace...
    assert not outside.exists()  # ...and its write outside it never reached the disk


def _processes(*needles: bytes) -> set[int]:
    """Live processes whose command line holds any of `needles`."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes()
                state = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state != b"Z" and any(n in cmd for n in needles):
                found.add(int(entry.name))
    return found


def _ray_processes() -> set[int]:
    return _processes(b"raylet", b"gcs_server", b"ray::")


def test_the_same_batch_on_a_local_ray(tmp_path, base_env):
    pytest.importorskip("ray")
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task(f"p{n}", repo) for n in range(4)])
    out = tmp_path / "out"
    before = _ray_processes()
    with server() as srv:
        run = _run(
            base_env,
            srv,
            str(tasks),
            "--out",
            str(out),
            "--workers",
            "2",
            "--ray",
            "--rpm",
            "600",
            cwd=tmp_path,
        )
        assert run.returncode == 0, run.stderr
        assert requests_per_task(srv) == {f"p{n}": 2 for n in range(4)}
    rows = results(out)
    assert sorted(r["id"] for r in rows if r["passed"]) == ["p0", "p2"]
    assert all(Path(r["cassette"]).is_file() for r in rows)
    deadline = time.monotonic() + 20
    while _ray_processes() - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _ray_processes() - before  # the local Ray started for the run is gone


def test_ctrl_c_stops_cleanly_and_the_rerun_finishes(tmp_path, base_env):
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task(f"p{n}", repo) for n in range(4)])
    out = tmp_path / "out"
    with server(delay=3.0) as srv:
        proc = _popen(base_env, srv, str(tasks), "--out", str(out), "--workers", "2", cwd=tmp_path)
        deadline = time.monotonic() + 60
        while len(srv.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
        assert proc.returncode == 130, stderr
        assert time.monotonic() - started < 10
        assert "Traceback" not in stderr and "Run the same command again" in stderr
        assert results(out) == []  # cancelled attempts are not recorded...
        workspaces = list(out.glob("attempts/*/default/1/workspace"))
        assert len(workspaces) == 2  # ...and their workspaces are left for inspection
        srv.pace["delay"] = 0.0
        run = _run(base_env, srv, str(tasks), "--out", str(out), "--workers", "2", cwd=tmp_path)
        assert run.returncode == 0, run.stderr
    assert sorted(r["id"] for r in results(out)) == ["p0", "p1", "p2", "p3"]


def test_a_git_url_at_a_commit(tmp_path, base_env):
    repo = git_repo(tmp_path / "repo")
    first = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True
    ).stdout.strip()
    (repo / "LATER").write_text("after the commit asked for\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "later"], cwd=repo, check=True
    )
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task("p0", f"file://{repo}", commit=first)])
    out = tmp_path / "out"
    with server() as srv:
        run = _run(base_env, srv, str(tasks), "--out", str(out), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    (row,) = results(out)
    workspace = Path(row["workspace"])
    assert row["passed"] and (workspace / "README").is_file() and not (workspace / "LATER").exists()


def test_progress_bar_on_a_terminal(tmp_path, base_env):
    import pty

    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task(f"p{n}", repo) for n in range(4)])
    master, slave = pty.openpty()
    with server() as srv:
        env = {**base_env, **anthropic_env(srv), "COLUMNS": "120", "TERM": "xterm"}
        proc = subprocess.Popen(
            batch_argv(str(tasks), "--out", str(tmp_path / "out")),
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=slave,
        )
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        assert proc.wait(timeout=120) == 0
    text = shown.decode("utf-8", "replace")
    assert "4/4" in text and "pass 50%" in text and "$" in text


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_stopping_the_batch_ends_a_running_grader(tmp_path, base_env, sig):
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task("p0", repo, grade="sleep 348 & sleep 348")])
    out = tmp_path / "out"
    with server() as srv:
        proc = subprocess.Popen(
            batch_argv(str(tasks), "--out", str(out)),
            cwd=tmp_path,
            env={**base_env, **anthropic_env(srv)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while not _processes(b"sleep\x00348") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _processes(b"sleep\x00348"), "the grader never started"
        proc.send_signal(sig)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while _processes(b"sleep\x00348") and time.monotonic() < deadline:
            time.sleep(0.1)
    assert not _processes(b"sleep\x00348")
    assert results(out) == []  # a stopped attempt has no line: the next run starts it again


def test_rpm_is_one_bucket_shared_by_the_workers(tmp_path, base_env):
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task(f"p{n}", repo) for n in range(6)])
    out = tmp_path / "out"
    arrivals: list[float] = []
    from tests.batch.helpers import answer

    from yoke.testing import ScriptedServer

    def timed(body):
        arrivals.append(time.monotonic())
        return answer(body)

    with ScriptedServer(default_turn=timed) as srv:
        args = ("--out", str(out), "--workers", "2", "--rpm", "60")  # a burst of 10, then one a second
        run = _run(base_env, srv, str(tasks), *args, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert len(arrivals) == 12
    assert arrivals[-1] - arrivals[0] >= 1.5  # requests 11 and 12 waited for the refill, whichever worker
    assert len(list((out / ".ratelimit").glob("*.bucket"))) == 1  # one key, one bucket


def test_ray_is_imported_only_with_the_flag(tmp_path, base_env):
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "ray.py").write_text("raise ImportError('No module named ray')\n")  # Ray not installed
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task("p0", repo)])
    env = {**base_env, "PYTHONPATH": str(fake)}
    with server() as srv:
        local = _run(env, srv, str(tasks), "--out", str(tmp_path / "a"), cwd=tmp_path)
        ray = _run(env, srv, str(tasks), "--out", str(tmp_path / "b"), "--ray", cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    assert (
        ray.returncode == 2 and ray.stderr.strip() == "yoke batch: --ray needs Ray: pip install 'yoke[ray]'"
    )


def test_a_ray_address_nobody_answers_at_is_one_line(tmp_path, base_env):
    pytest.importorskip("ray")
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task("p0", repo)])
    with server() as srv:
        run = _run(
            base_env,
            srv,
            str(tasks),
            "--out",
            str(tmp_path / "o"),
            "--ray",
            f"127.0.0.1:{port}",
            cwd=tmp_path,
        )
        assert srv.requests == []
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert f"could not reach Ray at 127.0.0.1:{port}" in run.stderr


def test_a_background_agent_and_its_follow_up_run_in_an_attempt(tmp_path, base_env):
    """The Agent tool runs a sub-agent in the background (as 2.1.330 does): the attempt waits for it and for
    the follow-up query its notice starts, and is graded after that."""
    from tests.agents.test_subagents import call, steps, text
    from tests.batch.helpers import task_of

    def answer(body):
        if "SUBJOB" in json.dumps(body["messages"][0]):
            write = call("w1", "Write", file_path="out.txt", content="pass\n")
            return {"content": [write]} if steps(body) == 0 else text("written")
        if task_of(body) == "agent":
            launch = call("a1", "Agent", description="write", prompt="SUBJOB: write out.txt")
            return [{"content": [launch]}, text("launched"), text("after the notice")][min(steps(body), 2)]
        raise AssertionError(body)

    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task("agent", repo)])
    out = tmp_path / "out"
    from yoke.testing import ScriptedServer

    with ScriptedServer(default_turn=answer) as srv:
        run = _run(base_env, srv, str(tasks), "--out", str(out), "--json", cwd=tmp_path)
        mains = [r.body for r in srv.requests if r.body and task_of(r.body) == "agent"]
    assert run.returncode == 0, run.stderr
    (row,) = results(out)
    assert row["passed"] and row["reason"] == "completed", row
    assert len(mains) == 3 and "written" in json.dumps(mains[-1]["messages"][-1])  # the notice's follow-up


def _worker_pids(batch_pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == batch_pid and b"yoke.batch.worker" in cmdline:
            found.append(int(entry.name))
    return found


def test_a_killed_worker_is_a_crash_that_the_rerun_retries(tmp_path, base_env):
    """Issue 40 item 3: a worker killed mid-attempt (the OOM killer, a user's kill -9) is `crashed`, at once,
    never `timeout`; the next run of the same command runs that attempt again."""
    repo = git_repo(tmp_path / "repo")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task("p0", repo), task("p2", repo)])
    out = tmp_path / "out"
    with server(delay=2.0) as srv:
        proc = _popen(base_env, srv, str(tasks), "--out", str(out), "--workers", "1", cwd=tmp_path)
        deadline = time.monotonic() + 60
        while not srv.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        (worker,) = _worker_pids(proc.pid)
        killed = time.monotonic()
        os.kill(worker, signal.SIGKILL)
        while not results(out) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert time.monotonic() - killed < 30  # not the attempt's hour-long hard limit
        srv.pace["delay"] = 0.0
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
        first = {r["id"]: r for r in results(out)}
        assert first["p0"]["status"] == "crashed", first["p0"]
        assert "killed by signal 9" in first["p0"]["error"]
        assert first["p2"]["status"] == "passed"
        run = _run(base_env, srv, str(tasks), "--out", str(out), "--workers", "1", cwd=tmp_path)
        assert run.returncode == 0, run.stderr
    rows = {r["id"]: r for r in results(out)}  # the rerun's line replaces the crashed one
    assert rows["p0"]["status"] == "passed" and rows["p2"]["status"] == "passed"


WORKSPACE_PROBE = """
import sys
from pathlib import Path
from yoke.batch.workspace import make_workspace
for n in range(3):
    folder = Path(sys.argv[2]) / str(n) / "workspace"
    folder.parent.mkdir(parents=True)
    make_workspace(sys.argv[1], None, folder, Path(sys.argv[3]))
"""


def test_workers_setting_up_workspaces_at_once_all_succeed(tmp_path):
    """Issue 40 item 3: `git worktree add` run at once by several workers on one repository races for the
    worktree's administrative folder (every attempt's folder is named `workspace`); bare git fails about
    one add in five this way on 2 cores. Eight processes, three workspaces each: none fails."""
    import sys

    repo = git_repo(tmp_path / "repo")
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKSPACE_PROBE,
                str(repo),
                str(tmp_path / f"w{n}"),
                str(tmp_path / "cache"),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(8)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, errors
    assert len(list(tmp_path.glob("w*/*/workspace/README"))) == 24
