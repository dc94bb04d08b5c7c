"""The lazy tool manifest is current, and lazy tools behave exactly like the real ones."""

from __future__ import annotations

import subprocess
import sys

from yoke.tools.builtin import BUILTIN_TOOLS, builtin_tools, eager_tools
from yoke.tools.lazy import LazyTool


def test_manifest_is_current():
    proc = subprocess.run(
        [sys.executable, "-m", "yoke.tools.builtin.manifest", "--check"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr


def test_lazy_tools_match_real_tools():
    lazy = builtin_tools()
    real = eager_tools()
    assert all(isinstance(t, LazyTool) for t in lazy)
    assert len(lazy) == len(real) == len(BUILTIN_TOOLS)
    for stand_in, tool in zip(lazy, real, strict=True):
        assert stand_in.name == tool.name and stand_in.aliases == tool.aliases
        assert stand_in.description == tool.description
        assert stand_in.input_schema() == tool.input_schema()
        assert stand_in.input_model is tool.input_model
        assert stand_in.read_only == tool.read_only and stand_in.concurrency_safe == tool.concurrency_safe


def test_listing_tools_does_not_import_pydantic():
    code = "import sys; from yoke.tools.builtin import builtin_tools; builtin_tools(); print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_tool_the_model_begins_to_call_loads_in_the_background():
    # A fresh interpreter, so the tool's module (and pydantic) are not loaded yet.
    code = (
        "import sys, threading, time\n"
        "from yoke.tools.builtin import builtin_tools\n"
        "read = next(t for t in builtin_tools() if t.name == 'Read')\n"
        "read.prepare()\n"
        "for loader in [t for t in threading.enumerate() if t.name == 'load Read']:\n"
        "    loader.join(30)\n"
        "print(read._real is not None and 'yoke.tools.builtin.read' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"
