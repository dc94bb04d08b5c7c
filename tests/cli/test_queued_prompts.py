"""Every accepted prompt is on disk before it is acknowledged (issue 40, item 1): `-p --input-format
stream-json` writes Claude Code's `queue-operation` records (observed in 2.1.332's transcripts: an `enqueue`
with the prompt, a `dequeue` when its turn begins), so prompts queued behind a running turn survive SIGTERM."""

from __future__ import annotations

import glob
import json
import signal
import time
from pathlib import Path

from tests.cli.test_stream_input import launch, read_until, send
from tests.conftest import anthropic_env

from yoke.session.queued import pending_prompts
from yoke.testing import ScriptedServer


def _user(text: str) -> dict:
    return {"type": "user", "message": {"role": "user", "content": text}, "parent_tool_use_id": None}


def test_prompts_queued_behind_a_turn_survive_sigterm(project, base_env):
    turns = [{"content": "first answer", "delay": 4.0}, {"content": "never"}, {"content": "never"}]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv))
        proc = launch(project, env)
        try:
            for text in ("one", "two", "three"):
                send(proc, _user(text))
            read_until(proc, lambda m: m.get("type") == "system" and m.get("subtype") == "init")
            time.sleep(0.5)  # the three are read; the first one's turn runs
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert len(srv.requests) == 1  # the queued prompts did not run
    (path,) = glob.glob(str(base_env["YOKE_HOME"]) + "/projects/*/*.jsonl")
    records = [json.loads(line) for line in Path(path).read_text().splitlines()]
    ops = [(r["operation"], r.get("content")) for r in records if r.get("type") == "queue-operation"]
    assert [c for op, c in ops if op == "enqueue"] == ["one", "two", "three"]
    assert ops.count(("dequeue", None)) == 1  # the first began; the others never did
    assert all(
        r["sessionId"] == records[0]["sessionId"] for r in records if r.get("type") == "queue-operation"
    )

    assert pending_prompts(Path(path)) == ["two", "three"]
