"""Built-in tools parse plainly fitting inputs without pydantic (`yoke.tools.light`): the same attributes
as the pydantic model gives, the same errors (pydantic's own) for everything else, and a Read, Grep, Glob,
Write, Edit or Bash call that fits loads no pydantic at all."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from yoke.tools.base import ToolInputError
from yoke.tools.builtin import builtin_tools
from yoke.tools.light import LightInput

CASES: list[tuple[str, dict[str, Any]]] = [
    ("Read", {"file_path": "/a"}),
    ("Read", {"file_path": "/a", "offset": 3, "limit": 10}),
    ("Read", {"file_path": "/a", "offset": -1}),  # pydantic's bound error
    ("Read", {"file_path": "/a", "limit": 0}),
    ("Read", {"file_path": "/a", "limit": "7"}),  # pydantic coerces
    ("Read", {"file_path": "/a", "limit": True}),
    ("Read", {"offset": 3}),  # required
    ("Read", {"file_path": "/a", "bogus": 1}),  # unknown
    ("Read", {"file_path": None}),
    ("Grep", {"pattern": "x", "-B": 2, "-i": True, "output_mode": "count"}),
    ("Grep", {"pattern": "x", "output_mode": "lines"}),
    ("Grep", {"pattern": "x", "before": 2}),  # by field name: pydantic's populate_by_name
    ("Grep", {"pattern": "x", "head_limit": 0, "multiline": False, "type": "py"}),
    ("Glob", {"pattern": "**/*.py", "path": "src"}),
    ("Glob", {"pattern": 5}),
    ("Write", {"file_path": "/a", "content": "x"}),
    ("Edit", {"file_path": "/a", "old_string": "x", "new_string": "y"}),
    ("Edit", {"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": "true"}),
    ("MultiEdit", {"file_path": "/a", "edits": [{"old_string": "x", "new_string": "y"}]}),
    ("Bash", {"command": "ls", "timeout": 5000, "description": "list"}),
    ("Bash", {"command": "ls", "dangerouslyDisableSandbox": True}),
    ("Bash", {"command": "ls", "run_in_background": "yes"}),
]


def _outcome(tool: Any, raw: dict[str, Any]) -> tuple[str, Any]:
    try:
        parsed = tool.validate(raw)
    except ToolInputError as exc:
        return "error", str(exc)
    fields = type(tool.input_model.model_validate(raw)).model_fields
    return "ok", {name: getattr(parsed, name) for name in fields}


@pytest.mark.parametrize(("name", "raw"), CASES)
def test_light_parse_agrees_with_pydantic(name: str, raw: dict[str, Any]) -> None:
    lazy = next(t for t in builtin_tools() if t.name == name)
    assert type(lazy).__name__ == "LazyTool"
    real = lazy.real
    assert _outcome(lazy, raw) == _outcome(real, raw)
    values = _outcome(lazy, raw)[1]
    if _outcome(lazy, raw)[0] == "ok":
        assert {k: type(v) for k, v in values.items()} == {
            k: type(getattr(real.validate(raw), k)) for k in values
        }  # the same types too (a Bash timeout is a float either way)


def test_plain_calls_take_the_light_path() -> None:
    read = next(t for t in builtin_tools() if t.name == "Read")
    assert isinstance(read.validate({"file_path": "/a", "limit": 5}), LightInput)
    assert not isinstance(read.validate({"file_path": "/a", "limit": "5"}), LightInput)


def test_fitting_calls_load_no_pydantic(tmp_path) -> None:
    (tmp_path / "f.txt").write_text("hello\n")
    script = f"""
import asyncio, sys
from pathlib import Path
from yoke.tools.base import SessionState, ToolContext
from yoke.tools.builtin import builtin_tools

tools = {{t.name: t for t in builtin_tools()}}
ctx = ToolContext(cwd=Path({str(tmp_path)!r}), session=SessionState("s", Path({str(tmp_path / "s")!r})))
calls = [("Read", {{"file_path": "f.txt"}}), ("Grep", {{"pattern": "hel", "output_mode": "count"}}),
         ("Glob", {{"pattern": "*.txt"}}), ("Write", {{"file_path": "g.txt", "content": "x"}}),
         ("Edit", {{"file_path": "f.txt", "old_string": "hello", "new_string": "bye"}})]
async def main():
    for name, raw in calls:
        tool = tools[name]
        result = await tool.run(tool.validate(raw), ctx)
        assert not result.is_error, result.content
asyncio.run(main())
print("pydantic" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
