"""Grep and Glob leave out what Read would not show, judged per file found (by a real gate): a Read deny
rule (by the file's logical or real path) and secrets no allow rule covers. The check is skipped only when
nothing could be withheld; with a deny rule it runs for every file, in each output mode, with either
engine (ripgrep, whose walk follows no link, and the Python stand-in)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yoke.config.settings import load_settings
from yoke.permissions import build_gate
from yoke.tools.base import SessionState, ToolContext
from yoke.tools.builtin.glob import GlobInput, GlobTool, max_depth
from yoke.tools.builtin.grep import GrepInput, GrepTool
from yoke.tools.services import SessionServices


@pytest.fixture(params=["rg", "python"])
def engine(request, monkeypatch):
    if request.param == "python":
        monkeypatch.setattr("yoke.tools.builtin.grep.rg_binary", lambda: None)
        monkeypatch.setattr("yoke.tools.builtin.glob.rg_binary", lambda: None)
    return request.param


def world(tmp_path: Path, deny: list[str]) -> ToolContext:
    home, project, outside = tmp_path / "home", tmp_path / "project", tmp_path / "outside"
    files = {
        project / "src" / "app.py": "MARK app\n",
        project / "private" / "plan.md": "MARK private\n",
        project / "sub" / "server.pem": "MARK pem\n",
        project / ".env.example": "MARK template\n",
        outside / "held.txt": "MARK outside\n",
        outside / "open.txt": "MARK open\n",
    }
    for path, body in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    (home / ".claude").mkdir(parents=True)
    (project / "linked").symlink_to(outside)  # searched directly: its files' real paths are outside
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": deny}}))
    loaded = load_settings(project, home=home, managed_paths=[])
    gate = build_gate(
        loaded, cwd=project, home=home, mode=None, allowed_tools=[], disallowed_tools=[], add_dirs=[],
        interactive=True, trusted=True,
    )  # fmt: skip
    session = SessionState("s", tmp_path / "session", services=SessionServices.for_gate(gate))
    return ToolContext(cwd=project, session=session, working_dirs=[project])


async def grep(ctx: ToolContext, **kw) -> str:
    return (await GrepTool().run(GrepInput.model_validate(kw), ctx)).content  # type: ignore[return-value]


@pytest.mark.parametrize("mode", ["files_with_matches", "count", "content"])
async def test_grep_withholds_deny_rules_and_secrets(tmp_path: Path, engine: str, mode: str) -> None:
    deny = ["Read(./private/**)", f"Read(/{tmp_path}/outside/held.txt)"]
    ctx = world(tmp_path, deny)
    shown = await grep(ctx, pattern="MARK", output_mode=mode)
    assert "app.py" in shown and ".env.example" in shown
    assert "plan.md" not in shown and "server.pem" not in shown
    through_link = await grep(ctx, pattern="MARK", path="linked", output_mode=mode)
    assert "open.txt" in through_link and "held.txt" not in through_link  # denied by its real path


@pytest.mark.parametrize("mode", ["files_with_matches", "count", "content"])
async def test_grep_without_deny_rules_still_withholds_secrets(
    tmp_path: Path, engine: str, mode: str
) -> None:
    ctx = world(tmp_path, [])
    shown = await grep(ctx, pattern="MARK", output_mode=mode)
    assert "plan.md" in shown and "app.py" in shown and ".env.example" in shown
    assert "server.pem" not in shown
    assert "server.pem" not in await grep(ctx, pattern="MARK", path="sub", output_mode=mode)


async def test_glob_hides_what_a_deny_rule_covers(tmp_path: Path, engine: str) -> None:
    ctx = world(tmp_path, ["Read(./private/**)", f"Read(/{tmp_path}/outside/held.txt)"])
    listed = (await GlobTool().run(GlobInput(pattern="**/*"), ctx)).content
    assert "app.py" in listed and "plan.md" not in listed
    linked = (await GlobTool().run(GlobInput(pattern="*.txt", path="linked"), ctx)).content
    assert "open.txt" in linked and "held.txt" not in linked


def test_glob_walk_depth_follows_the_pattern() -> None:
    assert max_depth("/*.py") == 1
    assert max_depth("/a*/*.md") == 2
    assert max_depth("*.py") is None  # a name matches at any depth
    assert max_depth("**/*.py") is None and max_depth("/a/**/b") is None
    assert max_depth("/{a/b,c}/*.py") is None
    assert max_depth("/*.{ts,tsx}") == 1


async def test_glob_top_level_pattern_lists_only_that_level(tmp_path: Path, engine: str) -> None:
    ctx = world(tmp_path, [])
    for deep in ("src/a/b", "src/c"):
        (ctx.cwd / deep).mkdir(parents=True)
        (ctx.cwd / deep / "x.py").write_text("")
    listed = (await GlobTool().run(GlobInput(pattern="src/*.py"), ctx)).content
    assert listed == "src/app.py"
