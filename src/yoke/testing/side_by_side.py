"""Run a headless CLI (Yoke, or Claude Code as the oracle) on one script and reduce what it writes to a
skeleton that two CLIs can be compared on.

A scenario is a dict: `argv` (after the executable), `turns` (the scripted model answers), optionally
`files` (project files to create), `stdin` (text fed to the process), `settings` (a project
`.claude/settings.json`), `untrusted` (the folder is not marked trusted), `control_answers` (the answers, in turn, to the session's
`can_use_tool` requests, for `--permission-prompt-tool stdio`), `request_fields` (request body fields
to compare request by request, e.g. `thinking`: `request_fields()`), `agent_turns` (a map from a sub-agent's
prompt to its own answers: a request whose first user message contains that prompt takes the next of those,
so a background agent and its parent, asking at the same time, each get their own script). Requests that carry no tools (titles, summaries, a permission classifier's
questions) get `side_answer` (default "ok") and do not consume a turn. `PROJECT` in turns and argv stands for
the project's path.

A skeleton keeps, per stdout line, its kind (`system/permission_denied`, `stream_event/content_block_stop`,
`assistant/tool_use`, `result/success`) and the few fields that say what happened (tool names and ids,
reasons' kinds, error flags): never prose, ids that each run makes, timestamps or costs.

Background work runs beside the query that started it, so where its lines fall among the main session's
differs from run to run (2.1.330's own runs differ). A scenario with `loose_background_order` is compared on
`background_split()`: the background lines in their order, the main session's lines in theirs, and where the
background lines begin and end among the main ones; only the interleaving in between is free.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

SIDE_ANSWER = {"content": [{"type": "text", "text": "ok"}]}
# Fields kept, per line kind, besides the kind itself.
KEPT_FIELDS = {
    "system/permission_denied": ("tool_name", "tool_use_id", "decision_reason_type"),
    "system/status": ("status", "permissionMode"),
    "result": ("is_error", "num_turns", "structured_output"),
    "system/task_started": ("tool_use_id", "subagent_type", "is_backgrounded", "spawn_depth", "task_type"),
    "system/task_progress": ("tool_use_id", "last_tool_name"),
    "system/task_notification": ("tool_use_id", "status"),
    "system/notification": ("key", "priority"),
}
REQUEST_FIELDS = ("tool_name", "tool_use_id", "requires_user_interaction")  # of a can_use_tool request


BACKGROUND_KINDS = (
    "system/background_tasks_changed",
    "system/task_started",
    "system/task_progress",
    "system/task_updated",
    "system/task_notification",
)


def background_split(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """A skeleton as two sequences, the background work's lines (sub-agents' lines and task lines) and the
    rest, plus how many main lines come before the first background line and before the last one's end."""
    main: list[dict[str, Any]] = []
    background: list[dict[str, Any]] = []
    first = last = None
    for line in lines:
        if line.get("sub_agent") or line["line"] in BACKGROUND_KINDS:
            first = len(main) if first is None else first
            last = len(main)
            background.append(line)
        else:
            main.append(line)
    return {"main": main, "background": background, "begins_after": first, "ends_before": last}


def run_scenario(
    executable: str, scenario: dict[str, Any], *, timeout: float = 60, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run `executable` on the scenario against a fresh scripted server, home and project; returns the exit
    code, stdout, stderr, the model requests' bodies and the project's path."""
    from yoke.testing import ScriptedServer

    home, project = _scenario_folders(scenario)
    # json-ours: test harness (the scripted server, side-by-side runs)
    turns = [json.loads(json.dumps(t).replace("PROJECT", str(project))) for t in scenario["turns"]]
    # json-ours: test harness (the scripted server, side-by-side runs)
    routed = json.loads(json.dumps(scenario.get("agent_turns") or {}).replace("PROJECT", str(project)))

    side = SIDE_ANSWER
    if scenario.get("side_answer"):  # e.g. what a permission classifier says
        side = {"content": [{"type": "text", "text": scenario["side_answer"]}]}

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        if not body.get("tools"):
            return side
        opening = _first_user_text(body)
        for prompt, own in routed.items():
            if prompt in opening:
                return own.pop(0) if own else side
        return turns.pop(0) if turns else side

    # validate_requests=False: Claude Code sends what the real API takes and the server's checks do not
    # know (a `system` role message with its per-turn beta), which would make it retry differently
    with ScriptedServer(default_turn=answer, validate_requests=False) as srv:
        run_env = _scenario_env(env if env is not None else os.environ, home, srv.url)
        argv = [a.replace("PROJECT", str(project)) for a in scenario["argv"]]
        command = [*executable.split(), *argv]
        if scenario.get("control_answers") is not None:
            code, stdout, stderr = _run_answering(command, project, run_env, scenario, timeout)
        else:
            proc = subprocess.run(
                command,
                cwd=project,
                env=run_env,
                input=scenario.get("stdin", ""),
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        bodies = [r.body for r in srv.requests if r.body and r.body.get("tools")]
    return {
        "code": code,
        "stdout": stdout,
        "stderr": stderr,
        "requests": bodies,
        "project": project,
    }


def _first_user_text(body: Mapping[str, Any]) -> str:
    """The text of a request's first user message (where a sub-agent's prompt is)."""
    messages = body.get("messages") or []
    first = messages[0] if messages else {}
    content = first.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))


def _run_answering(
    command: list[str], project: Path, env: dict[str, str], scenario: dict[str, Any], timeout: float
) -> tuple[int, str, str]:
    """A stream-json session whose `can_use_tool` requests are answered in turn with the scenario's
    `control_answers` (the Agent SDK's answers: `{behavior, updatedInput, message, ...}`); stdin closes once
    each user message of `stdin` has its result."""
    import threading

    answers = list(scenario["control_answers"])
    stdin_text = scenario.get("stdin", "")
    # json-ours: test harness (the scripted server, side-by-side runs)
    expected = sum(1 for raw in stdin_text.splitlines() if json.loads(raw).get("type") == "user")
    proc = subprocess.Popen(
        command, cwd=project, env=env, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    timer = threading.Timer(timeout, proc.kill)  # a bounded wait, whatever the process does
    timer.start()
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.append(proc.stderr.read() if proc.stderr else ""))
    reader.start()
    out: list[str] = []
    try:
        proc.stdin.write(stdin_text)
        proc.stdin.flush()
        results = 0
        for raw in proc.stdout:
            out.append(raw)
            # json-ours: test harness (the scripted server, side-by-side runs)
            line = json.loads(raw) if raw.lstrip().startswith("{") else {}
            request = line.get("request") or {}
            if line.get("type") == "control_request" and request.get("subtype") == "can_use_tool":
                response = (
                    answers.pop(0) if answers else {"behavior": "deny", "message": "no answer scripted"}
                )
                frame = {"subtype": "success", "request_id": line["request_id"], "response": response}
                proc.stdin.write(json.dumps({"type": "control_response", "response": frame}) + "\n")
                proc.stdin.flush()
            elif line.get("type") == "result":
                results += 1
                if results >= expected:
                    proc.stdin.close()
        code = proc.wait()
    finally:
        timer.cancel()
        reader.join(timeout)
    return code, "".join(out), "".join(errors)


def denied_tools(stdout: str) -> list[list[str]]:
    """Per `result` line, the tools its `permission_denials` name (compared where a scenario answers the
    session's requests: what a client refused must be listed)."""
    out = []
    for raw in stdout.splitlines():
        # json-ours: test harness (the scripted server, side-by-side runs)
        line = json.loads(raw) if raw.lstrip().startswith("{") else {}
        if line.get("type") == "result":
            out.append([d.get("tool_name") for d in line.get("permission_denials") or []])
    return out


def request_fields(bodies: list[dict[str, Any]], fields: list[str]) -> list[dict[str, Any]]:
    """The named fields of each model request (a scenario's `request_fields`), in order."""
    return [{f: body.get(f) for f in fields} for body in bodies]


def _scenario_folders(scenario: dict[str, Any]) -> tuple[Path, Path]:
    """A fresh home and project with the scenario's files and settings (the folder trusted unless the
    scenario says `untrusted`, recorded as Claude Code records it; Yoke reads that too)."""
    root = Path(tempfile.mkdtemp(prefix="side-by-side-"))
    home, project = root / "home", root / "project"
    home.mkdir()
    project.mkdir()
    for name, text in (scenario.get("files") or {}).items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if scenario.get("settings") is not None:
        (project / ".claude").mkdir(exist_ok=True)
        (project / ".claude" / "settings.json").write_text(json.dumps(scenario["settings"]))
    if not scenario.get("untrusted"):
        trusted = {"projects": {os.path.realpath(project): {"hasTrustDialogAccepted": True}}}
        (home / ".claude.json").write_text(json.dumps(trusted))
    return home, project


def _scenario_env(base: Mapping[str, str], home: Path, url: str) -> dict[str, str]:
    """The environment without the caller's provider and harness variables, pointed at the scripted server."""
    run_env = {
        k: v for k, v in base.items() if not k.startswith(("ANTHROPIC_", "CLAUDE", "OPENAI_", "YOKE_"))
    }
    run_env.update(
        HOME=str(home),
        YOKE_HOME=str(home / ".yoke"),
        ANTHROPIC_BASE_URL=url,
        ANTHROPIC_API_KEY="sk-test",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    return run_env


def skeleton(stdout: str) -> list[dict[str, Any]]:
    """What a comparison looks at, line by line (lines that are not JSON are kept as `text`)."""
    out = []
    for raw in stdout.splitlines():
        if not raw.strip():
            continue
        try:
            # json-ours: test harness (the scripted server, side-by-side runs)
            line = json.loads(raw)
        except ValueError:
            out.append({"line": "text"})
            continue
        kind = line.get("type", "?")
        if kind == "system":
            kind = f"system/{line.get('subtype')}"
        elif kind == "stream_event":
            kind = f"stream_event/{line['event']['type']}"
        elif kind in ("assistant", "user"):
            content = line["message"]["content"]
            blocks = [b.get("type") for b in content] if isinstance(content, list) else ["string"]
            kind = f"{kind}/{','.join(blocks)}"
        if kind == "control_request":  # what the session asks its client (a tool's permission, a question)
            kind = f"control_request/{line['request'].get('subtype')}"
        entry: dict[str, Any] = {"line": kind}
        if line.get("type") == "user" and isinstance(line["message"]["content"], list):
            errors = [
                bool(b.get("is_error")) for b in line["message"]["content"] if b.get("type") == "tool_result"
            ]
            if errors:
                entry["is_error"] = any(errors)
            data = line.get("tool_use_result")
            if (
                isinstance(data, dict) and "answers" in data
            ):  # AskUserQuestion's answers, as the tool took them
                entry["answers"] = data["answers"]
        if line.get("type") == "result":
            entry["line"] = f"result/{line.get('subtype')}"
        if kind == "system/init" and line.get("plugin_errors"):  # which plugins were refused, and how
            entry["plugin_errors"] = [
                {k: e.get(k) for k in ("plugin", "type")} for e in line["plugin_errors"]
            ]
        if line.get("parent_tool_use_id") or line.get("agent_id"):  # a sub-agent's line (ids vary per run)
            entry["sub_agent"] = True
        if kind == "control_request/can_use_tool":
            entry.update({f: line["request"][f] for f in REQUEST_FIELDS if f in line["request"]})
        for field in KEPT_FIELDS.get(kind if line.get("type") != "result" else "result", ()):
            if field in line:
                entry[field] = line[field]
        out.append(entry)
    return out
