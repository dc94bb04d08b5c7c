"""Issue 40: nothing lost when nobody is watching. Hosted sessions on a full disk, as processes against the
scripted server and a real host."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from tests.conftest import anthropic_env
from tests.host.conftest import Raw, socket_of, yoke_cmd

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
        self.filler = self.root / "filler"
        self.pid = 0

    def fill(self, pid: int, transcript: Path) -> None:
        if not self.mounted:
            import resource

            self.pid = pid
            hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)[1]
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (transcript.stat().st_size, hard))
            return
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            for size in (65536, 4096, 512, 1):
                try:
                    while True:
                        os.write(fd, b"x" * size)
                except OSError:
                    pass
        finally:
            os.close(fd)

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
    turns = [{"content": [{"type": "text", "text": f"answer {word}"}]} for word in ("one", "two", "three")]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv), YOKE_HOME=str(squeeze.root / "yoke"))
        run = yoke_cmd(env, project, "--bg", "alpha prompt")
        assert run.returncode == 0, run.stderr
        ident = run.stdout.splitlines()[0].split("· ")[1]
        client = Raw(socket_of(env))
        client.call("attach", {"session": ident, "since": 0})
        first = _result(client, 0)
        (path,) = (squeeze.root / "yoke" / "projects").glob(f"*/{ident}*.jsonl")
        (row,) = json.loads(yoke_cmd(env, project, "agents", "--json").stdout)
        squeeze.fill(row["pid"], path)
        # larger than a page: the transcript's last page has room for a short line even on a full disk
        client.call("prompt", {"session": ident, "text": "beta prompt " + "b" * 20000})
        second = _result(client, first["seq"])
        assert "cannot write the transcript" in _warnings(client), [
            p.read_text()[-2000:] for p in (squeeze.root / "yoke" / "hosted").glob("*stderr")
        ]
        assert "beta prompt" not in path.read_text()
        squeeze.free()
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
