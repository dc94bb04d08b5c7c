"""Sessions other agents wrote (real files, recorded by the tools themselves; see foreign/README.md) are
listed, continued as a new Yoke session whose next request carries the imported history in order, and never
written; a file Yoke cannot read gives one line and leaves nothing behind."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

FIXTURES = Path(__file__).parent / "foreign"
CODEX_ID = "01a220e0-b3f4-7123-ba72-e5e963fe7828"
GEMINI_ID = "676ccf62-30e7-4bdd-a232-02867d797368"
OPENCODE_ID = "ses_ddf1c9d52ffeKcvbfbT45f6BNB"


def _homes(home: Path) -> dict[str, str]:
    return {
        "CODEX_HOME": str(home / ".codex"),
        "GEMINI_CLI_HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
    }


def place_codex(home: Path) -> Path:
    folder = home / ".codex" / "sessions" / "2026" / "11" / "28"
    folder.mkdir(parents=True)
    target = folder / f"rollout-2026-11-28T06-38-46-{CODEX_ID}.jsonl"
    shutil.copyfile(FIXTURES / "codex-0.171.0-rollout.jsonl", target)
    return target


def place_gemini(home: Path, project: Path) -> Path:
    folder = home / ".gemini" / "tmp" / "project"
    (folder / "chats").mkdir(parents=True)
    (folder / ".project_root").write_text(str(project))
    target = folder / "chats" / "session-2026-11-28T06-40-676ccf62.jsonl"
    shutil.copyfile(FIXTURES / "gemini-cli-0.61.0-session.jsonl", target)
    return target


def place_opencode(home: Path) -> Path:
    folder = home / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    target = folder / "opencode.db"
    shutil.copyfile(FIXTURES / "opencode-1.18.33.db", target)
    return target


def _snapshot(path: Path) -> tuple[bytes, float, list[str]]:
    return path.read_bytes(), path.stat().st_mtime, sorted(p.name for p in path.parent.iterdir())


def _continue(yoke, home: Path, ref: str, source: Path) -> tuple[list[dict], dict, Path]:
    before = _snapshot(source)
    with ScriptedServer([{"content": [{"type": "text", "text": "Next."}]}]) as srv:
        run = yoke(
            "-p",
            "and now?",
            "--resume",
            ref,
            "--output-format",
            "json",
            env={**anthropic_env(srv), **_homes(home)},
        )
        assert run.code == 0, run.stderr
        messages = srv.requests[0].body["messages"]
    assert _snapshot(source) == before  # the other agent's file is only read
    result = json.loads(run.stdout)
    transcripts = list((home / ".yoke" / "projects").glob(f"*/{result['session_id']}.jsonl"))
    assert len(transcripts) == 1
    return messages, result, transcripts[0]


def _flat(messages: list[dict]) -> list[tuple[str, str, str]]:
    """(role, block type, the block's text or tool name) for every block, in order."""
    out = []
    for message in messages:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for b in blocks:
            value = b.get("text") or b.get("name") or str(b.get("content", ""))[:40]
            out.append((message["role"], b["type"], value))
    return out


def _check_order(messages: list[dict], first_prompt: str, tool: str, unmapped: str, last: str) -> None:
    flat = _flat(messages)
    kinds = [(role, kind) for role, kind, _ in flat]
    assert kinds == [
        ("user", "text"),
        ("assistant", "text"),
        ("assistant", "tool_use"),
        ("user", "tool_result"),
        ("assistant", "text"),
        ("user", "text"),
        ("assistant", "text"),
        ("user", "text"),
    ], flat
    assert first_prompt in flat[0][2]
    assert flat[1][2] == "Let me read the notes." and flat[2][2] == tool
    assert f"`{unmapped}`, which Yoke does not have" in flat[4][2]  # a tool Yoke lacks is text, not a call
    assert flat[6][2] == last and flat[7][2] == "and now?"
    assert "I should read the notes file." not in json.dumps(messages)  # reasoning dropped


def _check_transcript(transcript: Path, source: str, source_id: str) -> None:
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    imported = [r for r in records if r.get("forkedFrom")]
    assert imported and all(r["forkedFrom"]["source"] == source for r in imported)
    assert imported[0]["forkedFrom"]["sessionId"] == source_id
    notice = next(r for r in records if r.get("subtype") == "notice" and r.get("forkedFrom"))
    assert "reasoning" in notice["content"]  # the note says what was dropped


def test_codex_rollout_listed_and_continued(yoke, home):
    source = place_codex(home)
    listed = yoke("sessions", "list", "--from", "codex", env=_homes(home))
    assert listed.code == 0, listed.stderr
    assert f"codex:{CODEX_ID}" in listed.stdout and "what do my notes say?" in listed.stdout
    messages, result, transcript = _continue(yoke, home, f"codex:{CODEX_ID[:13]}", source)
    _check_order(messages, "what do my notes say?", "Bash", "get_goal", "The notes say: remember the milk.")
    call = next(
        b for m in messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"
    )
    assert call["input"] == {"command": "cat notes.txt"}  # Codex's exec_command is Yoke's Bash
    assert result["session_id"] != CODEX_ID
    _check_transcript(transcript, "codex", CODEX_ID)


def test_gemini_cli_session_listed_and_continued(yoke, home, project):
    source = place_gemini(home, project)
    listed = yoke("sessions", "list", "--from", "gemini", env=_homes(home))
    assert listed.code == 0, listed.stderr
    assert f"gemini:{GEMINI_ID}" in listed.stdout and "what do my notes say?" in listed.stdout
    messages, _, transcript = _continue(yoke, home, f"gemini:{GEMINI_ID}", source)
    _check_order(
        messages, "what do my notes say?", "Read", "update_topic", "The notes say: remember the milk."
    )
    call = next(
        b for m in messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"
    )
    assert call["input"] == {
        "file_path": str(project / "notes.txt")
    }  # relative to the project, made absolute
    assert "<session_context>" not in json.dumps(messages)  # Gemini CLI's own context is not a prompt
    _check_transcript(transcript, "gemini", GEMINI_ID)


def test_opencode_session_listed_and_continued(yoke, home):
    source = place_opencode(home)
    listed = yoke("sessions", "list", "--from", "opencode", env=_homes(home))
    assert listed.code == 0, listed.stderr
    assert f"opencode:{OPENCODE_ID}" in listed.stdout
    messages, _, transcript = _continue(yoke, home, f"opencode:{OPENCODE_ID[:12]}", source)  # a prefix
    _check_order(messages, "what do my notes say?", "Read", "todowrite", "The notes say: remember the milk.")
    assert not (source.parent / "opencode.db-journal").exists()
    _check_transcript(transcript, "opencode", OPENCODE_ID)


def _nothing_written(home: Path) -> bool:
    projects = home / ".yoke" / "projects"
    return not projects.exists() or not any(projects.rglob("*.jsonl"))


def _one_line_error(run, path: Path, words: str) -> None:
    assert run.code != 0
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, run.stderr
    assert str(path) in lines[0] and words in lines[0], lines[0]
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("damage", ["truncated", "unknown"])
def test_bad_codex_file_one_line_nothing_written(yoke, home, damage):
    source = place_codex(home)
    text = source.read_text()
    if damage == "truncated":
        source.write_text(text[: len(text) - 200])  # cut inside the last line
    else:
        source.write_text('{"format": "rollout-v99"}\n' + text.split("\n", 1)[1])
    run = yoke("-p", "hi", "--resume", f"codex:{CODEX_ID}", env={"ANTHROPIC_API_KEY": "x", **_homes(home)})
    _one_line_error(run, source, "truncated" if damage == "truncated" else "not a Codex rollout")
    assert _nothing_written(home)


@pytest.mark.parametrize("damage", ["truncated", "unknown"])
def test_bad_gemini_file_one_line_nothing_written(yoke, home, project, damage):
    source = place_gemini(home, project)
    text = source.read_text()
    source.write_text(text[:-40] if damage == "truncated" else '{"version": 7}\n' + text.split("\n", 1)[1])
    run = yoke("-p", "hi", "--resume", f"gemini:{source}", env={"ANTHROPIC_API_KEY": "x", **_homes(home)})
    _one_line_error(run, source, "truncated" if damage == "truncated" else "not a Gemini CLI session")
    assert _nothing_written(home)


@pytest.mark.parametrize("damage", ["truncated", "unknown"])
def test_bad_opencode_database_one_line_nothing_written(yoke, home, damage):
    source = place_opencode(home)
    if damage == "truncated":
        source.write_bytes(source.read_bytes()[:5000])
    else:
        with sqlite3.connect(source) as db:
            db.execute("ALTER TABLE part RENAME COLUMN data TO payload")
        db.close()
    before = source.read_bytes()
    run = yoke(
        "-p",
        "hi",
        "--resume",
        f"opencode:{source}#{OPENCODE_ID}",
        env={"ANTHROPIC_API_KEY": "x", **_homes(home)},
    )
    _one_line_error(run, source, "opencode database")
    assert source.read_bytes() == before
    assert _nothing_written(home)


def test_unknown_source_id_is_one_line(yoke, home):
    run = yoke("-p", "hi", "--resume", "codex:nope", env={"ANTHROPIC_API_KEY": "x", **_homes(home)})
    assert run.code != 0 and "No Codex session 'nope'" in run.stderr and "Traceback" not in run.stderr


def test_gemini_cli_checkpoint_listed_and_continued(yoke, home, project):
    """`/chat save notes-tag` wrote it: the Gemini API history, context and prompt as parts of one turn."""
    folder = home / ".gemini" / "tmp" / "project"
    folder.mkdir(parents=True)
    (folder / ".project_root").write_text(str(project))
    source = folder / "checkpoint-notes-tag.json"
    shutil.copyfile(FIXTURES / "gemini-cli-0.61.0-checkpoint-notes-tag.json", source)
    listed = yoke("sessions", "list", "--from", "gemini", env=_homes(home))
    assert "gemini:checkpoint-notes-tag" in listed.stdout and "what do my notes say" in listed.stdout
    messages, _, _ = _continue(yoke, home, "gemini:notes-tag", source)
    flat = _flat(messages)
    assert [(role, kind) for role, kind, _ in flat] == [
        ("user", "text"), ("assistant", "text"), ("assistant", "tool_use"), ("user", "tool_result"),
        ("assistant", "text"), ("user", "text"),
    ]  # fmt: skip
    assert flat[0][2] == "what do my notes say" and flat[2][2] == "Read"
    assert "remember the milk" in flat[3][2] and flat[4][2] == "The notes say: remember the milk."
    assert "<session_context>" not in json.dumps(messages)


def test_opencode_running_its_write_ahead_log_is_read_and_left_alone(yoke, home):
    """While opencode runs, what it wrote last is in `opencode.db-wal`: listed, and no file of it changes."""
    source = place_opencode(home)
    live = sqlite3.connect(source)  # held open, as opencode holds it: the change stays in the log
    try:
        live.execute("PRAGMA journal_mode=WAL")
        live.execute("UPDATE session SET title = 'renamed while running' WHERE id = ?", (OPENCODE_ID,))
        live.commit()
        files = sorted(source.parent.glob("opencode.db*"))
        before = {p.name: p.read_bytes() for p in files}
        listed = yoke("sessions", "list", "--from", "opencode", env=_homes(home))
        assert listed.code == 0, listed.stderr
        assert "renamed while running" in listed.stdout
        assert {p.name: p.read_bytes() for p in sorted(source.parent.glob("opencode.db*"))} == before
    finally:
        live.close()


def _rollout_line(kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": "2026-11-28T06:38:46.000Z", "type": kind, "payload": payload}) + "\n"


def _user(text: str) -> dict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _said(text: str) -> dict:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def test_codex_compaction_replaces_what_came_before(tmp_path):
    """`compacted` (codex-rs `CompactedItem`): its `replacement_history` is the history from there on; an
    older one without it keeps the person's messages and then the summary."""
    from yoke.session.foreign import codex

    meta = {"id": CODEX_ID, "cwd": str(tmp_path), "cli_version": "0.171.0"}
    head = _rollout_line("session_meta", meta) + _rollout_line("response_item", _user("first ask"))
    head += _rollout_line("response_item", _said("long answer"))
    path = tmp_path / "rollout.jsonl"
    path.write_text(
        head
        + _rollout_line("compacted", {"message": "", "replacement_history": [_user("SUMMARY of it")]})
        + _rollout_line("response_item", _said("after"))
    )
    texts = [json.dumps(m["content"]) for m in codex.read(path).messages]
    assert len(texts) == 2 and "SUMMARY of it" in texts[0] and "after" in texts[1]
    path.write_text(head + _rollout_line("compacted", {"message": "OLD SUMMARY"}))
    texts = [json.dumps(m["content"]) for m in codex.read(path).messages]
    assert (
        len(texts) == 1
        and "first ask" in texts[0]
        and "OLD SUMMARY" in texts[0]
        and "long answer" not in texts[0]
    )


def test_gemini_rewind_and_replaced_records(tmp_path):
    """As Gemini CLI's loadConversationRecord: a record with an id seen before replaces it in place; a
    `$rewindTo` removes that message and every later one; `$set` with messages replaces them all."""
    from yoke.session.foreign import gemini

    def msg(mid: str, kind: str, text: str) -> str:
        return json.dumps({"id": mid, "timestamp": "t", "type": kind, "content": [{"text": text}]}) + "\n"

    head = json.dumps({"sessionId": GEMINI_ID, "projectHash": "h", "startTime": "t"}) + "\n"
    path = tmp_path / "session-x.jsonl"
    path.write_text(
        head
        + msg("u1", "user", "first")
        + msg("g1", "gemini", "draft")
        + msg("g1", "gemini", "final answer")  # replaces the draft in place
        + msg("u2", "user", "abandoned")
        + msg("g2", "gemini", "abandoned reply")
        + json.dumps({"$rewindTo": "u2"}) + "\n"
        + msg("u3", "user", "second")
    )  # fmt: skip
    texts = [json.dumps(m["content"]) for m in gemini.read(path).messages]
    assert len(texts) == 3
    assert "first" in texts[0] and "final answer" in texts[1] and "second" in texts[2]
    assert "draft" not in "".join(texts) and "abandoned" not in "".join(texts)
