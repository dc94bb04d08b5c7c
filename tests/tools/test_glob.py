"""Glob against a real tree with real ripgrep, and the pure-Python fallback against the same tree."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from yoke.tools import ripgrep
from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin.glob import GlobInput, GlobTool
from yoke.tools.walk import compile_glob


@pytest.fixture(params=["rg", "python"])
def engine(request, monkeypatch):
    if request.param == "rg":
        assert ripgrep.rg_binary() is not None, "ripgrep must be installed for these tests"
    else:
        monkeypatch.setattr("yoke.tools.builtin.glob.rg_binary", lambda: None)
    return request.param


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch) -> ToolContext:
    monkeypatch.delenv("CLAUDE_CODE_GLOB_NO_IGNORE", raising=False)
    root = tmp_path / "repo"
    files = {
        "README.md": "",
        "src/app.py": "",
        "src/util/helpers.py": "",
        "src/util/data.json": "",
        "tests/test_app.py": "",
        ".hidden/secret.py": "",
        ".git/config.py": "",
        "build/generated.py": "",
        "notes.log": "",
    }
    for name, body in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body)
    (root / ".gitignore").write_text("build/\n*.log\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)  # .gitignore applies inside a git repo
    return ToolContext(cwd=root, session=SessionState("s", tmp_path / "session"))


async def glob(ctx: ToolContext, pattern: str, path: str | None = None):
    return await GlobTool().run(GlobInput(pattern=pattern, path=path), ctx)


def test_schema_names():
    schema = GlobTool().input_schema()
    assert list(schema["properties"]) == ["pattern", "path"] and schema["required"] == ["pattern"]


async def test_recursive_pattern_skips_git_and_ignored(ctx, engine):
    result = await glob(ctx, "**/*.py")
    assert sorted(result.data["filenames"]) == [
        ".hidden/secret.py",
        "src/app.py",
        "src/util/helpers.py",
        "tests/test_app.py",
    ]
    assert result.data["numFiles"] == 4 and result.data["truncated"] is False


async def test_pattern_without_slash_matches_names_at_any_depth(ctx, engine):
    # ripgrep's --glob meaning, which Claude Code's Glob inherits.
    result = await glob(ctx, "helpers.py")
    assert result.data["filenames"] == ["src/util/helpers.py"]


async def test_anchored_patterns_and_path(ctx, engine):
    assert (await glob(ctx, "src/*.py")).data["filenames"] == ["src/app.py"]
    assert sorted((await glob(ctx, "*.{py,json}", path="src/util")).data["filenames"]) == [
        "src/util/data.json",
        "src/util/helpers.py",
    ]
    absolute = await glob(ctx, str(ctx.cwd / "tests" / "*.py"))
    assert absolute.data["filenames"] == ["tests/test_app.py"]


async def test_newest_first(ctx, engine):
    for age, name in enumerate(["src/app.py", "tests/test_app.py", "src/util/helpers.py"]):
        stamp = 1_700_000_000 - age * 100
        os.utime(ctx.cwd / name, (stamp, stamp))
    result = await glob(ctx, "**/*.py")
    names = [n for n in result.data["filenames"] if not n.startswith(".hidden")]
    assert names == ["src/app.py", "tests/test_app.py", "src/util/helpers.py"]


async def test_ignored_files_listed_when_nothing_else_matches(ctx, engine):
    result = await glob(ctx, "**/generated.py")
    assert result.data["filenames"] == ["build/generated.py"]
    assert ".gitignore" in result.content


async def test_no_ignore_setting(ctx, engine, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_GLOB_NO_IGNORE", "true")
    names = (await glob(ctx, "**/*.py")).data["filenames"]
    assert "build/generated.py" in names and ".git/config.py" not in names


async def test_capped_at_100_with_note(ctx, engine):
    many = ctx.cwd / "many"
    many.mkdir()
    for n in range(130):
        (many / f"f{n:03d}.txt").write_text("")
    result = await glob(ctx, "many/*.txt")
    assert result.data["numFiles"] == 100 and result.data["truncated"] is True
    assert "truncated" in result.content and "130" in result.content


async def test_no_match_and_bad_path(ctx, engine):
    assert (await glob(ctx, "**/*.rs")).content == "No files found"
    with pytest.raises(ToolError, match="does not exist"):
        await glob(ctx, "*.py", path="nowhere")


async def test_paths_outside_cwd_are_absolute(ctx, engine, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.py").write_text("")
    result = await glob(ctx, "*.py", path=str(other))
    assert result.data["filenames"] == [str(other / "x.py")]


def test_compile_glob():
    assert compile_glob("*.py").match("a/b/c.py") and compile_glob("*.py").match("c.py")
    assert not compile_glob("src/*.py").match("src/a/b.py") and compile_glob("src/**/*.py").match(
        "src/a/b.py"
    )
    assert compile_glob("src/**/*.py").match("src/b.py")
    assert compile_glob("*.{ts,tsx}").match("x/y.tsx") and not compile_glob("*.{ts,tsx}").match("y.js")
    assert compile_glob("[!a]*.md").match("b.md") and not compile_glob("[!a]*.md").match("a.md")
