"""Capture Claude Code's LSP tool schema and diagnostics reminder for tests/lsp/test_vs_cc.py.

    .venv/bin/python scripts/capture_cc_lsp.py

Runs the bundled CLI (or $CLAUDE) against the scripted server with a plugin declaring basedpyright in its
`lspServers`: one run loads the `LSP` tool through ToolSearch (2.1.332 defers it) and records its input
schema without descriptions; another reads a file, breaks a type with an Edit and makes a few more calls
(2.1.332 delivers diagnostics asynchronously, on a later request) and records the reminder's shape.
Observations only, no prose (yoke.testing.lsp_shapes).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from yoke.testing.lsp_shapes import reminder_shape, schema_shape
from yoke.testing.side_by_side import run_scenario

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capture_cc import bundled_claude  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "lsp" / "cc_2_1_332" / "observed.json"
SOURCE = "def f(x: int) -> int:\n    return x\n\ny: int = f(1)\n"


def plugin_dir() -> Path:
    root = Path(tempfile.mkdtemp(prefix="cc-lsp-plugin-"))
    (root / ".claude-plugin").mkdir()
    server = Path(sys.executable).parent / "basedpyright-langserver"
    manifest = {
        "name": "pyright-probe",
        "lspServers": {
            "pyright": {"command": str(server), "args": ["--stdio"], "extensionToLanguage": {".py": "python"}}
        },
    }
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    return root


def call(tool_id: str, name: str, **input: object) -> dict:
    return {"content": [{"type": "tool_use", "id": tool_id, "name": name, "input": input}]}


def main() -> int:
    claude = bundled_claude()
    if claude is None:
        print("capture_cc_lsp: no bundled Claude Code found", file=sys.stderr)
        return 1
    plugin = plugin_dir()
    argv = ["-p", "go", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits"]
    argv += ["--plugin-dir", str(plugin)]
    env = {**os.environ, "ENABLE_LSP_TOOL": "1"}
    done = {"content": [{"type": "text", "text": "done"}]}
    loaded = run_scenario(
        claude,
        {
            "argv": argv,
            "files": {"app.py": SOURCE},
            "turns": [call("t1", "ToolSearch", query="select:LSP"), done],
        },
        env=env,
        timeout=120,
    )
    schema = next(t["input_schema"] for r in loaded["requests"] for t in r["tools"] if t["name"] == "LSP")
    probes = [
        call(f"l{i}", "LSP", operation="hover", filePath="PROJECT/app.py", line=1, character=5)
        for i in range(4)
    ]
    edited = run_scenario(
        claude,
        {
            "argv": argv,
            "files": {"app.py": SOURCE},
            "turns": [
                call("r1", "Read", file_path="PROJECT/app.py"),
                call("e1", "Edit", file_path="PROJECT/app.py", old_string="y: int", new_string="y: str"),
                *probes,
                done,
            ],
        },
        env=env,
        timeout=180,
    )
    shape = None
    for message in edited["requests"][-1]["messages"]:
        content = message.get("content")
        texts = (
            [content]
            if isinstance(content, str)
            else [b.get("text", "") for b in content or [] if isinstance(b, dict)]
        )
        for text in texts:
            shape = shape or reminder_shape(text)
    observed = {"lsp_tool_schema": schema_shape(schema), "reminder": shape}
    OUT.write_text(json.dumps(observed, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
