"""The warm start through the session host: the host keeps a template (host/warm.py), `yoke -p` and
`yoke --bg` are forked from it, a template that goes is replaced, and the host can be told not to."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from tests.conftest import anthropic_env
from tests.host.conftest import agents, runtime_of, wait_for, yoke_cmd

from yoke.testing import ScriptedServer

# One worker for every test that needs a template to stay fresh: test_warm.py touches a Yoke module to
# make its own template stale, which makes every template alive at that moment stale too (cli/warm_template.py).
pytestmark = pytest.mark.xdist_group("warm")

HELLO = {"content": [{"type": "text", "text": "hello"}]}


def _template_pid(env) -> int | None:
    sock = str(runtime_of(env) / "warm.sock")
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if sock.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    return int(entry)
            except OSError:
                pass
    return None


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def _bg(env, project, prompt) -> str:
    run = yoke_cmd(env, project, "--bg", prompt)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()[0].split("· ")[1]


def test_the_host_forks_print_and_background_runs_from_its_template(host_env, project):
    with ScriptedServer(default_turn=HELLO) as srv:
        env = dict(host_env, **anthropic_env(srv))
        _bg(env, project, "start the host")  # cold: no host yet
        wait_for(lambda: (runtime_of(env) / "warm.sock").exists())
        warm = dict(env, YOKE_WARM_REQUIRE="1")
        run = yoke_cmd(warm, project, "-p", "hi")
        assert run.returncode == 0 and run.stdout.strip() == "hello", run.stderr
        ident = _bg(warm, project, "a second one")  # --bg forked from the template too
        wait_for(lambda: "hello" in yoke_cmd(env, project, "logs", ident).stdout)
        # and the hosted session itself: the template's fork, not a process the host started cold
        (row,) = [r for r in agents(env, project) if r["id"] == ident]
        assert _parent(row["pid"]) == _template_pid(env)
        assert yoke_cmd(env, project, "stop", ident).stdout.strip() == f"stopped {ident}"
        wait_for(lambda: not Path(f"/proc/{row['pid']}").exists() or _state(row["pid"]) == "Z")
        # the template goes (killed, or stale after an upgrade): the host starts another
        first = _template_pid(env)
        assert first is not None
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: _template_pid(env) not in (None, first))
        wait_for(lambda: yoke_cmd(warm, project, "-p", "hi").returncode == 0)


def test_a_host_told_not_to_keeps_no_template(host_env, project):
    with ScriptedServer(default_turn=HELLO) as srv:
        env = dict(host_env, **anthropic_env(srv), YOKE_NO_WARM="1")
        ident = _bg(env, project, "start the host")
        wait_for(lambda: "hello" in yoke_cmd(env, project, "logs", ident).stdout)
        assert not (runtime_of(env) / "warm.sock").exists()
        env.pop("YOKE_NO_WARM")
        run = yoke_cmd(dict(env, YOKE_WARM_REQUIRE="1"), project, "-p", "hi")
        assert run.returncode == 1 and "no warm start" in run.stderr


def test_the_user_setting_turns_the_template_off(monkeypatch, tmp_path):
    from yoke.host import warm

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("YOKE_HOME", str(tmp_path / ".yoke"))
    monkeypatch.delenv("YOKE_NO_WARM", raising=False)
    assert warm.enabled()
    (tmp_path / ".yoke").mkdir()
    (tmp_path / ".yoke" / "settings.json").write_text('{"warmStart": false}')
    assert not warm.enabled()


def test_the_host_waits_for_its_warm_runs_before_stopping_idle(host_env, project):
    """A run forked from the template keeps the host (and so the template) up, as an attached client does."""
    import subprocess
    import sys

    sleep = {
        "content": [{"type": "tool_use", "id": "toolu_s", "name": "Bash", "input": {"command": "sleep 4"}}]
    }
    env = dict(host_env, YOKE_HOST_IDLE_STOP="1")
    host = subprocess.Popen(
        [sys.executable, "-m", "yoke", "host"], env=env, cwd=project, stdin=subprocess.DEVNULL
    )
    try:
        wait_for(lambda: (runtime_of(env) / "warm.sock").exists())
        with ScriptedServer([sleep, HELLO]) as srv:
            warm = dict(env, **anthropic_env(srv), YOKE_WARM_REQUIRE="1")
            run = yoke_cmd(warm, project, "-p", "go", "--allowedTools", "Bash(sleep:*)")
        assert run.returncode == 0 and run.stdout.strip() == "hello", run.stderr
        assert host.poll() is None or host.returncode == 0
        host.wait(timeout=30)  # idle again: it stops
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
