"""Side by side with Claude Code 2.1.332 (captured by scripts/capture_cc_lsp.py into cc_2_1_332/): the LSP
tool's input schema as the model is offered it, and the diagnostics reminder's shape for the same edit with
the same server (basedpyright), reduced to tag, files and items by yoke.testing.lsp_shapes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.lsp.conftest import ARGV, DONE, YOKE, call, need, tool_results

from yoke.lsp.tool import LspTool
from yoke.testing.lsp_shapes import reminder_shape, schema_shape
from yoke.testing.side_by_side import run_scenario

OBSERVED = json.loads((Path(__file__).with_name("cc_2_1_332") / "observed.json").read_text())
SOURCE = "def f(x: int) -> int:\n    return x\n\ny: int = f(1)\n"


def test_the_lsp_tools_schema_is_claude_codes():
    assert schema_shape(LspTool().input_schema()) == OBSERVED["lsp_tool_schema"]


def test_the_reminder_has_claude_codes_shape_for_the_same_edit(lsp_env):
    need("basedpyright-langserver")
    scenario = {
        "argv": ARGV,
        "settings": {"lsp": {"waitMs": 30000}},
        "files": {"app.py": SOURCE},
        "turns": [
            call("r1", "Read", file_path="PROJECT/app.py"),
            call("e1", "Edit", file_path="PROJECT/app.py", old_string="y: int", new_string="y: str"),
            DONE,
        ],
    }
    result = run_scenario(YOKE, scenario, env=lsp_env, timeout=120)
    assert result["code"] == 0, result["stderr"][-2000:]
    text = tool_results(result["requests"][-1])["e1"]
    assert reminder_shape(text) == OBSERVED["reminder"], text
