"""The warm start (issue 45): `yoke -p` handed to a pre-imported template that forks the run. A warm run must
be a cold run: same output and exit code, the client's environment, folder and argv, signals passed on, and
nothing left running when the client is killed. `YOKE_WARM_REQUIRE=1` makes a silent cold start fail the
warm side of each comparison; `YOKE_NO_WARM=1` is the cold side."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from tests.conftest import anthropic_env

from yoke import spawn, warm_wire
from yoke.cli import warm_template
from yoke.testing import ScriptedServer
from yoke.testing.side_by_side import skeleton

# One worker for every test that needs a template to stay fresh: test_warm.py touches a Yoke module to
# make its own template stale, which makes every template alive at that moment stale too (cli/warm_template.py).
pytestmark = pytest.mark.xdist_group("warm")

STREAM = ["--output-format", "stream-json", "--verbose"]
HELLO = {"content": [{"type": "text", "text": "hello"}]}
SLEEP = {
    "content": [{"type": "tool_use", "id": "toolu_sleep", "name": "Bash", "input": {"command": "sleep 30"}}]
}


class Template:
    """A template process serving `folder/warm.sock` (what the host starts, host/warm.py)."""

    def __init__(self, env: dict[str, str]):
        self.folder = Path(tempfile.mkdtemp(prefix="ykw"))
        self.folder.chmod(0o700)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from yoke.cli.warm_template import main; main()", str(self.sock)],
            env=env,
            cwd=self.folder,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while not self.sock.exists():
            assert self.proc.poll() is None, "the template died"
            assert time.monotonic() < deadline, "no template socket"
            time.sleep(0.05)

    @property
    def sock(self) -> Path:
        return self.folder / "warm.sock"

    def runs(self) -> list[int]:
        """The runs forked from the template now (its children running its program; not its guard)."""
        pid = self.proc.pid
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            return []
        program = os.readlink(f"/proc/{pid}/exe")
        out = []
        for child in children:
            try:
                if os.readlink(f"/proc/{child}/exe") == program:
                    out.append(int(child))
            except OSError:
                pass
        return out

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def template(base_env):
    t = Template(dict(base_env, YOKE_HOST_DIR="/nonexistent"))
    yield t
    t.stop()


def _env(base_env, srv, template, warm: bool, **extra) -> dict[str, str]:
    env = dict(base_env, **anthropic_env(srv), YOKE_HOST_DIR=str(template.folder), **extra)
    env["YOKE_WARM_REQUIRE" if warm else "YOKE_NO_WARM"] = "1"
    return env


def _run(env, cwd, *argv, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "yoke", *argv], env=env, cwd=cwd, input=stdin, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


def test_the_same_run_warm_and_cold_writes_the_same_stream_and_exit_code(template, base_env, project):
    results = {}
    for warm in (False, True):
        with ScriptedServer([HELLO]) as srv:
            run = _run(_env(base_env, srv, template, warm), project, "-p", "hi", *STREAM)
        results[warm] = run
    cold, warm_run = results[False], results[True]
    assert cold.returncode == warm_run.returncode == 0, warm_run.stderr
    assert skeleton(warm_run.stdout) == skeleton(cold.stdout)
    assert json.loads(warm_run.stdout.splitlines()[-1])["result"] == "hello"


def test_a_failing_run_fails_the_same_warm_and_cold(template, base_env, project):
    with ScriptedServer([]) as srv:
        cold = _run(_env(base_env, srv, template, False), project, "-p", "hi", "--max-turns", "x")
        warm = _run(_env(base_env, srv, template, True), project, "-p", "hi", "--max-turns", "x")
    assert cold.returncode == warm.returncode != 0
    assert warm.stderr == cold.stderr and warm.stdout == cold.stdout


def test_the_run_takes_the_clients_environment_folder_and_argv(template, base_env, project, tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    seen = {}

    def answer(body):
        seen["model"] = body.get("model")
        seen["runs"] = template.runs()
        return HELLO

    with ScriptedServer(default_turn=answer) as srv:
        # the model comes from the client's environment; the template's has no provider at all
        env = _env(base_env, srv, template, True, ANTHROPIC_MODEL="claude-opus-4-1")
        run = _run(env, other, "-p", "hi", *STREAM)
    assert run.returncode == 0, run.stderr
    init = json.loads(run.stdout.splitlines()[0])
    assert init["cwd"] == str(other)
    assert seen["model"] == "claude-opus-4-1"
    assert len(seen["runs"]) == 1  # it was the template's fork that asked
    with ScriptedServer([HELLO]) as srv:
        run = _run(
            _env(base_env, srv, template, True), other, "-p", "hi", *STREAM, "--model", "claude-haiku-4-5"
        )
    assert json.loads(run.stdout.splitlines()[0])["model"] == "claude-haiku-4-5"


def test_a_cold_start_when_switched_off_or_no_template(template, base_env, project):
    seen = []

    def answer(body):
        seen.append(template.runs())
        return HELLO

    with ScriptedServer(default_turn=answer) as srv:
        off = _run(_env(base_env, srv, template, False), project, "-p", "hi")
        missing = dict(_env(base_env, srv, template, False), YOKE_HOST_DIR=str(project / "none"))
        missing.pop("YOKE_NO_WARM")
        gone = _run(missing, project, "-p", "hi")
        template.stop()  # a socket file with no one listening
        stale = dict(missing, YOKE_HOST_DIR=str(template.folder))
        refused = _run(stale, project, "-p", "hi")
    for run in (off, gone, refused):
        assert run.returncode == 0 and run.stdout.strip() == "hello", run.stderr
    assert seen[0] == [] and seen[1] == []  # none of them was forked by the template


def test_a_warm_start_required_and_unavailable_says_why(base_env, project):
    env = dict(base_env, YOKE_HOST_DIR=str(project / "none"), YOKE_WARM_REQUIRE="1")
    run = _run(env, project, "-p", "hi")
    assert run.returncode == 1 and "no warm start" in run.stderr


def _start_blocked(template, base_env, project, srv, warm: bool = True):
    proc = subprocess.Popen(
        [sys.executable, "-m", "yoke", "-p", "go", *STREAM, "--allowedTools", "Bash(sleep:*)"],
        env=_env(base_env, srv, template, warm),
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    for line in proc.stdout:
        if json.loads(line)["type"] == "assistant":
            break
    time.sleep(0.5)  # the tool is running
    return proc


def test_sigint_to_the_client_interrupts_the_run_and_its_code_is_the_clients(template, base_env, project):
    with ScriptedServer([SLEEP, HELLO]) as srv:
        proc = _start_blocked(template, base_env, project, srv)
        (run,) = template.runs()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)
        rest = [json.loads(x) for x in proc.stdout.read().splitlines() if x.strip()]
    assert proc.returncode == 130, proc.stderr.read()  # as a cold run (tests/cli/test_signal_exit.py)
    assert rest[-1]["terminal_reason"] == "interrupted"
    assert not spawn.group_alive(run)


def test_sigterm_ends_the_run_as_it_ends_a_cold_one(template, base_env, project):
    codes = {}
    for warm in (False, True):
        with ScriptedServer([SLEEP, HELLO]) as srv:
            proc = _start_blocked(template, base_env, project, srv, warm)
            assert len(template.runs()) == int(warm)
            proc.send_signal(signal.SIGTERM)
            codes[warm] = proc.wait(timeout=15)
    assert codes[True] == codes[False]
    assert template.runs() == []


def test_a_client_killed_leaves_nothing_running(template, base_env, project):
    with ScriptedServer([SLEEP, HELLO]) as srv:
        proc = _start_blocked(template, base_env, project, srv)
        (run,) = template.runs()
        sleeper = _descendants(run)
        assert sleeper, "the tool's process"
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 15
        while (template.runs() or any(_alive(p) for p in sleeper)) and time.monotonic() < deadline:
            time.sleep(0.1)
    assert template.runs() == []
    assert not [p for p in sleeper if _alive(p)]


def _descendants(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[3]) == pid or int(stat[1]) in out:  # its session: the run's own and what it started
                out.append(int(entry))
    return [p for p in out if "sleep" in _cmdline(p)]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


# -- the listener answers only its own user (SO_PEERCRED) -------------------------------------------------------


def test_the_template_says_nothing_to_another_user(monkeypatch, tmp_path):
    """A second Unix user is not available here: the check is driven by the peer's credentials reported."""
    folder = Path(tempfile.mkdtemp(prefix="ykp"))
    old_wakeup = signal.set_wakeup_fd(-1)
    old_chld = signal.getsignal(signal.SIGCHLD)
    forks = []
    monkeypatch.setattr(spawn, "fork_warm_run", lambda: forks.append(1) or 1)
    try:
        template = warm_template.Template(str(folder / "warm.sock"))
        monkeypatch.setattr(warm_wire, "peer_uid", lambda conn: os.geteuid() + 1)
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(str(folder / "warm.sock"))
        client.sendall(b"\0\0\0\x05hello")
        template._accept()
        client.settimeout(5)
        try:
            said = client.recv(100)
        except ConnectionResetError:  # closed with our request unread
            said = b""
        assert said == b""  # closed without a word
        assert forks == [] and template.runs == {}
        template._stop_listening()
        os.close(template.wake_read)
        os.close(template.wake_write)
    finally:
        signal.set_wakeup_fd(old_wakeup)
        signal.signal(signal.SIGCHLD, old_chld)


def test_the_client_says_nothing_to_a_listener_of_another_user(monkeypatch, tmp_path):
    folder = Path(tempfile.mkdtemp(prefix="ykc"))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(folder / "warm.sock"))
    listener.listen(1)
    got = []

    def serve():
        conn, _ = listener.accept()
        conn.settimeout(5)
        got.append(conn.recv(100))

    thread = threading.Thread(target=serve)
    thread.start()
    monkeypatch.setattr(warm_wire, "peer_uid", lambda conn: os.geteuid() + 1)
    assert warm_wire.connect(str(folder)) is None
    thread.join(10)
    assert got == [b""]  # not a byte of the request
    listener.close()


def test_peer_uid_is_the_kernels_word():
    a, b = socket.socketpair(socket.AF_UNIX)
    assert warm_wire.peer_uid(a) == os.geteuid()
    a.close()
    b.close()


def test_a_stale_template_sends_its_clients_cold_and_stops_listening(template, base_env, project):
    with ScriptedServer([HELLO, HELLO]) as srv:
        env = _env(base_env, srv, template, True)
        assert _run(env, project, "-p", "hi").returncode == 0
        module = Path(warm_template.__file__)
        os.utime(module)  # Yoke's files changed
        again = _run(env, project, "-p", "hi")
        env.pop("YOKE_WARM_REQUIRE")
        cold = _run(env, project, "-p", "hi")
    assert again.returncode == 1 and "Yoke changed on disk" in again.stderr
    assert cold.returncode == 0 and cold.stdout.strip() == "hello"
    template.proc.wait(timeout=10)  # nothing running: it leaves, and the host starts a fresh one
    assert not template.sock.exists()


MODULES_PROBE = (
    "import sys\n"
    "from yoke.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print('MODULES:' + ','.join(sorted(m for m in sys.modules if m.startswith('yoke'))))\n"
)


@pytest.mark.parametrize("argv", [["-p", "hi"], ["-p", "hi", *STREAM]])
def test_the_template_holds_every_yoke_module_a_one_turn_run_loads(base_env, project, argv):
    """Otherwise the fork imports it on every run: the list in session/preload.py (or the template's entry
    modules) is out of date."""
    with ScriptedServer([HELLO]) as srv:
        env = dict(base_env, **anthropic_env(srv), YOKE_NO_WARM="1")
        run = subprocess.run(
            [sys.executable, "-c", MODULES_PROBE, *argv], env=env, cwd=project, capture_output=True, text=True,
            timeout=60,
        )  # fmt: skip
    loaded = set(run.stdout.rsplit("MODULES:", 1)[1].strip().split(","))
    held = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom yoke.cli.warm_template import preload\npreload()\n"
         "print(','.join(m for m in sys.modules if m.startswith('yoke')))"],
        env=base_env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert held.returncode == 0, held.stderr
    assert loaded - set(held.stdout.strip().split(",")) == set()


def test_a_run_in_a_terminal_writes_to_that_terminal(template, base_env, project):
    """The fork's stdout is the client's terminal itself (not a relay): the terminal's own line discipline
    turns its newline into CRLF, and the run's stdout is line-buffered as a terminal's is."""
    import pty

    main, sub = pty.openpty()
    try:
        with ScriptedServer([HELLO]) as srv:
            proc = subprocess.Popen(
                [sys.executable, "-m", "yoke", "-p", "hi"],
                env=_env(base_env, srv, template, True),
                cwd=project,
                stdin=subprocess.DEVNULL,
                stdout=sub,
                stderr=subprocess.PIPE,
            )
            code = proc.wait(timeout=60)
        os.close(sub)
        sub = -1
        seen = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: the terminal has no writer left
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(main)
        if sub >= 0:
            os.close(sub)
    assert code == 0, proc.stderr.read()
    assert seen == b"hello\r\n"


def test_which_command_lines_go_warm(monkeypatch):
    from yoke.cli.warm_client import wanted

    monkeypatch.delenv("YOKE_NO_WARM", raising=False)
    for argv in (["-p", "hi"], ["--print"], ["--bg", "x"], ["--output-format", "stream-json"],
                 ["--input-format=stream-json", "--output-format", "stream-json"]):  # fmt: skip
        assert wanted(argv), argv
    for argv in ([], ["hello"], ["--output-format", "text"], ["--output-format"], ["--model", "-p"][:1]):
        assert not wanted(argv), argv
    monkeypatch.setenv("YOKE_NO_WARM", "1")
    assert not wanted(["-p", "hi"])


def test_another_interpreter_set_up_starts_cold(template, base_env, project):
    """The template's Python, Yoke and interpreter flags must be the client's (here: a warning option)."""
    with ScriptedServer([HELLO]) as srv:
        env = _env(base_env, srv, template, True)
        argv = [sys.executable, "-W", "ignore::DeprecationWarning", "-m", "yoke", "-p", "hi"]
        refused = subprocess.run(argv, env=env, cwd=project, capture_output=True, text=True, timeout=60)
        env.pop("YOKE_WARM_REQUIRE")
        cold = subprocess.run(argv, env=env, cwd=project, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and "another Python or Yoke" in refused.stderr
    assert cold.returncode == 0 and cold.stdout.strip() == "hello"
    assert template.proc.poll() is None  # and the template serves on


def test_the_run_has_the_clients_resource_limits_and_niceness(template, base_env, project):
    """What a cold start inherits from its shell (`ulimit -n`, `nice`) the fork takes from its client."""
    import resource

    ask = {
        "content": [
            {"type": "tool_use", "id": "toolu_u", "name": "Bash", "input": {"command": "ulimit -n; nice"}}
        ]
    }

    def limited():
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
        os.nice(3)

    with ScriptedServer([ask, HELLO]) as srv:
        proc = subprocess.run(
            [sys.executable, "-m", "yoke", "-p", "go", "--allowedTools", "Bash"],
            env=_env(base_env, srv, template, True), cwd=project, capture_output=True, text=True,
            timeout=60, preexec_fn=limited,
        )  # fmt: skip
        told = json.dumps(srv.requests[-1].body["messages"][-1])
    assert proc.returncode == 0, proc.stderr
    base = os.getpriority(os.PRIO_PROCESS, 0)
    assert f'"content": "200\\n{base + 3}"' in told, told
