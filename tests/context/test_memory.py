"""Memory-file discovery against real directory trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from yoke.memory import MemoryIndex, format_memory, memory_reminder
from yoke.memory.globs import glob_matches
from yoke.memory.markdown import find_imports, parse_frontmatter, strip_html_comments


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """home/.claude/CLAUDE.md, repo/{.git, CLAUDE.md, AGENTS.md, docs/*}, repo/pkg/sub (the cwd)."""
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    cwd = repo / "pkg" / "sub"
    cwd.mkdir(parents=True)
    (repo / ".git").mkdir()
    write(home / ".claude" / "CLAUDE.md", "USER-GLOBAL prefers tabs")
    write(repo / "CLAUDE.md", "ROOT-CLAUDE\nSee @docs/style.md and @docs/missing.md\n")
    write(repo / "AGENTS.md", "ROOT-AGENTS run `make test`")
    write(repo / "docs" / "style.md", "STYLE-GUIDE imports @extra.md")
    write(repo / "docs" / "extra.md", "EXTRA-NOTES back to @style.md (a cycle)")
    write(repo / "pkg" / "CLAUDE.md", "PKG-CLAUDE")
    write(repo / "pkg" / "sub" / "CLAUDE.local.md", "SUB-LOCAL private")
    write(repo / "pkg" / "sub" / "AGENTS.md", "SUB-AGENTS")
    write(repo / "above.md", "NOT-LOADED")
    write(tmp_path / "CLAUDE.md", "OUTSIDE-REPO must not load")
    return {"home": home, "repo": repo, "cwd": cwd, "tmp": tmp_path}


def names(files) -> list[str]:
    return [f.content.split()[0] for f in files]


def test_launch_files_load_broad_to_specific_with_imports_and_cycle(tree):
    index = MemoryIndex(tree["cwd"], home=tree["home"], env={}, managed_dir=tree["tmp"] / "none")
    assert names(index.files) == [
        "USER-GLOBAL",
        "ROOT-CLAUDE",
        "STYLE-GUIDE",  # imported by ROOT-CLAUDE, placed right after it
        "EXTRA-NOTES",  # imported by style.md; its import back to style.md is the cycle, loaded once
        "ROOT-AGENTS",
        "PKG-CLAUDE",
        "SUB-AGENTS",
        "SUB-LOCAL",
    ]
    style = index.files[2]
    assert style.imported_from == tree["repo"] / "CLAUDE.md"
    assert style.kind == "project"
    assert index.files[0].kind == "user" and index.files[-1].kind == "local"
    assert all(f.tokens == (len(f.content.encode()) + 3) // 4 or f.tokens > 0 for f in index.files)


def test_claude_config_dir_replaces_home_dot_claude(tree, tmp_path):
    custom = write(tmp_path / "cfg" / "CLAUDE.md", "CUSTOM-CONFIG")
    index = MemoryIndex(
        tree["cwd"],
        home=tree["home"],
        env={"CLAUDE_CONFIG_DIR": str(custom.parent)},
        managed_dir=tmp_path / "x",
    )
    assert names(index.files)[0] == "CUSTOM-CONFIG"
    assert "USER-GLOBAL" not in names(index.files)


def test_disabled_by_env(tree):
    index = MemoryIndex(tree["cwd"], home=tree["home"], env={"CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1"})
    assert index.files == [] and index.memory_for_path(tree["repo"] / "pkg" / "x.py") == []


def test_import_depth_is_limited_to_four_hops(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path / "CLAUDE.md", "D0 @d1.md")
    for depth in range(1, 7):
        write(tmp_path / f"d{depth}.md", f"D{depth} @d{depth + 1}.md")
    index = MemoryIndex(tmp_path, home=tmp_path / "h", env={}, managed_dir=tmp_path / "m")
    assert names(index.files) == ["D0", "D1", "D2", "D3", "D4"]


def test_imports_in_code_are_ignored_and_home_and_absolute_paths_work(tmp_path):
    home = tmp_path / "home"
    write(home / "notes.md", "HOME-NOTES")
    absolute = write(tmp_path / "abs.md", "ABS-NOTES")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo / "fenced.md", "FENCED")
    write(repo / "span.md", "SPAN")
    write(
        repo / "CLAUDE.md",
        f"MAIN @~/notes.md and @{absolute}\nmail me at someone@span.md\n"
        "```\n@fenced.md\n```\nInline `@span.md` is code.\n<!-- @fenced.md hidden -->\n",
    )
    index = MemoryIndex(repo, home=home, env={}, managed_dir=tmp_path / "m", trusted=True)
    assert names(index.files) == ["MAIN", "HOME-NOTES", "ABS-NOTES"]
    assert "hidden" not in index.files[0].content  # HTML comments are stripped


def test_outside_git_only_the_working_directory_is_read(tmp_path):
    write(tmp_path / "CLAUDE.md", "PARENT")
    cwd = tmp_path / "work"
    write(cwd / "CLAUDE.md", "HERE")
    index = MemoryIndex(cwd, home=tmp_path / "h", env={}, managed_dir=tmp_path / "m")
    assert names(index.files) == ["HERE"]


def test_nested_files_load_when_a_file_there_is_read_once(tree):
    repo = tree["repo"]
    write(repo / "pkg" / "sub" / "deep" / "CLAUDE.md", "DEEP-CLAUDE @../../../docs/style.md")
    write(repo / "pkg" / "sub" / "deep" / "more" / "AGENTS.md", "MORE-AGENTS")
    write(repo / "other" / "CLAUDE.md", "OTHER-CLAUDE")
    index = MemoryIndex(tree["cwd"], home=tree["home"], env={}, managed_dir=tree["tmp"] / "m")
    target = write(repo / "pkg" / "sub" / "deep" / "more" / "code.py", "x = 1")
    new = index.memory_for_path(target)
    assert names(new) == ["DEEP-CLAUDE", "MORE-AGENTS"]  # style.md was loaded at launch already
    assert index.memory_for_path(target) == []
    assert index.memory_for_path(repo / "pkg" / "sub" / "deep" / "x.py") == []
    assert names(index.memory_for_path(repo / "other" / "y.py")) == ["OTHER-CLAUDE"]
    assert index.memory_for_path(tree["tmp"] / "elsewhere.py") == []
    reminder = memory_reminder(new)
    assert reminder.startswith("<system-reminder>") and "DEEP-CLAUDE" in reminder
    assert [f.content for f in index.all_files()][-3:] == [f.content for f in [*new, index.later[-1]]]


def test_rules_load_at_launch_or_when_a_matching_file_is_read(tree):
    repo = tree["repo"]
    write(repo / ".claude" / "rules" / "always.md", "ALWAYS-RULE")
    write(
        repo / ".claude" / "rules" / "api" / "ts.md",
        '---\npaths: ["src/api/**/*.ts", "lib/*.{ts,tsx}"]\n---\nTS-RULE',
    )
    write(tree["home"] / ".claude" / "rules" / "mine.md", "USER-RULE")
    index = MemoryIndex(tree["cwd"], home=tree["home"], env={}, managed_dir=tree["tmp"] / "m")
    loaded = names(index.files)
    assert "ALWAYS-RULE" in loaded and "USER-RULE" in loaded and "TS-RULE" not in loaded
    assert loaded.index("USER-RULE") < loaded.index("ROOT-CLAUDE")
    assert index.memory_for_path(repo / "src" / "web" / "a.ts") == []
    matched = index.memory_for_path(repo / "src" / "api" / "v1" / "a.ts")
    assert names(matched) == ["TS-RULE"] and matched[0].content == "TS-RULE"
    assert index.memory_for_path(repo / "lib" / "b.tsx") == []  # already loaded


def test_format_memory_lists_every_file_with_its_source(tree):
    index = MemoryIndex(tree["cwd"], home=tree["home"], env={}, managed_dir=tree["tmp"] / "m")
    text = format_memory(index.files)
    assert text.startswith("# Instructions from memory files")
    assert f'path="{tree["repo"] / "CLAUDE.md"}"' in text
    assert "imported by" in text
    assert format_memory([]) == ""


def test_markdown_helpers():
    assert find_imports("a @x.md b\n```\n@y.md\n```\n`@z.md` @x.md") == ["x.md"]
    assert parse_frontmatter("---\npaths:\n  - a/**\n  - 'b'\nname: r\n---\nbody") == (
        {"paths": ["a/**", "b"], "name": "r"},
        "body",
    )
    assert strip_html_comments("a<!-- x -->b\n```\n<!-- kept -->\n```\n") == "ab\n```\n<!-- kept -->\n```\n"
    assert glob_matches(["src/**/*.py"], "src/a/b/c.py") and glob_matches(["src/**/*.py"], "src/c.py")
    assert not glob_matches(["src/*.py"], "src/a/c.py")
    assert glob_matches(["*.md"], "docs/deep/x.md")


def test_an_untrusted_repository_imports_nothing_from_outside_and_never_a_secret(tmp_path):
    home = tmp_path / "home"
    write(home / ".aws" / "credentials", "AWS-SECRET")
    write(home / "notes.md", "HOME-NOTES")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo / ".env", "ENV-SECRET")
    write(repo / "docs.md", "IN-REPO")
    write(repo / "CLAUDE.md", "MAIN @~/.aws/credentials @~/notes.md @.env @docs.md\n")
    untrusted = MemoryIndex(repo, home=home, env={}, managed_dir=tmp_path / "m")
    assert names(untrusted.files) == ["MAIN", "IN-REPO"]
    trusted = MemoryIndex(repo, home=home, env={}, managed_dir=tmp_path / "m", trusted=True)
    assert names(trusted.files) == ["MAIN", "HOME-NOTES", "IN-REPO"]  # secrets never, even when trusted
