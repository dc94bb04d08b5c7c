"""A scripted model that answers per task: the task's id is in its prompt (`TASK <id>`), and what it does is
decided by the id's shape. `pN`: writes out.txt with "pass" when N is even, "fail" when odd (one tool turn,
then a closing text); `slow`: answers after a long delay; `costly`: a tool turn reporting millions of tokens;
`broken`: a 400 error every time; `bash...`: one Bash call."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from yoke.testing import ScriptedServer

TASK = re.compile(r"TASK (\w+)")


def task_of(body: dict[str, Any]) -> str:
    first = body["messages"][0]["content"]
    text = (
        first
        if isinstance(first, str)
        else " ".join(b.get("text", "") for b in first if b.get("type") == "text")
    )
    match = TASK.search(text)
    return match.group(1) if match else "?"


def _answered(body: dict[str, Any]) -> bool:
    last = body["messages"][-1]["content"]
    return isinstance(last, list) and any(b.get("type") == "tool_result" for b in last)


def answer(body: dict[str, Any], delay: float = 0.0) -> dict[str, Any]:
    task = task_of(body)
    if task == "slow":
        return {"content": "thinking it over", "delay": 20.0}
    if task == "broken":
        return {
            "content": "never sent",
            "fault": {"status": 400, "times": "always", "message": "bad request"},
        }
    if _answered(body):
        return {"content": "done", "delay": delay}
    if task.startswith("bash"):  # Bash, auto-allowed inside the sandbox; a write outside the workspace
        command = "echo pass > out.txt; touch ../escaped"
        return {
            "content": [{"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": command}}]
        }
    usage = {"input_tokens": 5_000_000, "output_tokens": 10} if task == "costly" else {}
    number = int(task[1:]) if task[1:].isdigit() else 0
    text = "pass\n" if number % 2 == 0 else "fail\n"
    call = {
        "type": "tool_use",
        "id": f"toolu_{task}",
        "name": "Write",
        "input": {"file_path": "out.txt", "content": text},
    }
    turn: dict[str, Any] = {"content": [call], "delay": delay}
    if usage:
        turn["usage"] = usage
    return turn


def server(delay: float = 0.0) -> ScriptedServer:
    """The per-task server; `srv.pace["delay"]` (seconds between stream frames) may be changed while it runs."""
    pace = {"delay": delay}
    srv = ScriptedServer(default_turn=lambda body: answer(body, pace["delay"]))
    srv.pace = pace  # type: ignore[attr-defined]
    return srv


def requests_per_task(srv: ScriptedServer) -> Counter:
    return Counter(task_of(r.body) for r in srv.requests if r.body and "messages" in r.body)


def write_tasks(path: Path, tasks: list[dict[str, Any]], extra_lines: tuple[str, ...] = ()) -> Path:
    lines = [json.dumps(t) for t in tasks] + list(extra_lines)
    path.write_text("\n".join(lines) + "\n")
    return path


def task(task_id: str, repo: Path | str, **fields: Any) -> dict[str, Any]:
    return {
        "id": task_id,
        "prompt": f"TASK {task_id}: write out.txt",
        "repo": str(repo),
        "grade": "grep -q pass out.txt",
        **fields,
    }


def git_repo(folder: Path) -> Path:
    folder.mkdir()
    (folder / "README").write_text("a project\n")
    for argv in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"],
    ):
        subprocess.run(["git", *argv], cwd=folder, check=True)
    return folder


def batch_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "yoke", "batch", *args]


def results(out: Path) -> list[dict[str, Any]]:
    path = out / "results.jsonl"
    return (
        [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    )
