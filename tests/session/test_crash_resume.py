"""End to end through the real `yoke -p`: kill -9 at random moments then --resume; a long session that
compacts against the scripted server."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.conftest import anthropic_env

from yoke.context.history import history_problems
from yoke.session.store import load_conversation
from yoke.testing import ScriptedServer

KILL_ROUNDS = int(os.environ.get("YOKE_KILL_ROUNDS", "20"))


def tool_turns(n: int, project: Path, tag: int = 0) -> list[dict]:
    turns = []
    for i in range(n):
        call = (
            {"name": "Bash", "input": {"command": f"echo step {i}", "description": "step"}}
            if i % 2
            else {"name": "Read", "input": {"file_path": str(project / "notes.txt")}}
        )
        turns.append(
            {
                "content": [
                    {"type": "text", "text": f"Working on step {i}."},
                    {"type": "tool_use", "id": f"toolu_{tag}_{i:03d}", **call},
                ],
                "delay": 0.002,
            }
        )
    turns.append({"content": [{"type": "text", "text": "Finished."}]})
    return turns


def transcripts(home: Path) -> list[Path]:
    return sorted((home / ".yoke" / "projects").glob("*/*.jsonl"))


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_kill_9_at_random_moments_then_resume(base_env, project, home):
    (project / "notes.txt").write_text("the notes\n")
    rng = random.Random(5)
    session_id: str | None = None
    shown: list[str] = []  # assistant message ids the user saw, across all runs
    for round_no in range(KILL_ROUNDS):
        with ScriptedServer(tool_turns(30, project, round_no)) as srv:
            env = {**base_env, **anthropic_env(srv)}
            args = [
                "-p",
                f"round {round_no}: keep going",
                "--output-format",
                "stream-json",
                "--verbose",
                "--permission-mode",
                "bypassPermissions",
                "--max-turns",
                "100",
            ]
            if session_id:
                args += ["--resume", session_id]
            proc = subprocess.Popen(
                [sys.executable, "-m", "yoke", *args],
                cwd=project,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            time.sleep(rng.uniform(0.15, 1.6))  # from startup to near the end of a run
            proc.send_signal(signal.SIGKILL)
            out, err = proc.communicate(timeout=30)
            for line in out.splitlines():
                try:
                    event = json.loads(line)
                except ValueError:
                    continue  # the kill can tear the last line of output too
                if event.get("type") == "system" and event.get("subtype") == "init":
                    session_id = session_id or event["session_id"]
                if event.get("type") == "assistant":
                    shown.append(event["message"]["id"])
        if session_id is None:
            continue  # killed before the session started: nothing to lose yet
        path = next(p for p in transcripts(home) if p.stem == session_id)
        loaded = load_conversation(path)  # must never fail
        problems = history_problems(loaded.messages, for_request=False)
        assert problems == [], (round_no, problems)
        recorded = {
            json.loads(line)["message"]["id"]
            for line in path.read_text().splitlines()
            if line.startswith('{"type":"assistant"') and line.endswith("}")
        }
        missing = [m for m in shown if m not in recorded]
        assert not missing, f"round {round_no}: shown but not in the transcript: {missing[:3]}"
    assert session_id is not None and shown
    # a final resume runs to completion on the rebuilt history
    with ScriptedServer([{"content": "All good."}]) as srv:
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "yoke",
                "-p",
                "status?",
                "--resume",
                session_id,
                "--output-format",
                "json",
            ],
            cwd=project,
            env={**base_env, **anthropic_env(srv)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        sent = srv.requests[-1].body["messages"]
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["result"] == "All good."
    assert len(sent) >= len(loaded.messages)


GOAL = "GOAL: audit every module for unsafe eval calls and list them"


def long_session_model(project: Path, tool_turns_total: int):
    """A callable turn: answers summary requests with a summary (that forgets the goal), and otherwise
    reads a large file, `tool_turns_total` times, then finishes."""
    state = {"tools": 0, "summaries": []}

    def turn(body: dict) -> dict:
        last = body["messages"][-1]
        text = json.dumps(last["content"]) if not isinstance(last["content"], str) else last["content"]
        if "Your task now is to" in text:
            state["summaries"].append(body)
            return {"content": "<summary>Looked at many files so far.</summary>"}
        if state["tools"] >= tool_turns_total:
            return {"content": "Finished the audit."}
        state["tools"] += 1
        n = state["tools"]
        return {
            "content": [
                {
                    "type": "tool_use",
                    "id": f"toolu_{n:04d}",
                    "name": "Read",
                    "input": {"file_path": str(project / f"mod{n % 9}.py")},
                }
            ]
        }

    return turn, state


def test_300_turn_session_compacts_and_keeps_the_goal(base_env, project, home):
    from yoke.providers.tokens import estimate_json, estimate_messages

    for i in range(9):
        (project / f"mod{i}.py").write_text(
            "".join(f"def handler_{i}_{k}(x):\n    return x + {k}\n" for k in range(300))
        )
    window = 60_000
    turn, state = long_session_model(project, 300)
    with ScriptedServer(default_turn=turn) as srv:
        env = {**base_env, **anthropic_env(srv), "YOKE_MAX_CONTEXT_TOKENS": str(window)}
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "yoke",
                "-p",
                GOAL,
                "--output-format",
                "json",
                "--permission-mode",
                "bypassPermissions",
                "--max-turns",
                "400",
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
        bodies = [r.body for r in srv.requests if r.body and "messages" in r.body]
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout)["result"] == "Finished the audit."
    assert state["tools"] == 300 and state["summaries"], "the session never compacted"
    for body in bodies:
        size = (
            estimate_messages(body["messages"])
            + estimate_json(body.get("system", []))
            + estimate_json(body.get("tools", []))
        )
        assert size < window
    for body in state["summaries"]:
        assert GOAL in json.dumps(body["messages"])
    assert GOAL in json.dumps(bodies[-1]["messages"])
    path = transcripts(home)[0]
    boundaries = [json.loads(line) for line in path.read_text().splitlines() if '"compact_boundary"' in line]
    assert boundaries
    levels = {b["compactMetadata"]["level"] for b in boundaries}
    assert levels & {3, 4}, levels
    assert history_problems(load_conversation(path).messages, for_request=False) == []
