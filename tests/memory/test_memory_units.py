"""Auto-memory parts against real folders, real git and real crashed processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from yoke.config.settings import load_settings
from yoke.config.trust import trust_folder
from yoke.memory.allowance import unsafe_reason
from yoke.memory.auto import canonical_git_root, resolve_auto_memory
from yoke.memory.recall import RecallIndex, query_terms
from yoke.memory.session import asks_to_ignore_memory
from yoke.memory.store import forget, load_index, write_memory

from .helpers import DB_MEMORY, git, make_repo, memory_dir, memory_text, seed


def test_worktrees_and_subfolders_share_the_main_checkouts_directory(tmp_path):
    repo = make_repo(tmp_path / "repo")
    (repo / "pkg").mkdir()
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    assert canonical_git_root(repo / "pkg") == repo.resolve()
    assert canonical_git_root(tmp_path / "side") == repo.resolve()
    outside = tmp_path / "plain"
    outside.mkdir()
    config = resolve_auto_memory(outside, env={"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}, home=tmp_path)
    name = "".join(c if c.isalnum() else "-" for c in str(outside.resolve()))
    assert config.directory == tmp_path / "cfg" / "projects" / name / "memory"  # outside git: the folder


def test_autoMemoryDirectory_only_from_user_local_managed_or_flag_settings(tmp_path):
    repo = make_repo(tmp_path / "repo")
    home = tmp_path / "home"
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text('{"autoMemoryDirectory": "/tmp/planted"}')
    env = {"CLAUDE_CONFIG_DIR": str(home / ".claude"), "HOME": str(home)}
    settings = load_settings(repo, home=home, managed_paths=[])
    config = resolve_auto_memory(repo, settings=settings, env=env, home=home)
    assert config.directory == memory_dir(home, repo) and not config.custom

    # A local file can be committed by a repository too: it counts only once the folder is trusted.
    (repo / ".claude" / "settings.local.json").write_text('{"autoMemoryDirectory": "~/notes/mem"}')
    settings = load_settings(repo, home=home, managed_paths=[])
    config = resolve_auto_memory(repo, settings=settings, env=env, home=home)
    assert config.directory == memory_dir(home, repo)
    assert config.warnings and "ignored until this folder is trusted" in config.warnings[0]
    trust_folder(repo.resolve(), settings.yoke_home)
    config = resolve_auto_memory(repo, settings=settings, env=env, home=home)
    assert config.directory == home / "notes" / "mem" and config.custom and not config.warnings

    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (repo / ".claude" / "settings.local.json").unlink()
    (home / ".claude" / "settings.json").write_text('{"autoMemoryDirectory": "/srv/mem"}')
    settings = load_settings(repo, home=home, managed_paths=[])
    config = resolve_auto_memory(repo, settings=settings, env=env, home=home)
    assert config.directory == Path("/srv/mem") and config.custom


def test_unsafe_custom_directories_get_no_allowance(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "home" / "work"
    cwd.mkdir(parents=True)
    assert unsafe_reason(home, home, [cwd], custom=True)
    assert unsafe_reason(tmp_path, home, [cwd], custom=True)  # above the working folder
    assert unsafe_reason(home / ".ssh", home, [cwd], custom=True)
    assert unsafe_reason(cwd / ".git" / "hooks", home, [cwd], custom=True)
    assert unsafe_reason(Path("/"), home, [cwd], custom=True)
    assert unsafe_reason(home / "notes" / "memory", home, [cwd], custom=True) == ""
    assert unsafe_reason(home / ".claude" / "projects" / "-x" / "memory", home, [cwd], custom=False) == ""


def test_index_cap_cuts_whole_lines_and_drops_expired_entries(tmp_path):
    mem = tmp_path / "mem"
    seed(mem)
    (mem / "old.md").write_text(memory_text("Old", "gone", "project", "past", "expiresAt: 2001-01-01\n"))
    (mem / "soon.md").write_text(memory_text("Soon", "later", "project", "future", "expiresAt: 2999-01-01\n"))
    (mem / "MEMORY.md").write_text("- [Old](old.md) — x\n- [Soon](soon.md) — y\n" + "é" * 10 + "\n")
    index = load_index(mem)
    assert "(old.md)" not in index.text and "(soon.md)" in index.text and not index.truncated
    (mem / "MEMORY.md").write_text(("- " + "é" * 499 + "\n") * 30)  # 1001 bytes a line
    index = load_index(mem)
    assert index.loaded_lines == 24 and index.total_lines == 30 and index.truncated
    assert all(line == "- " + "é" * 499 for line in index.text.split("\n\n[")[0].splitlines())


def test_recall_ranks_filters_and_catches_up_with_edits(tmp_path):
    mem = tmp_path / "mem"
    seed(mem)
    index = RecallIndex(mem, tmp_path / "idx.sqlite3")
    hits = index.search("how do I write tests for the database migration?")
    assert [h.path.name for h in hits] == ["feedback_db_tests.md"]
    assert (
        index.search("what should we do about the payments latency graphs")[0].path.name
        == "reference_dashboards.md"
    )
    assert index.search("the the and of") == []
    assert index.search("database tests", exclude={str(mem / "feedback_db_tests.md")}) == []

    (mem / "feedback_db_tests.md").write_text(DB_MEMORY.replace("Postgres", "Cassandra") + "\n")
    assert index.search("cassandra")[0].path.name == "feedback_db_tests.md"
    (mem / "feedback_db_tests.md").unlink()
    assert index.search("cassandra") == []
    expired = memory_text(
        "Expiring", "quokka facts", "project", "quokka", "expiresAt: 2001-01-01T00:00:00Z\n"
    )
    (mem / "expiring.md").write_text(expired)
    assert index.search("quokka") == []
    index.close()


def test_query_terms_and_ignore_memory():
    assert query_terms("Please fix the DB migration, then run the db tests!") == [
        "fix",
        "db",
        "migration",
        "run",
        "tests",
    ]
    assert query_terms("why didn't CI run on my branch?") == ["ci", "run", "branch"]
    assert query_terms("Erklär den Fehler") == ["erklär", "den", "fehler"]
    assert asks_to_ignore_memory("fix it and ignore memory")
    assert asks_to_ignore_memory("Don't use your saved memories for this")
    assert asks_to_ignore_memory("do it without memory")
    assert asks_to_ignore_memory("IGNORE YOUR MEMORY, please") and not asks_to_ignore_memory("ignore it")
    assert not asks_to_ignore_memory("fix the memory leak in the cache")


def test_a_corrupt_index_is_rebuilt_from_the_files(tmp_path):
    mem = tmp_path / "mem"
    seed(mem)
    db = tmp_path / "idx.sqlite3"
    db.write_bytes(b"this is not a database" * 100)
    index = RecallIndex(mem, db)
    assert index.search("database migration tests")[0].path.name == "feedback_db_tests.md"
    assert index.indexed_paths() == {str(p) for p in mem.glob("*.md") if p.name != "MEMORY.md"}
    index.close()


CRASH_DURING_FILE_WRITE = """
import os, sys
from pathlib import Path
import yoke.fsutil as fsutil
from yoke.memory import store
real_replace = os.replace
def crash(src, dst):
    os._exit(9)  # the process dies after writing the temporary file, before the rename
fsutil.os.replace = crash
store.write_memory(Path(sys.argv[1]), "feedback_db_tests.md", "---\\nname: half\\n---\\nNEW BODY\\n", "- [x](y.md) — z")
"""

CRASH_DURING_INDEX_UPDATE = """
import os, sys
from pathlib import Path
from yoke.memory import recall
index = recall.RecallIndex(Path(sys.argv[1]), Path(sys.argv[2]))
real_add = recall.RecallIndex._add
calls = []
def add_then_die(self, db, path, sig):
    real_add(self, db, path, sig)
    calls.append(path)
    if len(calls) == 2:
        os._exit(9)  # dies inside the transaction, two rows in
recall.RecallIndex._add = add_then_die
index.refresh()
"""


def run_and_crash(script: str, *args: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *map(str, args)], capture_output=True, text=True
    )
    assert proc.returncode == 9, proc.stderr


def test_a_crash_during_a_memory_write_leaves_files_and_index_consistent(tmp_path):
    mem = tmp_path / "mem"
    seed(mem)
    db = tmp_path / "idx.sqlite3"
    index = RecallIndex(mem, db)
    assert len(index.search("database migration tests")) == 1
    index.close()
    before = (mem / "MEMORY.md").read_text()

    run_and_crash(CRASH_DURING_FILE_WRITE, mem)
    assert (mem / "feedback_db_tests.md").read_text() == DB_MEMORY  # the old file, whole
    assert (mem / "MEMORY.md").read_text() == before
    leftovers = [p.name for p in mem.iterdir() if p.name.endswith(".tmp")]
    assert leftovers  # the crashed write's temporary file is there ...
    index = RecallIndex(mem, db)
    assert "NEW BODY" not in " ".join(h.body for h in index.search("database migration tests half body"))
    assert index.indexed_paths() == {
        str(mem / n) for n in ("feedback_db_tests.md", "project_release_freeze.md", "reference_dashboards.md")
    }
    index.close()  # ... and is never indexed as a memory

    # Files change, then an index update dies half-way: the transaction rolls back, the next refresh redoes it.
    for name in ("a", "b", "c"):
        (mem / f"{name}.md").write_text(memory_text(name, f"{name} wombat", "project", "wombat"))
    run_and_crash(CRASH_DURING_INDEX_UPDATE, mem, db)
    index = RecallIndex(mem, db)
    assert {h.path.name for h in index.search("wombat", refresh=False)} == set()  # nothing half-committed
    assert {h.path.name for h in index.search("wombat")} == {"a.md", "b.md", "c.md"}
    index.close()


def test_forget_removes_the_file_and_its_index_line(tmp_path):
    mem = tmp_path / "mem"
    seed(mem)
    assert forget(mem, mem / "feedback_db_tests.md")
    assert not (mem / "feedback_db_tests.md").exists()
    assert "feedback_db_tests" not in (mem / "MEMORY.md").read_text()
    path = write_memory(mem, "user_x.md", memory_text("X", "x", "user", "x"), "- [X](user_x.md) — x")
    assert path.exists() and (mem / "MEMORY.md").read_text().endswith("- [X](user_x.md) — x\n")


@pytest.mark.parametrize("value", ["1", "true", "YES", "on"])
def test_disable_env_words(tmp_path, value):
    config = resolve_auto_memory(tmp_path, env={"CLAUDE_CODE_DISABLE_AUTO_MEMORY": value}, home=tmp_path)
    assert not config.enabled and "CLAUDE_CODE_DISABLE_AUTO_MEMORY" in config.why_off
