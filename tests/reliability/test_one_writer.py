"""Issue 29, items 1-3: one writer per session, histories rebuilt by parentUuid, torn tails and a full disk.
Every case drives the real `yoke -p` as a process against the scripted server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

SID = "0b6f6f3e-5c1a-4d7e-9f0a-2b1c3d4e5f60"


def _transcript(home: Path) -> Path:
    (found,) = (home / ".yoke" / "projects").glob(f"*/{SID}.jsonl")
    return found


def _prompts(request) -> list[str]:
    out = []
    for message in request.body["messages"]:
        content = message["content"]
        if message["role"] == "user" and isinstance(content, str):
            out.append(content)
        elif message["role"] == "user":
            out += [b.get("text", "") for b in content if b.get("type") == "text"]
    return out


def _all_text(request) -> str:
    return json.dumps(request.body["messages"])


def test_second_resume_of_a_running_session_is_refused(yoke, base_env, project, home):
    with ScriptedServer([{"content": "first"}]) as srv:
        assert yoke("-p", "hello", "--session-id", SID, env=anthropic_env(srv)).code == 0
    slow = {"content": "a long answer " * 40, "delay": 0.05}
    with ScriptedServer([slow, {"content": "later"}]) as srv:
        env = {**base_env, **anthropic_env(srv)}
        first = subprocess.Popen(
            [sys.executable, "-m", "yoke", "-p", "branch one", "-r", SID],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.time() + 30
        while not srv.requests and time.time() < deadline:
            time.sleep(0.05)
        assert srv.requests, "the first resume never asked the model"
        second = yoke("-p", "branch two", "-r", SID, env=anthropic_env(srv))
        out, err = first.communicate(timeout=60)
        assert first.returncode == 0, err
        assert second.code == 1
        assert "in use by process" in second.stderr and "--fork-session" in second.stderr
        assert len(second.stderr.strip().splitlines()) == 1
        assert "Traceback" not in second.stderr
        # the lock went with the first process: the session resumes normally now
        third = yoke("-p", "after", "-r", SID, env=anthropic_env(srv))
        assert third.code == 0, third.stderr
        assert _prompts(srv.requests[-1]) == ["hello", "branch one", "after"]


def test_session_id_of_an_existing_session_is_refused(yoke, home):
    with ScriptedServer([{"content": "first"}, {"content": "second"}]) as srv:
        assert yoke("-p", "hello", "--session-id", SID, env=anthropic_env(srv)).code == 0
        before = _transcript(home).read_bytes()
        again = yoke("-p", "new conversation", "--session-id", SID, env=anthropic_env(srv))
    assert again.code == 1  # as Claude Code 2.1.330
    assert f"Session ID {SID} is already in use" in again.stderr
    assert _transcript(home).read_bytes() == before


def test_spliced_branches_resume_as_one_branch(yoke, home):
    """A file two writers interleaved (an older Yoke, or Claude Code): the history follows the newest
    record's parentUuid chain and says it left the other branch out."""
    with ScriptedServer([{"content": "one"}, {"content": "two"}, {"content": "3"}, {"content": "4"}]) as srv:
        env = anthropic_env(srv)
        assert yoke("-p", "hello", "--session-id", SID, env=env).code == 0
        path = _transcript(home)
        base = path.read_bytes()
        assert yoke("-p", "branch A", "-r", SID, env=env).code == 0
        branch_a = path.read_bytes()[len(base) :].splitlines(keepends=True)
        path.write_bytes(base)
        assert yoke("-p", "branch B", "-r", SID, env=env).code == 0
        branch_b = path.read_bytes()[len(base) :].splitlines(keepends=True)
        # interleaved as two processes appending at once would: A's prompt, B's prompt, A's answer, ...
        path.write_bytes(base + b"".join(branch_a[:2] + branch_b[:2] + branch_a[2:] + branch_b[2:]))
        resumed = yoke("-p", "third", "-r", SID, env=env)
    assert resumed.code == 0, resumed.stderr
    sent = srv.requests[-1]
    assert _prompts(sent) == ["hello", "branch B", "third"]
    assert "branch A" not in _all_text(sent)
    assert "another branch" in resumed.stderr


def test_torn_last_line_is_repaired_and_the_next_prompt_kept(yoke, home):
    with ScriptedServer([{"content": "one"}, {"content": "two"}, {"content": "three"}]) as srv:
        env = anthropic_env(srv)
        assert yoke("-p", "hello", "--session-id", SID, env=env).code == 0
        path = _transcript(home)
        with open(path, "ab") as fh:  # a crash mid-write
            fh.write(b'{"type":"user","message":{"role":"user","content":"lost in the cra')
        resumed = yoke("-p", "after the crash", "-r", SID, env=env)
        assert resumed.code == 0, resumed.stderr
        assert "unreadable line" in resumed.stderr  # the repair is said
        again = yoke("-p", "and again", "-r", SID, env=env)
        assert again.code == 0, again.stderr
    assert _prompts(srv.requests[-1]) == ["hello", "after the crash", "and again"]
    for line in path.read_text().splitlines():
        json.loads(line)  # every line whole
    assert b"lost in the cra" in path.with_name(path.name + ".torn").read_bytes()  # quarantined, not lost


@pytest.fixture
def small_disk(tmp_path):
    """A 512 KiB tmpfs (when root and allowed to mount), else None."""
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0:
        yield None
        return
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True
    )
    if made.returncode != 0:
        yield None
        return
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(directory: Path) -> Path:
    """Fill the small disk to the last byte."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 512, 1):
            try:
                while True:
                    os.write(fd, b"x" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    st = os.statvfs(directory)
    assert st.f_bavail * st.f_frsize < 8192
    return filler


def test_full_disk_keeps_whole_lines_and_the_warning_is_true(yoke, base_env, home, small_disk):
    if small_disk is None:
        pytest.skip("needs root to mount a small tmpfs")
    store = small_disk / "yoke"
    env_home = {"YOKE_HOME": str(store)}
    with ScriptedServer([{"content": "one"}, {"content": "two"}, {"content": "three"}]) as srv:
        env = {**anthropic_env(srv), **env_home}
        assert yoke("-p", "hello", "--session-id", SID, env=env).code == 0
        filler = _fill(small_disk)
        big = "a prompt larger than the free space " * 400
        full = yoke("-p", big, "-r", SID, env=env)
        assert full.code == 0, full.stderr  # the run the user is watching goes on
        assert "No space left on device" in full.stderr
        assert "will not be resumable" not in full.stderr
        assert "resuming it continues from the last saved message" in full.stderr
        (path,) = store.glob(f"projects/*/{SID}.jsonl")
        assert path.read_bytes().endswith(b"\n")
        for line in path.read_text().splitlines():
            json.loads(line)
        filler.unlink()
        later = yoke("-p", "disk freed", "-r", SID, env=env)
        assert later.code == 0, later.stderr
    assert _prompts(srv.requests[-1])[0] == "hello"
    assert _prompts(srv.requests[-1])[-1] == "disk freed"


def test_rewind_of_a_running_session_is_refused(yoke, home, project):
    from yoke.session.lock import SessionLock

    with ScriptedServer([{"content": "first"}]) as srv:
        assert yoke("-p", "hello", "--session-id", SID, env=anthropic_env(srv)).code == 0
    path = _transcript(home)
    prompt_uuid = next(
        json.loads(line)["uuid"] for line in path.read_text().splitlines() if '"type":"user"' in line
    )
    before = path.read_bytes()
    held = SessionLock(path.with_suffix(".lock"))
    held.acquire()  # as a running `yoke -r` holds it
    try:
        run = yoke("rewind", prompt_uuid)
    finally:
        held.release()
    assert run.code != 0 and "in use by process" in run.stderr
    assert "Traceback" not in run.stderr
    assert path.read_bytes() == before
    assert yoke("rewind", prompt_uuid).code == 0  # once it is free
    assert path.read_bytes() != before
