"""System prompt assembly against real git repositories and memory files."""

from __future__ import annotations

import subprocess
from datetime import date
from pathlib import Path

from yoke.context.cache import (
    breakpoint_positions,
    mark_messages,
    mark_system,
    mark_tools,
    strip_cache_control,
)
from yoke.context.git import MAX_STATUS_CHARS, git_context
from yoke.context.prompt import build_system_prompt, system_prompt_text
from yoke.memory import MemoryIndex

TOOLS = ["Read", "Edit", "Write", "Bash", "Grep", "Glob", "TodoWrite"]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Tester", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    (root / "CLAUDE.md").write_text("Project rule: run `make check` before finishing.\nAlso @AGENTS.md\n")
    (root / "AGENTS.md").write_text("Agents: keep functions short. @CLAUDE.md (a cycle)\n")
    for i in range(7):
        (root / f"f{i}.txt").write_text(str(i))
        git(root, "add", f"f{i}.txt")
        git(root, "commit", "-q", "-m", f"commit number {i}")
    git(root, "checkout", "-q", "-b", "feature")
    (root / "dirty.txt").write_text("new")
    return root


async def test_prompt_for_a_nested_repo(tmp_path):
    repo = make_repo(tmp_path / "repo")
    cwd = repo / "pkg"
    cwd.mkdir()
    (cwd / "CLAUDE.md").write_text("Package rule: use tabs.")
    home = tmp_path / "home"
    blocks = await build_system_prompt(
        cwd=cwd, model="claude-test", tool_names=TOOLS, override=None, append="APPENDED", home=home, env={}
    )
    texts = [b["text"] for b in blocks]
    assert all(b["type"] == "text" for b in blocks)
    assert texts[0].startswith("You are Yoke")
    assert "TodoWrite" in texts[0] and "Grep" in texts[0]
    env_block = texts[1]
    assert f"Working directory: {cwd}" in env_block
    assert (
        "Current branch: feature" in env_block
        and "Main branch (the usual target for pull requests): main" in env_block
    )
    assert "?? dirty.txt" in env_block or "dirty.txt" in env_block
    assert (
        "commit number 6" in env_block
        and "commit number 2" in env_block
        and "commit number 1" not in env_block
    )
    memory = texts[2]
    assert memory.index("Project rule") < memory.index("Agents: keep") < memory.index("Package rule")
    assert memory.count("Project rule") == 1  # the cycle AGENTS.md -> CLAUDE.md loads nothing twice
    assert texts[-1] == "APPENDED"


async def test_non_git_folder_and_no_memory(tmp_path):
    blocks = await build_system_prompt(
        cwd=tmp_path, model="m", tool_names=[], override=None, append=None, home=tmp_path, env={}
    )
    assert len(blocks) == 2
    assert "Git repository: no" in blocks[1]["text"] and "# Git" not in blocks[1]["text"]
    assert await git_context(tmp_path) is None


async def test_override_replaces_default_but_keeps_memory(tmp_path):
    (tmp_path / "CLAUDE.md").write_text("MEMO")
    blocks = await build_system_prompt(
        cwd=tmp_path,
        model="m",
        tool_names=TOOLS,
        override="CUSTOM PROMPT",
        append="MORE",
        home=tmp_path,
        env={},
    )
    assert [b["text"] for b in blocks][0] == "CUSTOM PROMPT"
    assert "MEMO" in blocks[1]["text"] and blocks[2]["text"] == "MORE"
    assert "You are Yoke" not in system_prompt_text(blocks)
    no_memory = await build_system_prompt(
        cwd=tmp_path,
        model="m",
        tool_names=TOOLS,
        override="X",
        append=None,
        memory=False,
        home=tmp_path,
        env={},
    )
    assert [b["text"] for b in no_memory] == ["X"]


async def test_prompt_is_byte_stable_and_static_part_is_shared(tmp_path):
    repo = make_repo(tmp_path / "repo")
    kwargs = dict(
        model="m", tool_names=TOOLS, override=None, append=None, home=tmp_path, env={}, today=date(2026, 1, 2)
    )
    first = await build_system_prompt(cwd=repo, **kwargs)
    second = await build_system_prompt(cwd=repo, **kwargs)
    assert first == second
    other = await build_system_prompt(cwd=tmp_path, **kwargs)
    assert other[0] == first[0]  # the static block does not depend on the directory
    assert "2026-01-02" in first[1]["text"]
    assert "2026-01-02" not in first[0]["text"]


async def test_git_status_is_capped(tmp_path):
    repo = make_repo(tmp_path / "repo")
    for i in range(400):
        (repo / f"untracked_file_with_a_long_name_{i:04d}.txt").write_text("x")
    ctx = await git_context(repo)
    assert ctx is not None
    assert len(ctx.status) < MAX_STATUS_CHARS + 200 and "truncated" in ctx.status


async def test_shared_memory_index_is_used(tmp_path):
    (tmp_path / "CLAUDE.md").write_text("FROM-INDEX")
    index = MemoryIndex(tmp_path, home=tmp_path / "h", env={})
    (tmp_path / "CLAUDE.md").write_text("CHANGED-LATER")
    blocks = await build_system_prompt(
        cwd=tmp_path, model="m", tool_names=[], override=None, append=None, env={}, memory_index=index
    )
    assert "FROM-INDEX" in system_prompt_text(blocks)


def test_cache_breakpoints_on_tools_system_and_last_two_user_turns():
    system = mark_system([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
    tools = mark_tools([{"name": "A"}, {"name": "B"}])
    assert "cache_control" not in system[0] and system[1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in tools[0] and "cache_control" in tools[1]
    history = [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        {"role": "user", "content": "two"},
    ]
    marked = mark_messages(history)
    assert breakpoint_positions(marked) == [2, 4]
    assert marked[4]["content"] == [{"type": "text", "text": "two", "cache_control": {"type": "ephemeral"}}]
    assert history[4]["content"] == "two" and "cache_control" not in history[2]["content"][0]
    assert strip_cache_control(marked) == [
        {**m, "content": [{"type": "text", "text": "two"}]} if i == 4 else m for i, m in enumerate(history)
    ]
