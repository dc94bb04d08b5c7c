"""Task lines: one JSON object per line of TASKS.jsonl. Bad lines are reported by number; the rest run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from yoke import jsonsafe

KNOWN = (
    "id",
    "prompt",
    "repo",
    "commit",
    "setup",
    "grade",
    "model",
    "permission_mode",
    "max_turns",
    "timeout_s",
    "budget_usd",
)
MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")
# how much each mode lets a session do unasked: a task line may ask for no more than the batch's command
# line allows (`--permission-mode`, default acceptEdits); bypassPermissions also turns off the workspace's
# confinement and the sandbox, so only the command line can choose it
LOOSENESS = {"plan": 0, "dontAsk": 0, "default": 1, "acceptEdits": 2, "bypassPermissions": 3}


def beyond(mode: str | None, ceiling: str) -> bool:
    """Whether a task's `mode` lets its session do more than the command line's `ceiling` allows."""
    return mode is not None and LOOSENESS[mode] > LOOSENESS[ceiling]


class TaskError(ValueError):
    """A task line that cannot run; the message says what to fix."""


def load_tasks(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The valid tasks of a TASKS.jsonl file, and one message per bad line ("line 3: ...")."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise TaskError(f"{path} is not UTF-8 text") from None
    tasks: list[dict[str, Any]] = []
    errors: list[str] = []
    seen: dict[str, int] = {}
    base = path.resolve().parent
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            task = parse_task(jsonsafe.loads(line), base)
        except json.JSONDecodeError as exc:
            errors.append(f"line {number}: not JSON ({exc.msg} at column {exc.colno})")
            continue
        except TaskError as exc:
            errors.append(f"line {number}: {exc}")
            continue
        if task["id"] in seen:
            errors.append(
                f"line {number}: id {task['id']!r} repeats line {seen[task['id']]}; ids must be unique"
            )
            continue
        seen[task["id"]] = number
        tasks.append(task)
    return tasks, errors


def parse_task(raw: Any, base: Path) -> dict[str, Any]:
    """One task, checked and normalised: `repo` made absolute when it is a local folder."""
    if not isinstance(raw, dict):
        raise TaskError(f"expected a JSON object, got {type(raw).__name__}")
    task_id = raw.get("id")
    if isinstance(task_id, int) and not isinstance(task_id, bool):
        task_id = str(task_id)
    if not isinstance(task_id, str) or not task_id.strip():
        raise TaskError("'id' is missing (a non-empty string)")
    if not isinstance(raw.get("prompt"), str) or not raw["prompt"].strip():
        raise TaskError(f"task {task_id!r}: 'prompt' is missing (a non-empty string)")
    task = {"id": task_id, "prompt": raw["prompt"]}
    task["repo"] = _repo(raw.get("repo"), raw.get("commit"), base, task_id)
    task["commit"] = raw.get("commit")
    for key in ("setup", "grade", "model"):
        value = raw.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise TaskError(f"task {task_id!r}: {key!r} must be a non-empty string")
        task[key] = value
    mode = raw.get("permission_mode")
    if mode is not None and mode not in MODES:
        raise TaskError(f"task {task_id!r}: 'permission_mode' must be one of {', '.join(MODES)}")
    task["permission_mode"] = mode
    task["max_turns"] = _number(raw, "max_turns", task_id, integer=True)
    task["timeout_s"] = _number(raw, "timeout_s", task_id)
    task["budget_usd"] = _number(raw, "budget_usd", task_id)
    task["extra"] = {k: v for k, v in raw.items() if k not in KNOWN}
    return task


def _repo(repo: Any, commit: Any, base: Path, task_id: str) -> str:
    if not isinstance(repo, str) or not repo.strip():
        raise TaskError(f"task {task_id!r}: 'repo' is missing (a local folder, or a git URL with 'commit')")
    if commit is not None and (not isinstance(commit, str) or not commit.strip()):
        raise TaskError(f"task {task_id!r}: 'commit' must be a non-empty string")
    if is_git_url(repo):
        if commit is None:
            raise TaskError(f"task {task_id!r}: a git URL needs a 'commit' (a sha, tag or branch)")
        return repo
    folder = (base / Path(repo).expanduser()).resolve()
    if not folder.is_dir():
        raise TaskError(f"task {task_id!r}: repo {repo!r} is not a folder")
    return str(folder)


def is_git_url(repo: str) -> bool:
    return "://" in repo or repo.startswith("git@") or repo.endswith(".git") and not Path(repo).is_dir()


def _number(raw: dict[str, Any], key: str, task_id: str, integer: bool = False) -> Any:
    value = raw.get(key)
    if value is None:
        return None
    ok = isinstance(value, int) if integer else isinstance(value, int | float)
    if isinstance(value, bool) or not ok or value <= 0:
        kind = "a positive integer" if integer else "a positive number"
        raise TaskError(f"task {task_id!r}: {key!r} must be {kind}")
    return value
