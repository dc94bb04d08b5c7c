"""Checkpoints and rewind against real files, byte for byte."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from yoke.session.checkpoints import Checkpoints
from yoke.session.commands import rewind_command, sessions_list_text
from yoke.session.store import load_conversation
from yoke.session.transcript import session_dir

from .test_store import Session

BINARY = bytes(range(256)) + b"\r\n\x00tail\r\n"


def test_rewind_restores_files_byte_for_byte_and_removes_new_ones(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    data = work / "data.bin"
    data.write_bytes(BINARY)
    script = work / "run.sh"
    script.write_bytes(b"#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    created = work / "new" / "made.txt"
    cp = Checkpoints(tmp_path / "session")

    # turn of message m1: edit data, chmod script, create a new file
    assert cp.snapshot(data, "m1") is True
    assert cp.snapshot(data, "m1") is False  # only the turn's starting content matters
    data.write_bytes(b"changed in m1")
    cp.snapshot(script, "m1")
    script.write_bytes(b"#!/bin/sh\nrm -rf /\n")
    script.chmod(0o600)
    cp.snapshot(created, "m1")
    created.parent.mkdir()
    created.write_text("new")
    # turn of message m2: edit data again
    cp.snapshot(data, "m2")
    data.write_bytes(b"changed in m2")

    assert cp.rewind("m2", restore_files=False) == [data]
    assert data.read_bytes() == b"changed in m2"  # a dry run touches nothing
    assert cp.rewind("m2") == [data]
    assert data.read_bytes() == b"changed in m1"

    restored = cp.rewind("m1")
    assert restored == [data, script, created]
    assert data.read_bytes() == BINARY
    assert script.read_bytes() == b"#!/bin/sh\necho hi\n"
    assert stat.S_IMODE(os.stat(script).st_mode) == 0o755
    assert not created.exists()
    assert cp.rewind("unknown") == []


def test_blobs_are_deduplicated_and_a_torn_index_line_is_ignored(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("same")
    b.write_text("same")
    cp = Checkpoints(tmp_path / "s")
    cp.snapshot(a, "m1")
    cp.snapshot(b, "m1")
    cp.snapshot(a, "m2")
    assert len(list(cp.blobs.iterdir())) == 1
    with open(cp.index_path, "a") as fh:
        fh.write('{"messageUuid":"m3","pa')
    fresh = Checkpoints(tmp_path / "s")
    assert fresh.message_uuids() == ["m1", "m2"]
    a.write_text("edited")
    fresh.rewind("m1")
    assert a.read_text() == "same"


def test_rewind_command_restores_files_and_cuts_the_conversation(tmp_path):
    cwd, home = tmp_path / "proj", tmp_path / "home"
    cwd.mkdir()
    target = cwd / "main.py"
    target.write_bytes(b"print('v1')\r\n")
    s = Session(cwd, home)
    first = s.user("write main.py")
    s.assistant("done")
    second = s.user("now change it")
    cp = Checkpoints(session_dir(cwd, s.chain.session_id, home))
    cp.snapshot(target, second)
    target.write_bytes(b"print('v2')\n")
    s.assistant("changed")
    s.close()

    listing = rewind_command(None, cwd=cwd, home=home)
    assert first in listing and second in listing and "now change it" in listing

    text = rewind_command(second[:13], cwd=cwd, home=home)
    assert str(target) in text and "cut back" in text
    assert target.read_bytes() == b"print('v1')\r\n"
    loaded = load_conversation(s.path)
    assert [m["content"] for m in loaded.messages][:1] == ["write main.py"] and len(loaded.messages) == 2

    # rewinding to the first message: nothing was checkpointed there, but later changes count
    target.write_bytes(b"edited by hand")
    cp.snapshot(target, "later-message")
    text = rewind_command(first, cwd=cwd, home=home, restore_conversation=False)
    assert "Restored 1 file" in text


def test_sessions_list_text(tmp_path):
    cwd, home = tmp_path / "proj", tmp_path / "home"
    cwd.mkdir()
    assert "No sessions" in sessions_list_text(cwd, home)
    s = Session(cwd, home)
    s.user("a prompt that is " + "very " * 30 + "long")
    s.assistant("ok")
    s.close()
    text = sessions_list_text(cwd, home)
    assert s.chain.session_id in text and "a prompt that is very" in text and "$0.0000" in text
    assert max(len(line) for line in text.splitlines()) < 160


def test_rewind_of_an_unknown_message_is_a_clear_error(tmp_path):
    import pytest

    from yoke.session.store import SessionError

    cwd = tmp_path / "p"
    cwd.mkdir()
    with pytest.raises(SessionError, match="No user message"):
        rewind_command("nope", cwd=cwd, home=tmp_path / "h")
    assert Path(cwd).exists()
