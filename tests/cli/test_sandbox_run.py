"""`sandbox.enabled` in settings: Bash commands run inside bubblewrap through the real `yoke -p`."""

from __future__ import annotations

import json
import shutil

import pytest
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def bash_turns(command: str) -> list[dict]:
    return [
        {"content": [{"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": command}}]},
        {"content": [{"type": "text", "text": "done"}]},
    ]


def run_sandboxed(yoke, home, command: str, env_extra: dict | None = None):
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"sandbox": {"enabled": True}}))
    with ScriptedServer(bash_turns(command)) as srv:
        run = yoke(
            "-p",
            "go",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "bypassPermissions",
            env=dict(anthropic_env(srv), **(env_extra or {})),
        )
    results = [o for o in run.lines() if o["type"] == "user"]
    return run, results[0]["message"]["content"][0]


def test_sandbox_allows_project_writes_and_blocks_outside(yoke, home, project):
    import uuid
    from pathlib import Path

    outside = Path("/var/tmp") / f"yoke-sandbox-{uuid.uuid4().hex}.txt"  # the sandbox's / is read-only
    run, result = run_sandboxed(yoke, home, f"echo in > inside.txt; echo out > {outside}; echo rc=$?")
    assert run.code == 0, run.stderr
    assert (project / "inside.txt").read_text() == "in\n"
    assert not outside.exists()
    assert "rc=0" not in json.dumps(result["content"])


def test_sandbox_fails_closed_without_bwrap(yoke, home, project, tmp_path):
    marker = project / "ran.txt"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "python3", "env", "git"):  # a PATH with the basics but no bwrap
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    run, result = run_sandboxed(yoke, home, f"touch {marker}", {"PATH": str(bin_dir)})
    assert result["is_error"] is True
    assert not marker.exists()
