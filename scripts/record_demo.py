"""Re-record the demo cassette: the scripted server plays the model's words from src/yoke/demo/turns.json,
`yoke -p --record` runs the real tools on a fresh copy of the example project.

    .venv/bin/python scripts/record_demo.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from yoke.cli.subcommands import DEMO_DIR, DEMO_FLAGS, DEMO_PROMPT
from yoke.testing import ScriptedServer


def main() -> int:
    turns = json.loads((DEMO_DIR / "turns.json").read_text())
    cassette = DEMO_DIR / "demo.cassette.jsonl"
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer(turns) as srv:
        project = Path(tmp) / "textstats"
        shutil.copytree(DEMO_DIR / "project", project)
        env = dict(
            os.environ,
            ANTHROPIC_BASE_URL=srv.url,
            ANTHROPIC_API_KEY="recording",
            YOKE_HOME=str(Path(tmp) / "home"),
            ANTHROPIC_MODEL="claude-sonnet-4-5",
        )
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "yoke",
                "-p",
                DEMO_PROMPT,
                "--record",
                str(cassette),
                "--verbose",
                *DEMO_FLAGS,
            ],
            cwd=project,
            env=env,
            text=True,
        )
        if proc.returncode != 0 or srv.remaining:
            print(f"recording failed (exit {proc.returncode}, {srv.remaining} turns unused)", file=sys.stderr)
            return 1
    print(f"wrote {cassette}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
