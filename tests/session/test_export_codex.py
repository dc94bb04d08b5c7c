"""`yoke export --to codex <id>`: a Yoke session written as a Codex rollout. Its shape is read back by
Yoke's own Codex importer; and where the Codex CLI is installed (`codex` on PATH, or YOKE_TEST_CODEX naming
it), Codex itself resumes it against the scripted server and sends the history in order."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

TURNS = [
    {
        "content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "echo kumquat"}},
        ]
    },
    {"content": [{"type": "tool_use", "id": "toolu_2", "name": "Glob", "input": {"pattern": "*.txt"}}]},
    {"content": "The word is kumquat."},
]


def _exported(yoke, home: Path) -> tuple[str, Path, str]:
    env = {"CODEX_HOME": str(home / ".codex")}
    with ScriptedServer(TURNS) as srv:
        run = yoke(
            "-p", "say the word", "--output-format", "json", "--permission-mode", "bypassPermissions",
            env=anthropic_env(srv),
        )  # fmt: skip
        assert run.code == 0, run.stderr
    session = json.loads(run.stdout)["session_id"]
    exported = yoke("export", "--to", "codex", session, env=env)
    assert exported.code == 0, exported.stderr
    codex_id = exported.stdout.split("codex resume ")[1].strip()
    files = list((home / ".codex" / "sessions").glob(f"*/*/*/rollout-*-{codex_id}.jsonl"))
    assert len(files) == 1
    return codex_id, files[0], session


def test_export_writes_a_rollout_codex_reads(yoke, home):
    codex_id, path, _ = _exported(yoke, home)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["type"] == "session_meta" and lines[0]["payload"]["id"] == codex_id
    items = [line["payload"] for line in lines[1:]]
    assert [i["type"] for i in items] == [
        "message", "message", "function_call", "function_call_output", "message", "message", "message",
    ]  # fmt: skip
    assert items[2]["name"] == "exec_command" and json.loads(items[2]["arguments"]) == {"cmd": "echo kumquat"}
    assert "kumquat" in items[3]["output"]
    assert "`Glob`, which Codex does not have" in items[4]["content"][0]["text"]  # no fake call
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    # Yoke's own importer reads it back: the same conversation
    listed = yoke("sessions", "list", "--from", "codex", env={"CODEX_HOME": str(home / ".codex")})
    assert f"codex:{codex_id}" in listed.stdout and "say the word" in listed.stdout


def _codex_binary() -> str | None:
    return os.environ.get("YOKE_TEST_CODEX") or shutil.which("codex")


@pytest.mark.skipif(_codex_binary() is None, reason="the Codex CLI is not installed (npm i -g @openai/codex)")
def test_codex_itself_resumes_the_exported_session(yoke, home, project):
    codex_id, _, _ = _exported(yoke, home)
    with ScriptedServer(default_turn={"content": "from codex"}, validate_requests=False) as srv:
        (home / ".codex" / "config.toml").write_text(
            'model = "gpt-5"\nmodel_provider = "scripted"\n[model_providers.scripted]\nname = "scripted"\n'
            f'base_url = "{srv.openai_url}"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n'
        )
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODEX_"))},
            "HOME": str(home),
            "CODEX_HOME": str(home / ".codex"),
            "OPENAI_API_KEY": "sk-test",
        }
        args = ["exec", "--skip-git-repo-check", "resume", codex_id, "which word?"]
        proc = subprocess.run(
            [str(_codex_binary()), *args], cwd=project, env=env, capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        body = srv.requests[-1].body
    texts = [json.dumps(item) for item in body["input"]]
    order = ["say the word", "exec_command", "kumquat", "The word is kumquat.", "which word?"]
    positions = [next(i for i, t in enumerate(texts) if word in t) for word in order]
    assert positions == sorted(positions), texts
