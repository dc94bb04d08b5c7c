"""Whole-tree checkpoints through the real command: what Bash did is rewound too, an edit made meanwhile by
another process is never overwritten silently, and a rewind can be undone. Real git, real `yoke -p`, the
scripted server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _repo(project: Path) -> None:
    _git(project, "init", "-q")
    for name, text in {
        "a.txt": "alpha\n",
        "b.txt": "beta\n",
        "c.txt": "gamma\n",
        ".gitignore": "*.log\n",
    }.items():
        (project / name).write_text(text)
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "start")
    (project / "keep.log").write_text("ignored\n")


def _bash(id: str, command: str) -> dict:
    return {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}


TURNS = [
    {
        "content": [
            _bash("toolu_1", "sed -i s/alpha/ALPHA/ a.txt && sed -i s/gamma/GAMMA/ c.txt"),
            _bash("toolu_2", "rm b.txt && echo generated > gen.txt && echo more >> keep.log"),
            {
                "type": "tool_use",
                "id": "toolu_3",
                "name": "Write",
                "input": {"file_path": "d.txt", "content": "written\n"},
            },
        ]
    },
    {"content": [{"type": "text", "text": "done"}]},
]


def _state(project: Path) -> dict[str, str | None]:
    return {
        n: (project / n).read_text() if (project / n).exists() else None
        for n in ("a.txt", "b.txt", "c.txt", "gen.txt", "d.txt", "keep.log")
    }


def test_rewind_puts_back_what_bash_did_refuses_outside_edits_and_is_undone(yoke, project):
    _repo(project)
    before = _state(project)
    user_index = (project / ".git" / "index").read_bytes()
    with ScriptedServer(TURNS) as srv:
        run = yoke(
            "-p",
            "change things",
            "--output-format",
            "json",
            "--permission-mode",
            "bypassPermissions",
            env=anthropic_env(srv),
        )
    assert run.code == 0, run.stderr
    after = _state(project)
    assert after["a.txt"] == "ALPHA\n" and after["b.txt"] is None and after["gen.txt"] == "generated\n"
    assert after["d.txt"] == "written\n" and after["c.txt"] == "GAMMA\n"
    # the user's repository is untouched: its index, refs and stash
    assert (project / ".git" / "index").read_bytes() == user_index
    assert _git(project, "stash", "list") == "" and _git(project, "status", "--porcelain").strip()

    listing = yoke("rewind")
    uuid = listing.stdout.splitlines()[1].split()[0]
    # meanwhile another process (the user's editor) changes c.txt, which the session had changed too
    (project / "c.txt").write_text("gamma edited by the user\n")

    refused = yoke("rewind", uuid, "--files-only")
    assert refused.code == 1 and "c.txt" in refused.stderr and "Nothing was restored" in refused.stderr
    assert _state(project) == {**after, "c.txt": "gamma edited by the user\n"}  # nothing touched

    kept = yoke("rewind", uuid, "--files-only", "--keep-outside-changes")
    assert kept.code == 0, kept.stderr
    now = _state(project)
    assert now == {
        **before,
        "c.txt": "gamma edited by the user\n",
        "keep.log": "ignored\nmore\n",
    }  # ignored: left
    assert "Kept 1 file(s) changed outside this session: c.txt" in kept.stdout

    undone = yoke("rewind", "--undo")
    assert undone.code == 0, undone.stderr
    assert _state(project) == {**after, "c.txt": "gamma edited by the user\n"}
    assert (project / ".git" / "index").read_bytes() == user_index


def test_a_folder_that_is_not_a_project_gets_no_tree_snapshots(yoke, project, home):
    turns = [
        {"content": [_bash("toolu_1", "echo x > made.txt")]},
        {"content": [{"type": "text", "text": "ok"}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "go", "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert (project / "made.txt").exists()
    assert not list((home / ".yoke").rglob("tree.git"))


def test_large_files_are_skipped_and_listed(tmp_path):
    from yoke.session.tree_snapshots import TreeStore

    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "small.txt").write_text("s")
    (repo / "big.bin").write_bytes(b"\0" * 5000)
    store = TreeStore.open(tmp_path / "store", repo, max_file_bytes=1000)
    assert store is not None
    snap = store.snapshot()
    assert snap.skipped == ["big.bin"]
    names = subprocess.run(
        ["git", "--git-dir", str(tmp_path / "store"), "ls-tree", "--name-only", snap.tree],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert names == ["small.txt"]
    # and a rewind leaves it alone rather than deleting it
    (repo / "small.txt").write_text("changed")
    later = store.snapshot()
    store.restore(snap.tree, store.changed_paths(snap.tree, later.tree))
    assert (repo / "small.txt").read_text() == "s" and (repo / "big.bin").exists()


def test_sdk_rewind_files_refuses_then_overwrites_on_request(project, home):
    """The stream-json control request's Yoke fields: on_conflict and undo."""
    _repo(project)
    turns = [
        {"content": [_bash("toolu_1", "sed -i s/alpha/ALPHA/ a.txt")]},
        {"content": [{"type": "text", "text": "ok"}]},
    ]
    env = {"HOME": str(home), "YOKE_HOME": str(home / ".yoke"), "PATH": "/usr/bin:/bin"}
    script = f"""
import asyncio, json, sys
from pathlib import Path
from yoke.session import SessionOptions, open_session
from yoke.cli.control_answers import answer_control

async def main():
    env = json.loads(sys.argv[1])
    session = await open_session(SessionOptions(cwd=Path({str(project)!r}), env=env, permission_mode="bypassPermissions"))
    try:
        _ = [e async for e in session.query("go")]
        uuid = session.agent.recorder.last_prompt_uuid
        Path({str(project)!r}, "a.txt").write_text("outside\\n")
        try:
            session.rewind_files(uuid)
            print("no-refusal")
        except ValueError as exc:
            print("refused:", exc)
        print(session.rewind_files(uuid, on_conflict="overwrite"))
        print(Path({str(project)!r}, "a.txt").read_text().strip())
        session.rewind_files("", undo=True)
        print(Path({str(project)!r}, "a.txt").read_text().strip())
    finally:
        await session.close()
asyncio.run(main())
"""
    with ScriptedServer(turns) as srv:
        env.update({"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-test"})
        proc = subprocess.run(
            [sys.executable, "-c", script, json.dumps(env)], capture_output=True, text=True, timeout=60
        )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("refused:") and "a.txt" in lines[0]
    assert lines[2] == "alpha" and lines[3] == "outside"


def test_undo_gives_back_the_conversation_and_the_code(yoke, project, home):
    from yoke.session.store import latest_session, load_conversation

    _repo(project)
    turns = [{"content": [_bash("toolu_1", "rm b.txt")]}, {"content": [{"type": "text", "text": "removed"}]}]
    with ScriptedServer(turns) as srv:
        assert (
            yoke("-p", "remove b", "--permission-mode", "bypassPermissions", env=anthropic_env(srv)).code == 0
        )
    path = latest_session(project, home / ".yoke")
    assert path is not None
    full = len(load_conversation(path).messages)
    uuid = yoke("rewind").stdout.splitlines()[1].split()[0]
    assert yoke("rewind", uuid).code == 0
    assert (project / "b.txt").read_text() == "beta\n" and len(load_conversation(path).messages) == 0
    undone = yoke("rewind", "--undo")
    assert undone.code == 0, undone.stderr
    assert "conversation cut by the latest rewind is back" in undone.stdout
    assert not (project / "b.txt").exists() and len(load_conversation(path).messages) == full


def test_a_file_too_large_to_snapshot_is_said_on_the_stream(yoke, project):
    _repo(project)
    with open(project / "video.bin", "wb") as fh:  # over the 10 MiB a file may have in a snapshot
        fh.truncate(11 * 1024 * 1024)
    turns = [
        {"content": [_bash("toolu_1", "echo x > made.txt")]},
        {"content": [{"type": "text", "text": "ok"}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "go",
            "--permission-mode",
            "bypassPermissions",
            "--output-format",
            "stream-json",
            "--verbose",
            env=anthropic_env(srv),
        )
    assert run.code == 0, run.stderr
    said = [
        o
        for o in run.lines()
        if o.get("subtype") == "informational" and "not snapshotted" in o.get("content", "")
    ]
    assert said and "video.bin" in said[0]["content"] and said[0]["level"] == "warning"


def test_a_folder_where_a_file_was_and_a_symlink_come_back_as_they_were(tmp_path):
    from yoke.session.tree_snapshots import TreeStore

    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.txt").write_text("alpha\n")
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    (repo / "link").symlink_to("a.txt")
    store = TreeStore.open(tmp_path / "store", repo)
    assert store is not None
    before = store.snapshot()
    (repo / "a.txt").unlink()
    (repo / "a.txt").mkdir()
    (repo / "a.txt" / "inner").write_text("x")
    (repo / "run.sh").chmod(0o644)
    (repo / "link").unlink()
    now = store.snapshot()
    store.restore(before.tree, store.changed_paths(before.tree, now.tree))
    assert (repo / "a.txt").read_text() == "alpha\n"
    assert (repo / "run.sh").stat().st_mode & 0o777 == 0o755
    assert (repo / "link").is_symlink() and str((repo / "link").readlink()) == "a.txt"
