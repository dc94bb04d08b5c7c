"""docs/examples/session.py runs as written: the same core function the CLI uses, driven from Python."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO, anthropic_env

from yoke.testing import ScriptedServer


def test_session_example_runs(project, base_env):
    haiku = project / "haiku.txt"
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "w1",
                    "name": "Write",
                    "input": {"file_path": str(haiku), "content": "a\nb\nc\n"},
                },
                {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "touch forbidden"}},
            ]
        },
        {"content": [{"type": "text", "text": "Written."}]},
        {"content": [{"type": "text", "text": "Three lines."}]},
    ]
    with ScriptedServer(turns) as srv:
        proc = subprocess.run(
            [sys.executable, str(REPO / "docs" / "examples" / "session.py")],
            cwd=project,
            env=dict(base_env, **anthropic_env(srv)),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "? Write" in proc.stdout and "? Bash" in proc.stdout
    assert lines[-2:] == ["= completed: Written.", "= completed: Three lines."]
    assert haiku.read_text() == "a\nb\nc\n" and not (project / "forbidden").exists()
    second = srv.requests[2].body["messages"]
    assert "not this time" in str(second)  # the model was told why the Bash call was refused
