"""Ctrl-C during a running tool: the process tree dies, every call is answered, and the session resumes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from tests.conftest import anthropic_env

from yoke.session.transcript import sanitize_project
from yoke.testing import ScriptedServer


def test_sigint_during_tool_keeps_history_valid(project, base_env, home):
    turns = [
        {
            "content": [
                {"type": "text", "text": "Running a long command."},
                {
                    "type": "tool_use",
                    "id": "toolu_sleep",
                    "name": "Bash",
                    "input": {"command": "sleep 30; echo finished > late.txt"},
                },
            ]
        },
        {"content": [{"type": "text", "text": "resumed fine"}]},
    ]
    with ScriptedServer(turns) as srv:  # the server rejects a history with an unanswered tool_use
        env = dict(base_env, **anthropic_env(srv))
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "yoke",
                "-p",
                "go",
                "--output-format",
                "stream-json",
                "--verbose",
                "--permission-mode",
                "bypassPermissions",
            ],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines = []
        for line in proc.stdout:
            lines.append(json.loads(line))
            if lines[-1]["type"] == "assistant" and lines[-1]["message"]["content"][0]["type"] == "tool_use":
                break
        time.sleep(0.5)  # let the command start
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=20)
        assert time.monotonic() - started < 10
        lines += [json.loads(x) for x in rest.splitlines() if x.strip()]
        assert proc.returncode == 130, err
        result = lines[-1]
        assert (
            result["type"] == "result" and result["terminal_reason"] == "interrupted" and result["is_error"]
        )
        session_id = result["session_id"]
        answered = [o for o in lines if o["type"] == "user"]
        assert answered and answered[0]["message"]["content"][0]["tool_use_id"] == "toolu_sleep"

        transcript = home / ".yoke" / "projects" / sanitize_project(project) / f"{session_id}.jsonl"
        records = [json.loads(x) for x in transcript.read_text().splitlines()]
        results = [r for r in records if r["type"] == "user" and isinstance(r["message"]["content"], list)]
        assert results[-1]["message"]["content"][0]["tool_use_id"] == "toolu_sleep"

        resumed = subprocess.run(
            [
                sys.executable,
                "-m",
                "yoke",
                "-p",
                "carry on",
                "--resume",
                session_id,
                "--output-format",
                "json",
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert resumed.returncode == 0, resumed.stderr
        assert json.loads(resumed.stdout)["result"] == "resumed fine"
    time.sleep(0.2)
    assert not (project / "late.txt").exists()  # the interrupted command really died
