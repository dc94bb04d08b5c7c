"""Loading, finding, listing and forking sessions from real transcript files."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from yoke.context.compaction import Compactor
from yoke.context.history import INTERRUPTED_RESULT, history_problems
from yoke.messages import text_of
from yoke.providers.base import Usage
from yoke.session import store
from yoke.session.fork import fork_session
from yoke.session.records import RecordChain, permission_decision_fields, turn_result_fields
from yoke.session.transcript import Transcript, load_records, transcript_path


class Session:
    """Writes a transcript the way the loop does."""

    def __init__(self, cwd: Path, home: Path, session_id: str = "11111111-aaaa-4bbb-8ccc-000000000001"):
        self.chain = RecordChain(session_id=session_id, cwd=str(cwd))
        self.path = transcript_path(cwd, session_id, home)
        self.transcript = Transcript(self.path)
        self.messages: list = []

    def user(self, content, **kw) -> str:
        message = {"role": "user", "content": content}
        self.messages.append(message)
        record = self.chain.user(message, **kw)
        self.transcript.append(record)
        return record["uuid"]

    def assistant(self, content, model="claude-test") -> str:
        message = {"role": "assistant", "content": content}
        self.messages.append(message)
        record = self.chain.assistant(
            message, message_id="msg_1", model=model, stop_reason="end_turn", usage=Usage(5, 6)
        )
        self.transcript.append(record)
        return record["uuid"]

    def tool_turn(self, tool_id: str, result: str) -> None:
        self.assistant([{"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": "/x"}}])
        self.user(
            [{"type": "tool_result", "tool_use_id": tool_id, "content": result}], tool_use_result={"ok": 1}
        )

    def system(self, subtype: str, fields: dict) -> None:
        self.transcript.append(self.chain.system(subtype, fields))

    def close(self) -> None:
        self.transcript.close()


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    d = tmp_path / "proj"
    d.mkdir()
    return d


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "yoke-home"


def test_load_rebuilds_history_and_state_and_ignores_a_torn_line(cwd, home):
    s = Session(cwd, home)
    s.user("fix the bug in parser.py")
    s.tool_turn("toolu_1", "contents")
    s.assistant(
        [{"type": "thinking", "thinking": "hm", "signature": "sig"}, {"type": "text", "text": "Fixed."}]
    )
    s.system(
        "permission_decision",
        permission_decision_fields(
            "toolu_1", "Bash", "allow", "user", rule="Bash(npm test:*)", destination="session"
        ),
    )
    s.system("permission_decision", permission_decision_fields("toolu_2", "Read", "allow", "mode"))
    s.transcript.append(s.chain.todos([{"content": "write test", "status": "pending"}]))
    s.system("turn_result", turn_result_fields(Usage(10, 20), {"claude-test": {"costUSD": 0.25}}, 0.25))
    s.transcript.append(s.chain.last_prompt("fix the bug in parser.py"))
    last = s.chain.parent_uuid
    s.close()
    with open(s.path, "a") as fh:
        fh.write('{"type":"assistant","uuid":"torn","message":{"role":"assis')  # crash mid-write
    loaded = store.load_conversation(s.path)
    assert loaded.messages == s.messages
    assert loaded.session_id == "11111111-aaaa-4bbb-8ccc-000000000001"
    assert loaded.last_uuid == last
    assert loaded.total_cost_usd == 0.25 and loaded.model_usage == {"claude-test": {"costUSD": 0.25}}
    assert loaded.todos == [{"content": "write test", "status": "pending"}]
    assert [g.get("rule") for g in loaded.permission_grants] == ["Bash(npm test:*)"]
    assert loaded.first_prompt == "fix the bug in parser.py" and loaded.last_prompt == loaded.first_prompt
    assert loaded.model == "claude-test" and loaded.cwd == str(cwd)
    assert len(loaded.uuids) == len(loaded.messages) and loaded.uuids[0] is not None


def test_a_crash_between_tool_call_and_result_is_repaired(cwd, home):
    s = Session(cwd, home)
    s.user("run it")
    s.assistant(
        [
            {"type": "tool_use", "id": "a", "name": "Bash", "input": {}},
            {"type": "tool_use", "id": "b", "name": "Bash", "input": {}},
        ]
    )
    s.close()
    loaded = store.load_conversation(s.path)
    assert history_problems(loaded.messages) == []
    assert [b["tool_use_id"] for b in loaded.messages[-1]["content"]] == ["a", "b"]
    assert loaded.messages[-1]["content"][0]["content"] == INTERRUPTED_RESULT
    # resumed and continued: the repair stays deterministic
    s2 = Session(cwd, home)
    s2.chain.parent_uuid = loaded.last_uuid
    s2.user("try again")
    s2.close()
    again = store.load_conversation(s.path)
    assert history_problems(again.messages) == []
    assert again.messages[:-1] == loaded.messages and again.messages[-1]["content"] == "try again"


async def test_compaction_boundaries_rebuild_the_compacted_history(cwd, home, tmp_path):
    s = Session(cwd, home)
    s.user("GOAL: build it")
    for i in range(6):
        s.tool_turn(f"t{i}", "r" * 500)

    async def summarize(messages, instruction):
        return "<summary>S</summary>"

    compactor = Compactor("m", summarize, tmp_path / "sd", env={})
    result = await compactor.compact(list(s.messages), None)
    for boundary in result.boundaries:
        s.transcript.append(s.chain.wrap(boundary))
    s.messages = list(result.messages)
    s.tool_turn("t9", "after")
    s.close()
    loaded = store.load_conversation(s.path)
    assert loaded.compactions == 1
    assert loaded.messages == s.messages
    assert loaded.uuids[0] is None and loaded.uuids[-1] is not None
    assert history_problems(loaded.messages) == []


def test_rewind_record_cuts_the_conversation_but_keeps_cost(cwd, home):
    s = Session(cwd, home)
    s.user("first")
    s.assistant("one")
    target = s.user("second")
    s.assistant("two")
    s.system("turn_result", turn_result_fields(Usage(1, 1), {}, 1.5))
    s.system("rewind", {"targetUuid": target})
    s.user("second, differently")
    s.close()
    loaded = store.load_conversation(s.path)
    assert [text_of(m) for m in loaded.messages] == ["first", "one", "second, differently"]
    assert loaded.total_cost_usd == 1.5


def test_finding_and_listing_sessions(cwd, home, tmp_path):
    ids = ["aaaa1111-0000-4000-8000-000000000001", "aaaa2222-0000-4000-8000-000000000002"]
    for n, sid in enumerate(ids):
        s = Session(cwd, home, sid)
        s.user(f"prompt number {n}\nsecond line")
        s.assistant("ok")
        s.system("turn_result", turn_result_fields(Usage(), {}, 0.5 * (n + 1)))
        s.close()
        os.utime(s.path, (time.time() + n, time.time() + n))
    empty = transcript_path(cwd, "ffff0000-0000-4000-8000-000000000000", home)
    empty.write_text('{"type":"last-prompt","lastPrompt":"x"}\n')
    os.utime(empty, (time.time() + 10, time.time() + 10))
    other = tmp_path / "other"
    other.mkdir()
    s = Session(other, home, "bbbb0000-0000-4000-8000-000000000003")
    s.user("elsewhere")
    s.close()

    assert store.latest_session(cwd, home).stem == ids[1]
    assert store.latest_session(tmp_path / "nowhere", home) is None
    assert store.find_session(ids[0], cwd, home).stem == ids[0]
    assert store.find_session("aaaa2", cwd, home).stem == ids[1]
    assert store.find_session("bbbb0000", cwd, home).stem == "bbbb0000-0000-4000-8000-000000000003"
    assert store.find_session(str(s.path), cwd, home) == s.path
    with pytest.raises(store.SessionError, match="ambiguous"):
        store.find_session("aaaa", cwd, home)
    with pytest.raises(store.SessionError, match="No session"):
        store.find_session("zzzzzz", cwd, home)
    with pytest.raises(LookupError):
        store.find_session(str(tmp_path / "missing.jsonl"), cwd, home)

    infos = store.list_sessions(cwd, home)
    assert [i.id for i in infos] == [ids[1], ids[0]]
    assert infos[0].first_prompt.startswith("prompt number 1") and infos[0].cost_usd == 1.0


def test_fork_copies_history_under_a_new_id(cwd, home):
    s = Session(cwd, home)
    s.user("hello")
    s.tool_turn("t1", "r")
    s.close()
    new_id, path = fork_session(s.path, cwd, home)
    assert path.parent == s.path.parent and new_id != s.chain.session_id
    original = list(load_records(s.path))
    forked = list(load_records(path))
    assert [r["sessionId"] for r in forked] == [new_id] * len(original)
    assert not {r["uuid"] for r in forked} & {r["uuid"] for r in original}
    assert forked[1]["parentUuid"] == forked[0]["uuid"]
    assert forked[0]["forkedFrom"] == {"sessionId": s.chain.session_id, "messageUuid": original[0]["uuid"]}
    assert store.load_conversation(path).messages == store.load_conversation(s.path).messages
    assert json.loads(s.path.read_text().splitlines()[0])["sessionId"] == s.chain.session_id
    with pytest.raises(store.SessionError):
        fork_session(s.path, cwd, home, new_session_id=new_id)
