"""Grep with real ripgrep (and the Python fallback) on a real tree: modes, options, paging, cancel."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from yoke.tools import ripgrep
from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin.grep import GrepInput, GrepTool


@pytest.fixture(params=["rg", "python"])
def engine(request, monkeypatch):
    if request.param == "rg":
        assert ripgrep.rg_binary() is not None, "ripgrep must be installed for these tests"
    else:
        monkeypatch.setattr("yoke.tools.builtin.grep.rg_binary", lambda: None)
    return request.param


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "repo"
    files = {
        "src/app.py": "import os\n\ndef main():\n    print('Hello')\n    return 0\n",
        "src/util.py": "def helper():\n    return 'hello world'\n\n\ndef other():\n    pass\n",
        "web/index.js": "function hello() {\n  return 'HELLO';\n}\n",
        "docs/notes.md": "nothing to see\n",
        ".config/settings.py": "HELLO = 1\n",
        "build/out.py": "hello = 'generated'\n",
        ".git/HEAD.py": "hello\n",
    }
    for name, body in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body)
    (root / ".gitignore").write_text("build/\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return ToolContext(cwd=root, session=SessionState("s", tmp_path / "session"))


async def grep(ctx: ToolContext, **kw):
    return await GrepTool().run(GrepInput.model_validate(kw), ctx)


def test_schema_uses_claude_code_names():
    schema = GrepTool().input_schema()
    expected = {
        "pattern",
        "path",
        "glob",
        "output_mode",
        "-B",
        "-A",
        "-C",
        "context",
        "-n",
        "-i",
        "-o",
        "type",
        "head_limit",
        "offset",
        "multiline",
    }
    assert set(schema["properties"]) == expected
    assert schema["required"] == ["pattern"] and schema["additionalProperties"] is False
    assert schema["properties"]["output_mode"]["enum"] == ["content", "files_with_matches", "count"]
    # Dashed names are accepted as the model sends them; unknown keys are refused.
    assert GrepInput.model_validate({"pattern": "x", "-i": True, "-C": 2}).ignore_case is True
    with pytest.raises(ValueError):
        GrepInput.model_validate({"pattern": "x", "--ignore-case": True})


async def test_files_with_matches_default_newest_first(ctx, engine):
    for age, name in enumerate(["web/index.js", "src/app.py", ".config/settings.py", "src/util.py"]):
        stamp = 1_700_000_000 - age * 100
        os.utime(ctx.cwd / name, (stamp, stamp))
    result = await grep(ctx, pattern="hello", **{"-i": True})
    assert result.data["filenames"] == ["web/index.js", "src/app.py", ".config/settings.py", "src/util.py"]
    assert result.content.startswith("Found 4 files\n")
    assert "build/out.py" not in result.content and ".git" not in result.content


async def test_case_sensitive_by_default(ctx, engine):
    result = await grep(ctx, pattern="hello")
    assert set(result.data["filenames"]) == {"src/util.py", "web/index.js"}


async def test_content_mode_with_line_numbers_and_context(ctx, engine):
    result = await grep(ctx, pattern="return", output_mode="content", path="src", **{"-B": 1})
    lines = result.content.split("\n")
    assert "src/app.py-4-    print('Hello')" in lines and "src/app.py:5:    return 0" in lines
    assert "src/util.py:2:    return 'hello world'" in lines
    assert lines.index("src/util.py-1-def helper():") > lines.index("src/app.py:5:    return 0")


async def test_content_without_numbers_and_single_file(ctx, engine):
    result = await grep(ctx, pattern="def", output_mode="content", path="src/util.py", **{"-n": False})
    assert result.content == "def helper():\ndef other():"


async def test_glob_type_and_count(ctx, engine):
    py = await grep(ctx, pattern="(?i)hello", glob="*.py")
    assert set(py.data["filenames"]) == {"src/app.py", "src/util.py", ".config/settings.py"}
    if engine == "rg":
        js = await grep(ctx, pattern="(?i)hello", type="js")
        assert js.data["filenames"] == ["web/index.js"]
    counted = await grep(ctx, pattern="def", output_mode="count")
    assert counted.content.split("\n")[:2] == ["src/app.py:1", "src/util.py:2"]
    assert "Found 3 total occurrences across 2 files." in counted.content
    assert counted.data["numMatches"] == 3


async def test_multiline(ctx, engine):
    flat = await grep(ctx, pattern=r"helper\(\):.*return", output_mode="files_with_matches")
    assert flat.content == "No files found"
    spanning = await grep(ctx, pattern=r"helper\(\):.*return", multiline=True)
    assert spanning.data["filenames"] == ["src/util.py"]


async def test_head_limit_and_offset_page_through(ctx, engine):
    big = ctx.cwd / "big.txt"
    big.write_text("".join(f"match {n}\n" for n in range(1, 601)))
    first = await grep(ctx, pattern="match", output_mode="content", path="big.txt")
    assert len(first.content.split("\n\n")[0].split("\n")) == 250  # default head_limit
    assert "offset=250" in first.content and first.data["appliedLimit"] == 250
    second = await grep(ctx, pattern="match", output_mode="content", path="big.txt", head_limit=2, offset=250)
    assert second.content.split("\n\n")[0] == "251:match 251\n252:match 252"
    everything = await grep(ctx, pattern="match", output_mode="content", path="big.txt", head_limit=0)
    assert len(everything.content.split("\n")) == 600


async def test_long_lines_are_clipped(ctx, engine):
    if engine == "python":
        pytest.skip("column clipping is ripgrep's")
    (ctx.cwd / "wide.txt").write_text("needle " + "x" * 5000 + "\n")
    result = await grep(ctx, pattern="needle", output_mode="content", path="wide.txt")
    assert len(result.content) < 1000 and "omitted" in result.content


async def test_bad_regex_and_missing_path(ctx, engine):
    with pytest.raises(ToolError):
        await grep(ctx, pattern="(unclosed")
    with pytest.raises(ToolError, match="does not exist"):
        await grep(ctx, pattern="x", path="nowhere")


async def test_pattern_starting_with_dash(ctx, engine):
    (ctx.cwd / "flags.txt").write_text("use --verbose here\n")
    result = await grep(ctx, pattern="--verbose", output_mode="content", path="flags.txt")
    assert result.content == "1:use --verbose here"


async def test_cancel_kills_ripgrep(tmp_path):
    """An interrupt stops a running search at once (a FIFO makes rg block until killed)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    cancel = asyncio.Event()
    task = asyncio.ensure_future(ripgrep.run_rg(["x", str(fifo)], tmp_path, cancel))
    await asyncio.sleep(0.3)
    assert not task.done()
    cancel.set()
    with pytest.raises(ToolError, match="interrupted"):
        await asyncio.wait_for(task, 5)
