"""Auto memory end to end: the real `yoke -p` against the scripted server, request bodies checked."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

from .helpers import (
    DASHBOARD_MEMORY,
    DB_MEMORY,
    FREEZE_MEMORY,
    first_user_text,
    git,
    make_repo,
    memory_dir,
    seed,
    system_text,
)

DB_PROMPT = "Write integration tests for the new database migration"
DONE = {"content": [{"type": "text", "text": "done"}]}


def write_call(id: str, path: Path, content: str) -> dict:
    return {
        "type": "tool_use",
        "id": id,
        "name": "Write",
        "input": {"file_path": str(path), "content": content},
    }


def test_a_session_writes_memories_and_the_next_recalls_only_the_relevant_one(yoke, project, home, tmp_path):
    make_repo(project)
    mem = memory_dir(home, project)
    index = (
        "- [Integration tests hit a real database](feedback_db_tests.md) — no mocks for db tests\n"
        "- [Release freeze in December](project_release_freeze.md) — merge freeze\n"
        "- [Payments latency dashboard](reference_dashboards.md) — grafana board\n"
    )
    first = [
        {"content": [write_call("t1", mem / "feedback_db_tests.md", DB_MEMORY)]},
        {
            "content": [
                write_call("t2", mem / "project_release_freeze.md", FREEZE_MEMORY),
                write_call("t3", mem / "reference_dashboards.md", DASHBOARD_MEMORY),
                write_call("t4", mem / "MEMORY.md", index),
            ]
        },
        {"content": [{"type": "text", "text": "Saved."}]},
    ]
    with ScriptedServer(first) as srv:
        run = yoke("-p", "remember how we test", "--output-format", "json", env=anthropic_env(srv))
        assert run.code == 0, run.stderr
        assert json.loads(run.stdout)["permission_denials"] == []  # no question for the memory directory
        system = system_text(srv.requests[0].body)
    assert "# Auto memory" in system and str(mem) in system
    assert "(empty: no memories saved yet" in system
    assert (mem / "feedback_db_tests.md").read_text() == DB_MEMORY
    assert (mem / "MEMORY.md").read_text() == index

    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", DB_PROMPT, env=anthropic_env(srv))
        assert run.code == 0, run.stderr
        body = srv.requests[0].body
    prompt = first_user_text(body)
    assert prompt.startswith(DB_PROMPT)
    assert "never mocked connections" in prompt and "<system-reminder>" in prompt
    assert (
        f'<memory path="{mem / "feedback_db_tests.md"}" name="Integration tests hit a real database" type="feedback">'
        in prompt
    )
    assert "frozen from Dec 15" not in prompt and "grafana.internal" not in prompt
    assert "- [Release freeze in December](project_release_freeze.md)" in system_text(body)  # the index

    # Another worktree of the same repository shares the memory directory.
    worktree = tmp_path / "wt"
    git(project, "worktree", "add", "-q", "-b", "other", str(worktree))
    with ScriptedServer([DONE]) as srv:
        run = yoke("-p", DB_PROMPT, cwd=worktree, env=anthropic_env(srv))
        assert run.code == 0, run.stderr
        body = srv.requests[0].body
    assert "never mocked connections" in first_user_text(body)
    assert str(mem) in system_text(body)


def test_recall_is_not_repeated_within_a_session(yoke, project, home):
    make_repo(project)
    seed(memory_dir(home, project))
    lines = [
        json.dumps({"type": "user", "message": {"role": "user", "content": DB_PROMPT}}),
        json.dumps({"type": "user", "message": {"role": "user", "content": DB_PROMPT + " again"}}),
    ]
    with ScriptedServer([DONE, DONE]) as srv:
        run = yoke(
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            input="\n".join(lines) + "\n",
            env=anthropic_env(srv),
        )
        assert run.code == 0, run.stderr
        second = srv.requests[1].body["messages"]
    texts = [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"]) for m in second]
    assert sum("never mocked connections" in t for t in texts) == 1  # surfaced once, in the first prompt


def test_writes_outside_the_memory_directory_still_ask(yoke, project, home):
    make_repo(project)
    mem = memory_dir(home, project)
    turns = [
        {
            "content": [
                write_call("t1", home / ".claude" / "notes.md", "x"),
                write_call("t2", Path(str(mem) + "/../escape.md"), "x"),
                write_call("t3", mem / "ok.md", "fine"),
            ]
        },
        DONE,
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "go", "--output-format", "json", env=anthropic_env(srv))
        assert run.code == 0, run.stderr
    denied = {d["tool_use_id"] for d in json.loads(run.stdout)["permission_denials"]}
    assert denied == {"t1", "t2"}
    assert not (home / ".claude" / "notes.md").exists() and not (mem.parent / "escape.md").exists()
    assert (mem / "ok.md").read_text() == "fine"


def test_a_repository_cannot_move_the_memory_directory(yoke, project, home, tmp_path):
    make_repo(project)
    elsewhere = tmp_path / "elsewhere"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"autoMemoryDirectory": str(elsewhere)}))
    turns = [{"content": [write_call("t1", elsewhere / "x.md", "planted")]}, DONE]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "go", "--output-format", "json", env=anthropic_env(srv))
        assert run.code == 0, run.stderr
        system = system_text(srv.requests[0].body)
    assert str(memory_dir(home, project)) in system and str(elsewhere) not in system
    assert [d["tool_use_id"] for d in json.loads(run.stdout)["permission_denials"]] == ["t1"]
    assert not (elsewhere / "x.md").exists()

    # The user's own settings may move it.
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(elsewhere)}))
    with ScriptedServer([{"content": [write_call("t1", elsewhere / "x.md", "mine")]}, DONE]) as srv:
        run = yoke("-p", "go", "--output-format", "json", env=anthropic_env(srv))
        assert run.code == 0, run.stderr
        assert str(elsewhere) in system_text(srv.requests[0].body)
    assert json.loads(run.stdout)["permission_denials"] == []
    assert (elsewhere / "x.md").read_text() == "mine"


def test_the_index_is_cut_at_200_lines_and_25_kb(yoke, project, home):
    make_repo(project)
    mem = memory_dir(home, project)
    mem.mkdir(parents=True)
    (mem / "MEMORY.md").write_text("".join(f"- [Entry {i}](e{i}.md) — hook {i}\n" for i in range(1, 301)))
    with ScriptedServer([DONE]) as srv:
        assert yoke("-p", "hi", env=anthropic_env(srv)).code == 0
        system = system_text(srv.requests[0].body)
    assert "(e200.md) — hook 200" in system and "(e201.md)" not in system
    assert "MEMORY.md has 300 lines; only the first 200 were loaded" in system

    long_line = "- [Long](long.md) — " + "x" * 480 + "\n"  # 100 lines of ~500 bytes: the byte cap comes first
    (mem / "MEMORY.md").write_text(long_line * 100)
    with ScriptedServer([DONE]) as srv:
        assert yoke("-p", "hi", env=anthropic_env(srv)).code == 0
        system = system_text(srv.requests[0].body)
    section = system.split("## MEMORY.md\n", 1)[1]
    loaded = [line for line in section.splitlines() if line.startswith("- [Long]")]
    assert 40 <= len(loaded) < 50 and all(
        line == long_line.rstrip("\n") for line in loaded
    )  # whole lines only
    assert sum(len(line) + 1 for line in loaded) <= 25_000


def test_an_expired_memory_is_not_loaded(yoke, project, home):
    make_repo(project)
    mem = memory_dir(home, project)
    seed(mem)
    expired = DB_MEMORY.replace("type: feedback\n", "type: feedback\nexpiresAt: 2020-01-01\n")
    (mem / "feedback_db_tests.md").write_text(expired)
    with ScriptedServer([DONE]) as srv:
        assert yoke("-p", DB_PROMPT, env=anthropic_env(srv)).code == 0
        body = srv.requests[0].body
    assert "never mocked connections" not in first_user_text(body)
    assert "(feedback_db_tests.md)" not in system_text(body)  # its index line is dropped too
    assert "project_release_freeze.md" in system_text(body)


def test_ignore_memory_behaves_as_empty(yoke, project, home):
    make_repo(project)
    seed(memory_dir(home, project))
    with ScriptedServer([DONE]) as srv:
        assert yoke("-p", DB_PROMPT + ", and ignore memory this time", env=anthropic_env(srv)).code == 0
        prompt = first_user_text(srv.requests[0].body)
    assert "never mocked connections" not in prompt
    assert "behave as if MEMORY.md were empty" in prompt


def test_turned_off_by_env_and_by_settings(yoke, project, home):
    make_repo(project)
    seed(memory_dir(home, project))
    with ScriptedServer([DONE]) as srv:
        env = {**anthropic_env(srv), "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
        assert yoke("-p", DB_PROMPT, env=env).code == 0
        body = srv.requests[0].body
    assert "# Auto memory" not in system_text(body) and "never mocked" not in first_user_text(body)
    (home / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryEnabled": False}))
    with ScriptedServer([DONE]) as srv:
        assert yoke("-p", DB_PROMPT, env=anthropic_env(srv)).code == 0
        body = srv.requests[0].body
    assert "# Auto memory" not in system_text(body) and "never mocked" not in first_user_text(body)
    with ScriptedServer([DONE]) as srv:  # an explicit 0 turns it back on ahead of settings
        env = {**anthropic_env(srv), "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "0"}
        assert yoke("-p", DB_PROMPT, env=env).code == 0
        assert "never mocked" in first_user_text(srv.requests[0].body)


def test_recall_by_side_query_when_chosen(yoke, project, home):
    make_repo(project)
    mem = memory_dir(home, project)
    seed(mem)
    (home / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryRecall": "model"}))
    pick = {"content": [{"type": "text", "text": '{"memories": ["reference_dashboards.md", "made_up.md"]}'}]}
    prompt = "checkout feels sluggish lately, where should I look?"  # shares no word with the memory
    with ScriptedServer([pick, DONE]) as srv:
        run = yoke("-p", prompt, "--output-format", "json", env=anthropic_env(srv))
        assert run.code == 0, run.stderr
        side, main = srv.requests[0].body, srv.requests[1].body
    assert "You select memories" in system_text(side) and not side.get("tools") and side["max_tokens"] == 256
    offered = first_user_text(side)
    assert prompt in offered and '"file": "feedback_db_tests.md"' in offered
    recalled = first_user_text(main)
    assert "grafana.internal/d/pay" in recalled and "never mocked" not in recalled

    garbage = {"content": [{"type": "text", "text": "I think the dashboards one"}]}
    with ScriptedServer([garbage, DONE]) as srv:  # an unusable answer falls back to the index
        assert yoke("-p", DB_PROMPT, env=anthropic_env(srv)).code == 0
        assert "never mocked connections" in first_user_text(srv.requests[1].body)
