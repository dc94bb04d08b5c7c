"""The fast paths' verdicts are enforced by the kernel: a command the analyser wrongly calls read-only still
cannot write, delete, reach the network or read a protected path (issue 28).

The analyser is made to mislabel programs through its test hook (`bash_readonly.MISLABELLED_READ_ONLY`);
the session is the real one (gate, executor, Bash tool, bubblewrap), driven by the scripted server.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.permissions.sessions import make_project, run_commands

from yoke.permissions import bash_analysis, bash_readonly

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
PYTHON = os.path.realpath(sys.executable)


@pytest.fixture
def mislabel(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(bash_readonly, "MISLABELLED_READ_ONLY", frozenset({"touch", "rm", PYTHON}))
    bash_analysis.analyze.cache_clear()
    yield
    bash_analysis.analyze.cache_clear()


@pytest.fixture
def web() -> Iterator[int]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self.send_response(200)
            self.send_header("Content-Length", "7")
            self.end_headers()
            self.wfile.write(b"reached")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk", "acceptEdits"])
async def test_a_mislabelled_writer_cannot_write_delete_connect_or_read_secrets(
    tmp_path: Path, mislabel: None, web: int, mode: str
) -> None:
    home, project = make_project(tmp_path)
    outside = Path("/var/tmp") / f"yoke-confine-{uuid.uuid4().hex}"  # visible inside: not under /tmp
    py = f"{PYTHON} -I -S -c"
    commands = [
        "touch created.txt",
        f"touch {outside}",
        "rm data.txt",
        f"{py} 'import urllib.request as u; print(u.urlopen(\"http://127.0.0.1:{web}\").read())'",
        f'{py} \'print(open(".env").read(), open("sub/server.pem").read())\'',
        f"{py} 'print(open(\"{home}/.ssh/id_rsa\").read())'",
    ]
    results = await run_commands(project, home, commands, mode)
    assert [r.source for r in results] == ["read-only"] * len(commands)  # the analyser was fooled
    assert not (project / "created.txt").exists()
    assert not outside.exists()
    assert (project / "data.txt").read_text() == "keep me\n"
    text = " ".join(r.text for r in results)
    for leaked in ("reached", "top-secret-value", "PEM-SECRET", "PRIVATE-KEY-BYTES"):
        assert leaked not in text
    assert (project / ".env").read_text() == "TOKEN=top-secret-value\n"  # hidden, not harmed
    assert "Read-only file system" in results[0].text and "Read-only file system" in results[2].text


async def test_what_the_analyser_proves_still_works_confined(tmp_path: Path) -> None:
    home, project = make_project(tmp_path)
    (project / "sub" / "a.py").write_text("x = 1\ny = 2\n")
    results = await run_commands(project, home, ["wc -l sub/a.py", "cat data.txt && ls sub"])
    assert [r.source for r in results] == ["read-only", "read-only"]
    assert "2 sub/a.py" in results[0].text
    assert "keep me" in results[1].text and "a.py" in results[1].text


# Writes each named file (content, so the sandbox guard's clean-up of empty mount points cannot hide a
# success) and prints which writes succeeded.
PLANT = (
    'import sys\nfor p in sys.argv[1:]:\n try:\n  open(p, "a").write("planted"); print("WROTE", p)\n'
    ' except OSError as e: print("REFUSED", p, e.errno)'
)


async def test_accept_edits_writes_only_the_working_directories(tmp_path: Path, mislabel: None) -> None:
    """acceptEdits' `touch`/`mkdir` run with the project writable, its protected names not (whether or not
    they exist), and nothing outside it."""
    home, project = make_project(tmp_path)
    (project / ".git").mkdir()
    outside = Path("/var/tmp") / f"yoke-confine-{uuid.uuid4().hex}"
    py = f"{PYTHON} -I -S -c"
    commands = [
        "mkdir made && touch made/a.txt",
        # a mislabelled program in the same line: it may write the project, nothing protected, nothing outside
        f"mkdir more && {py} '{PLANT}' .git/HEAD .mcp.json .envrc .claude/x {outside} fine.txt",
    ]
    results = await run_commands(project, home, commands, "acceptEdits")
    assert [r.source for r in results] == ["mode:acceptEdits,read-only"] * 2
    assert (project / "made" / "a.txt").exists() and (project / "more").is_dir()
    for planted in (".git/HEAD", ".mcp.json", ".envrc", ".claude"):
        assert not (project / planted).exists(), planted
    assert not outside.exists()
    assert "WROTE fine.txt" in results[1].text and (project / "fine.txt").read_text() == "planted"
    assert results[1].text.count("WROTE") == 1


async def test_deny_rules_paths_are_hidden_or_pinned_and_git_state_opens_only_to_git_rules(
    tmp_path: Path, mislabel: None
) -> None:
    """A Read deny rule's path is hidden from a confined command, an Edit deny rule's is read-only in
    acceptEdits; `.git` is read-only as a whole unless the user's rules let commands run git."""
    home, project = make_project(tmp_path)
    (project / ".git").mkdir()
    (project / "private.txt").write_text("PRIVATE-NOTES\n")
    (project / "frozen.txt").write_text("frozen\n")
    deny = ["Read(./private.txt)", "Edit(./frozen.txt)"]
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": deny}}))
    py = f"{PYTHON} -I -S -c"
    commands = [
        f"{py} 'print(open(\"private.txt\").read())'",
        f"mkdir m && {py} '{PLANT}' frozen.txt .git/index ok.txt",
    ]
    results = await run_commands(project, home, commands, "acceptEdits")
    assert [r.behavior for r in results] == ["allow", "allow"] and "PRIVATE-NOTES" not in results[0].text
    assert (project / "frozen.txt").read_text() == "frozen\n" and not (project / ".git" / "index").exists()
    assert "WROTE ok.txt" in results[1].text
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": deny, "allow": ["Bash(git commit:*)"]}})
    )
    results = await run_commands(
        project, home, [f"mkdir n && {py} '{PLANT}' .git/index .git/hooks/x"], "acceptEdits"
    )
    assert "WROTE .git/index" in results[0].text and "REFUSED .git/hooks/x" in results[0].text


async def test_without_a_kernel_sandbox_it_is_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = make_project(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "cat", "ls", "git", "wc"):  # a PATH with the basics but no bwrap
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(bin_dir))
    from yoke.sandbox.confine import kernel_sandbox_available

    assert not kernel_sandbox_available()
    results = await run_commands(project, home, ["cat data.txt", "ls"])
    assert [r.source for r in results] == ["read-only", "read-only"]
    assert "keep me" in results[0].text
    notes = [r.text for r in results if "no kernel sandbox" in r.text]
    assert len(notes) == 1


async def test_the_working_directory_carries_across_confined_commands(tmp_path: Path) -> None:
    home, project = make_project(tmp_path)
    results = await run_commands(project, home, ["cd sub", "pwd", "ls"])
    assert [r.source for r in results] == ["read-only"] * 3
    assert str(project / "sub") in results[1].text and "server.pem" in results[2].text
