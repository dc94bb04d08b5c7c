"""`# note` without a model call, end-of-session extraction off and on, and `yoke memory`."""

from __future__ import annotations

import json
import time

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

from .helpers import DB_MEMORY, first_user_text, make_repo, memory_dir, seed

DONE = {"content": [{"type": "text", "text": "done"}]}


def test_hash_note_is_saved_without_a_model_call(yoke, project, home):
    (project / "CLAUDE.md").write_text("# Project\nExisting rule.")
    run = yoke("-p", "# Always run make lint before committing")  # no provider configured: no model call
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == f"Noted in {project / 'CLAUDE.md'}"
    assert (
        project / "CLAUDE.md"
    ).read_text() == "# Project\nExisting rule.\n- Always run make lint before committing\n"

    run = yoke("-p", "#  Prefer tabs", "--memory-target", "user", "--output-format", "json")
    assert run.code == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["type"] == "result" and result["is_error"] is False
    assert result["result"] == f"Noted in {home / '.claude' / 'CLAUDE.md'}"
    assert (home / ".claude" / "CLAUDE.md").read_text() == "- Prefer tabs\n"

    assert yoke("-p", "# My sandbox is at http://localhost:9000", "--memory-target", "local").code == 0
    assert (project / "CLAUDE.local.md").read_text() == "- My sandbox is at http://localhost:9000\n"

    bad = yoke("-p", "# x", "--memory-target", "team")
    assert bad.code == 1 and "--memory-target" in bad.stderr and "Traceback" not in bad.stderr  # as commander


def test_twenty_notes_saved_at_once_are_all_kept(project, base_env):
    """Issue 40 item 5: 20 `yoke -p "# note N"` started together; each says Noted, and all 20 are there."""
    import subprocess
    import sys

    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "yoke", "-p", f"# note number {n}"],
            cwd=project,
            env=base_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(20)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 and out.startswith("Noted") for p, (out, _) in zip(procs, outs, strict=True))
    lines = (project / "CLAUDE.md").read_text().splitlines()
    assert sorted(lines) == sorted(f"- note number {n}" for n in range(20))


def test_a_markdown_prompt_that_opens_with_a_heading_goes_to_the_model(yoke, project):
    with ScriptedServer([DONE, DONE]) as srv:
        assert yoke("-p", "# Task\nFix the failing test", env=anthropic_env(srv)).code == 0
        assert yoke("-p", "## Not a note", env=anthropic_env(srv)).code == 0
        assert first_user_text(srv.requests[0].body).startswith("# Task\nFix the failing test")
        assert first_user_text(srv.requests[1].body).startswith("## Not a note")
    assert not (project / "CLAUDE.md").exists()


def wait_for(predicate, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_extraction_is_off_by_default(yoke, project, home):
    make_repo(project)
    with ScriptedServer([DONE]) as srv:
        assert yoke("-p", "I am the on-call SRE for payments", env=anthropic_env(srv)).code == 0
        time.sleep(1.0)
        assert len(srv.requests) == 1
    assert not (home / ".yoke" / "memory-extract").exists()


def test_extraction_proposes_memories_in_the_background(yoke, project, home):
    make_repo(project)
    mem = memory_dir(home, project)
    seed(mem)
    (home / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryExtraction": True}))
    proposals = {
        "memories": [
            {
                "name": "On-call for payments",
                "description": "the user is the on-call SRE for the payments service",
                "type": "user",
                "body": "The user is the on-call SRE for the payments service and reads alerts first.",
            },
            {  # the same as an existing memory: skipped
                "name": "Integration tests hit a real database",
                "description": "integration tests must use the real Postgres test database",
                "type": "feedback",
                "body": "Use the real database.",
            },
            {"name": "broken", "type": "nonsense", "body": "dropped: unknown type"},
        ]
    }
    extraction_answer = {"content": [{"type": "text", "text": json.dumps(proposals)}], "delay": 0.3}
    with ScriptedServer([DONE, extraction_answer]) as srv:
        started = time.monotonic()
        run = yoke("-p", "I am the on-call SRE for payments; check the alert", env=anthropic_env(srv))
        elapsed = time.monotonic() - started
        assert run.code == 0, run.stderr
        index_line = "- [On-call for payments](user_on_call_for_payments.md)"
        # the memory file is written first, then its line in MEMORY.md: wait for both
        assert wait_for(lambda: index_line in (mem / "MEMORY.md").read_text()), (
            home / ".yoke" / "memory-extract.log"
        ).read_text()
        extraction = srv.requests[1].body
    assert elapsed < 10
    system = json.dumps(extraction.get("system"))
    assert "decide what is worth remembering" in system and not extraction.get("tools")
    request_text = first_user_text(extraction)
    assert "I am the on-call SRE for payments" in request_text
    assert "Integration tests hit a real database: integration tests must use" in request_text  # dedup list
    written = (mem / "user_on_call_for_payments.md").read_text()
    assert written.startswith("---\nname: On-call for payments\n") and "type: user" in written
    assert (
        "- [On-call for payments](user_on_call_for_payments.md) — the user is the on-call"
        in (mem / "MEMORY.md").read_text()
    )
    assert (mem / "feedback_db_tests.md").read_text() == DB_MEMORY
    assert sorted(p.name for p in mem.glob("*.md")) == [
        "MEMORY.md",
        "feedback_db_tests.md",
        "project_release_freeze.md",
        "reference_dashboards.md",
        "user_on_call_for_payments.md",
    ]
    assert not list((home / ".yoke" / "memory-extract").glob("*.json"))  # the hand-over file is gone


def test_exit_does_not_wait_for_extraction(yoke, project, home):
    make_repo(project)
    mem = memory_dir(home, project)
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryExtraction": True}))
    proposal = {"memories": [{"name": "Likes haiku", "type": "user", "body": "The user likes haiku."}]}
    slow = {"content": [{"type": "text", "text": json.dumps(proposal)}], "delay": 1.0}  # seconds per frame
    with ScriptedServer([DONE, slow]) as srv:
        assert yoke("-p", "hello there", env=anthropic_env(srv)).code == 0
        assert not (mem / "user_likes_haiku.md").exists()  # the run is over; the extraction is not
        assert wait_for(lambda: (mem / "user_likes_haiku.md").exists())
        assert len(srv.requests) == 2


def test_memory_command_lists_shows_searches_and_forgets(yoke, project, home):
    make_repo(project)
    mem = memory_dir(home, project)
    seed(mem)
    listing = yoke("memory", "list")
    assert listing.code == 0, listing.stderr
    assert f"Directory: {mem}" in listing.stdout and "Auto memory: on" in listing.stdout
    assert (
        "feedback_db_tests.md" in listing.stdout
        and "[feedback] Integration tests hit a real database" in listing.stdout
    )
    assert "3 memories; MEMORY.md: 3 lines" in listing.stdout

    shown = yoke("memory", "show", "Integration tests hit a real database")
    assert shown.code == 0 and "never mocked connections" in shown.stdout

    found = yoke("memory", "search", "database", "migration", "tests")
    assert found.code == 0 and "feedback_db_tests.md" in found.stdout and "dashboards" not in found.stdout

    gone = yoke("memory", "forget", "feedback_db_tests.md")
    assert gone.code == 0 and "Forgot feedback_db_tests.md" in gone.stdout
    assert not (mem / "feedback_db_tests.md").exists()
    assert "feedback_db_tests" not in (mem / "MEMORY.md").read_text()
    assert "dashboards" in (mem / "MEMORY.md").read_text()
    after = yoke("memory", "search", "database", "migration", "tests")
    assert "feedback_db_tests.md" not in after.stdout  # the index caught up with the deletion

    missing = yoke("memory", "show", "nothing-like-this")
    assert missing.code == 1 and "no memory named" in missing.stderr and "Traceback" not in missing.stderr
    assert yoke("memory", "frobnicate").code == 2


def test_memory_command_says_when_memory_is_off(yoke, project):
    run = yoke("memory", "list", env={"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"})
    assert run.code == 0 and "Auto memory: off (CLAUDE_CODE_DISABLE_AUTO_MEMORY is set)" in run.stdout
