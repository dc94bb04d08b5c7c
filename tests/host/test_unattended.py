"""Issue 40: nothing lost when nobody is watching. Hosted sessions on a full disk, as processes against the
scripted server and a real host."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from tests.conftest import anthropic_env
from tests.host.conftest import Raw, socket_of, wait_for, yoke_cmd
from tests.reliability.test_one_writer import _fill

from yoke.testing import ScriptedServer


class Squeeze:
    """A disk that fills and frees under a running session: a real 2 MiB tmpfs where root may mount one,
    else the session process's RLIMIT_FSIZE lowered to its transcript's size and raised again (EFBIG
    instead of ENOSPC: the same failed write)."""

    def __init__(self, tmp_path: Path):
        self.root = tmp_path / "small"
        self.root.mkdir()
        self.mounted = (
            os.geteuid() == 0
            and not os.environ.get("YOKE_TEST_FSIZE")
            and (
                subprocess.run(
                    ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(self.root)], capture_output=True
                ).returncode
                == 0
            )
        )
        self.filler = self.root / "filler"  # what tests.reliability.test_one_writer._fill writes
        self.pid = 0

    def fill(self, pid: int, transcript: Path) -> None:
        if not self.mounted:
            import resource

            self.pid = pid
            hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)[1]
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (transcript.stat().st_size, hard))
            return
        _fill(self.root)

    def free(self) -> None:
        if not self.mounted:
            import resource

            hard = resource.prlimit(self.pid, resource.RLIMIT_FSIZE)[1]
            resource.prlimit(self.pid, resource.RLIMIT_FSIZE, (hard, hard))
            return
        self.filler.unlink()

    def close(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.root)], check=False)


@pytest.fixture
def squeeze(tmp_path):
    disk = Squeeze(tmp_path)
    yield disk
    disk.close()


def _result(client: Raw, after: int) -> dict:
    return client.until(
        lambda m: (
            m["type"] == "stream"
            and m["payload"]["seq"] > after
            and m["payload"]["message"].get("type") == "result"
        ),
        timeout=90,
    )["payload"]


def _warnings(client: Raw) -> str:
    return "\n".join(
        m["message"].get("content", "")
        for m in client.stream()
        if m["message"].get("subtype") == "informational"
    )


def test_a_brief_full_disk_loses_nothing_of_a_hosted_session(host_env, project, squeeze):
    """Issue 40 item 2: the transcript writer holds what it could not write and writes it once the disk has
    room; every attached client is told when saving stops and when it starts again."""
    turns: list[dict] = [
        {"content": [{"type": "text", "text": f"answer {word}"}]} for word in ("one", "two", "three")
    ]
    turns[1]["delay"] = 0.005  # between frames (~4 s): the disk fills while the model answers, at length:
    turns[1]["content"][0]["text"] += " " + "t" * 20000  # larger than the room left in the file's last page
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv), YOKE_HOME=str(squeeze.root / "yoke"))
        from yoke.config.trust import trust_folder

        trust_folder(project, squeeze.root / "yoke")  # `yoke --bg` runs only in a trusted folder
        run = yoke_cmd(env, project, "--bg", "alpha prompt")
        assert run.returncode == 0, run.stderr
        ident = run.stdout.splitlines()[0].split("· ")[1]
        client = Raw(socket_of(env))
        client.call("attach", {"session": ident, "since": 0})
        first = _result(client, 0)
        (path,) = (squeeze.root / "yoke" / "projects").glob(f"*/{ident}*.jsonl")
        (row,) = json.loads(yoke_cmd(env, project, "agents", "--json").stdout)
        # accepted, so on disk (the host's journal, the transcript's queue record) before the disk fills
        client.call("prompt", {"session": ident, "text": "beta prompt " + "b" * 20000})
        squeeze.fill(row["pid"], path)
        second = _result(client, first["seq"])
        assert "cannot write the transcript" in _warnings(client), [
            p.read_text()[-2000:] for p in (squeeze.root / "yoke" / "hosted").glob("*stderr")
        ]
        assert "answer two" not in path.read_text()
        squeeze.free()
        # nothing more is sent: the held records are written by the writer's own retry
        wait_for(lambda: "beta prompt" in path.read_text() and "answer two" in path.read_text(), timeout=60)
        client.call("prompt", {"session": ident, "text": "gamma prompt"})
        _result(client, second["seq"])
        assert "is written again" in _warnings(client)
        saved = path.read_text()
        for line in saved.splitlines():
            json.loads(line)
        for text in (
            "alpha prompt",
            "beta prompt",
            "gamma prompt",
            "answer one",
            "answer two",
            "answer three",
        ):
            assert text in saved, text
        assert yoke_cmd(env, project, "stop", ident).returncode == 0


def _bg(env, project, *args) -> str:
    run = yoke_cmd(env, project, "--bg", *args)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()[0].split("· ")[1]


def _rows(env, project, *flags) -> list[dict]:
    run = yoke_cmd(env, project, "agents", "--json", *flags)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _host_pid(env) -> int:
    return Raw(socket_of(env)).call("hello")["payload"]["host"]


def _gone(pid: int) -> bool:
    from yoke.host.records import pid_alive

    return not pid_alive(pid)


def test_a_running_session_is_never_started_twice(host_env, project, tmp_path):
    """Issue 40 item 4: `--bg --resume ID` while ID runs, from the same host and from a second host on the
    same Yoke home (another runtime folder, or the first one removed under its host), is refused with one
    line; the entry and the running session are untouched; `stop` from the second host ends it for real."""
    import shutil
    import signal

    turns = [{"content": [{"type": "text", "text": f"answer {n}"}]} for n in range(4)]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _bg(env, project, "remember the word quince")
        wait_for(lambda: [r["state"] for r in _rows(env, project)] == ["idle"])
        (row,) = _rows(env, project)
        first_host = _host_pid(env)
        again = yoke_cmd(env, project, "--bg", "--resume", row["sessionId"], "again")
        assert again.returncode == 1 and len(again.stderr.strip().splitlines()) == 1, again.stderr
        assert "already running" in again.stderr and "Traceback" not in again.stderr
        # a second host on the same Yoke home, from another runtime folder
        # (a short path, as host_env's: a socket's path is at most 107 bytes, and xdist's tmp_path is longer)
        other = dict(env, XDG_RUNTIME_DIR=tempfile.mkdtemp(prefix="yk"))
        beside = yoke_cmd(other, project, "--bg", "--resume", row["sessionId"], "again")
        hosts = [first_host, _host_pid(other)]
        assert beside.returncode == 1 and "already running" in beside.stderr, beside.stderr
        # the first host's runtime folder removed under it: the next command starts a third host
        shutil.rmtree(socket_of(env).parent)
        second = yoke_cmd(env, project, "--bg", "--resume", row["sessionId"], "again")
        assert second.returncode == 1 and "Traceback" not in second.stderr, second.stderr
        assert "already running" in second.stderr or "in use by" in second.stderr
        second_host = _host_pid(env)
        try:
            assert second_host != first_host
            assert _rows(env, project) == [row]  # the entry is the first session's still
            stopped = yoke_cmd(env, project, "stop", ident)
            assert stopped.stdout.strip() == f"stopped {ident}", stopped.stderr
            assert _gone(row["pid"])  # `stopped` is true: the session's process has ended
            assert _rows(env, project, "--all")[0]["state"] == "stopped"
        finally:
            for pid in (*hosts, second_host):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            shutil.rmtree(other["XDG_RUNTIME_DIR"], ignore_errors=True)


def test_bg_resume_of_a_transcript_path_is_listed_by_agents(host_env, project):
    """Issue 40 item 4: `--bg --resume /path/ID.jsonl` names the entry by the session id, so `agents` and
    `logs` see it (the path used to become the entry's file name, outside the hosted folder)."""
    turns = [
        {"content": [{"type": "text", "text": "foreground"}]},
        {"content": [{"type": "text", "text": "in bg"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        first = yoke_cmd(env, project, "-p", "remember durian", "--output-format", "json")
        session_id = json.loads(first.stdout)["session_id"]
        home = Path(env["HOME"]) / ".yoke"
        (path,) = home.glob(f"projects/*/{session_id}.jsonl")
        ident = _bg(env, project, "--resume", str(path), "what fruit?")
        assert ident == session_id[:8]
        wait_for(lambda: "in bg" in yoke_cmd(env, project, "logs", ident).stdout)
        (row,) = _rows(env, project)
        assert row["id"] == ident and row["sessionId"] == session_id
        assert "durian" in str(srv.requests[-1].body["messages"])
        assert sorted(p.name for p in (home / "hosted").glob("*.json")) == [f"{ident}.json"]


@pytest.fixture
def read_only_home(tmp_path):
    """A home the commands cannot write: a read-only tmpfs where root may mount one, else a folder 0555."""
    folder = tmp_path / "rohome"
    folder.mkdir()
    mounted = os.geteuid() == 0 and (
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", str(folder)]).returncode == 0
    )
    if not mounted:
        folder.chmod(0o555)
    yield folder
    if mounted:
        subprocess.run(["umount", "-l", str(folder)], check=False)
    else:
        folder.chmod(0o755)


def test_a_read_only_home_gets_one_line_from_every_command(host_env, project, tmp_path, read_only_home):
    """Issue 40 item 10: `agents`, `agents --all`, `logs`, `stop`, `respawn --all` and `batch --out` with a
    read-only home (or output folder): one line or a plain answer, never a traceback."""
    ro = str(read_only_home)
    env = dict(host_env, HOME=ro, YOKE_HOME=f"{ro}/.yoke", CLAUDE_CONFIG_DIR=f"{ro}/.claude")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "t", "prompt": "x", "repo": str(project)}) + "\n")
    commands = [
        ("agents",),
        ("agents", "--all"),
        ("logs", "abc"),
        ("stop", "abc"),
        ("respawn", "--all"),
        ("batch", str(tasks), "--out", str(read_only_home / "out")),
    ]
    for argv in commands:
        run = yoke_cmd(env, project, *argv)
        assert "Traceback" not in run.stderr, (argv, run.stderr)
        assert len(run.stderr.strip().splitlines()) <= 1, (argv, run.stderr)
        assert run.returncode in (0, 1), (argv, run.returncode)
    assert yoke_cmd(env, project, "agents").stdout.startswith("No background sessions")
    out = yoke_cmd(env, project, "batch", str(tasks), "--out", str(read_only_home / "out"))
    assert out.returncode == 1 and str(read_only_home / "out") in out.stderr


def test_stop_with_the_host_unreachable_ends_the_session_itself(host_env, project):
    """Issue 40 item 4: the runtime folder removed under a running host, and no other host: `stop` ends the
    session's process itself and only then says `stopped`."""
    import shutil
    import signal

    with ScriptedServer([{"content": "hi"}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _bg(env, project, "hello")
        wait_for(lambda: [r["state"] for r in _rows(env, project)] == ["idle"])
        (row,) = _rows(env, project)
        host = _host_pid(env)
        try:
            shutil.rmtree(socket_of(env).parent)
            stopped = yoke_cmd(env, project, "stop", ident)
            assert stopped.stdout.strip() == f"stopped {ident}", stopped.stderr
            assert _gone(row["pid"])
        finally:
            os.kill(host, signal.SIGKILL)
