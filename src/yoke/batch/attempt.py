"""One attempt: a fresh workspace, `setup`, one headless session, the grader in the sandbox, the diff.

Returns the attempt's results line. Statuses: passed, failed (the grader said no), timeout, budget,
model_error, crashed (anything else that went wrong: the workspace, setup, the sandbox, a bug).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yoke.events.port import SessionPort

OUTPUT_CAP = 4000  # characters of grader (or setup) output kept in a results line
SANDBOX = {"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": True}}
KILL_GRACE_S = 10.0  # after an interrupt, how long the session has to end before the attempt gives up


class Control:
    """What a worker's signal handler reaches: the running session, and whether to stop."""

    def __init__(self) -> None:
        self.session: SessionPort | None = None  # driven through its port only
        self.shell: Any = None  # the setup or grader process running now
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True
        if self.session is not None:
            interrupt(self.session)
        if self.shell is not None:
            from yoke.session.shell import signal_tree

            signal_tree(self.shell.pid, signal.SIGKILL)


async def run_attempt(
    job: dict[str, Any], control: Control | None = None, gate: Callable[[Any], Awaitable[None]] | None = None
) -> dict[str, Any]:
    control = control or Control()
    started = time.monotonic()
    row = blank_row(job)
    try:
        await _attempt(job, row, control, gate)
    except Exception as exc:  # the attempt failed, not the batch: recorded, retried by the next run
        row.update(status="crashed", passed=False, error=f"{type(exc).__name__}: {exc}"[:OUTPUT_CAP])
    if control.cancelled:
        row["status"] = "cancelled"
    row["wall_s"] = round(time.monotonic() - started, 3)
    return row


def blank_row(job: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": job["id"],
        "model": job["model"],
        "model_spec": job["model"],
        "attempt": job["attempt"],
        "status": "crashed",
        "passed": False,
        "cost_usd": 0.0,
        "tokens": 0,
        "turns": 0,
        "wall_s": 0.0,
        "workspace": None,
        "transcript": None,
        "cassette": None,
        "diff": None,
        "grader_exit": None,
        "grader_output": None,
        "extra": job.get("extra") or {},
    }


async def _attempt(job: dict[str, Any], row: dict[str, Any], control: Control, gate: Any) -> None:
    from yoke.batch.workspace import make_workspace

    folder = Path(job["attempt_dir"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "job.json").write_text(json.dumps(job, indent=1))
    workspace = await asyncio.to_thread(
        make_workspace, job["repo"], job.get("commit"), folder / "workspace", Path(job["cache_dir"])
    )
    row["workspace"] = str(workspace.path)
    deadline = time.monotonic() + float(job["timeout_s"])
    if job.get("setup"):
        code, output = await _shell(
            job["setup"], workspace.path, job, deadline, False, folder / "setup.txt", control
        )
        if code is None:
            row.update(status="timeout", error=f"setup ran out of time: {output[-OUTPUT_CAP:]}")
            return
        if code != 0:
            row["error"] = f"setup exited {code}: {output[-OUTPUT_CAP:]}"
            return
    base = await asyncio.to_thread(workspace.snapshot)
    result, timed_out = await _session(job, row, workspace.path, folder, control, gate, deadline)
    if control.cancelled:
        return
    patch = await asyncio.to_thread(workspace.diff, base)
    (folder / "diff.patch").write_text(patch)
    row["diff"] = str(folder / "diff.patch")
    if timed_out:
        row["status"] = "timeout"
        return
    if result is None:
        row["error"] = "the session ended without a result"
        return
    if result.reason == "budget_exceeded":
        row["status"] = "budget"
        return
    if result.reason == "model_error":
        row.update(status="model_error", error=result.text[:OUTPUT_CAP])
        return
    await _grade(job, row, workspace.path, result, folder / "grader.txt", control)


async def _session(
    job: dict[str, Any],
    row: dict[str, Any],
    cwd: Path,
    folder: Path,
    control: Control,
    gate: Any,
    deadline: float,
) -> tuple[Any, bool]:
    from yoke.events import Result, port
    from yoke.session import open_session

    replay = job.get("replay")
    options = _options(job, cwd, folder, gate)
    if control.cancelled:
        return None, False
    core = await open_session(options)
    row.update(model=core.model, transcript=str(core.transcript_path))
    session: SessionPort = core
    control.session = session
    row["cassette"] = str(replay or folder / "cassette.jsonl")
    timed_out = False

    def on_timeout() -> None:
        nonlocal timed_out
        timed_out = True
        interrupt(session)  # the turn, and the wait on background work

    timer = asyncio.get_running_loop().call_later(max(0.0, deadline - time.monotonic()), on_timeout)
    result = None
    try:
        async with asyncio.timeout(max(0.0, deadline - time.monotonic()) + KILL_GRACE_S):
            # through the session's port: the attempt ends when the session is idle, after the follow-up
            # queries its background agents' notices start; its result is the last one
            stream = session.events()
            await session.submit(port.Prompt(job["prompt"]))
            async for event in stream:
                if isinstance(event, Result) and event.agent_id == "main":
                    result = event
                    if timed_out:  # interrupted at the deadline: background work is not waited for
                        break
                elif isinstance(event, port.Idle) and result is not None:
                    break
    except TimeoutError:
        timed_out = True
    finally:
        timer.cancel()
        control.session = None
        await session.close()
    if result is not None:
        usage = result.usage
        row.update(
            cost_usd=round(result.total_cost_usd, 6),
            tokens=usage.input_tokens
            + usage.output_tokens
            + usage.cache_read_input_tokens
            + usage.cache_creation_input_tokens,
            turns=result.num_turns,
            reason=result.reason,
        )
    return result, timed_out


def _options(job: dict[str, Any], cwd: Path, folder: Path, gate: Any) -> Any:
    """The attempt's session: the job's model, mode and limits, sandboxed unless the job says not; it
    replays the job's cassette, or records one with the shared rate limiter before each request."""
    from yoke.session.options import SessionOptions

    replay = job.get("replay")
    options = SessionOptions(
        cwd=cwd,
        model=job.get("model") if not replay else None,
        permission_mode=job.get("permission_mode") or "acceptEdits",
        max_turns=job.get("max_turns"),
        max_budget_usd=job.get("budget_usd"),
        settings=json.dumps(SANDBOX) if job.get("sandbox", True) else None,
        entrypoint="batch",
    )
    if replay:
        options.replay = Path(replay)
    else:
        options.record = folder / "cassette.jsonl"
        options.request_gate = gate
    return options


async def _grade(
    job: dict[str, Any], row: dict[str, Any], cwd: Path, result: Any, output: Path, control: Control
) -> None:
    command = job.get("grade")
    if not command:  # no grader: an attempt passes when the session ended without an error
        row.update(status="failed" if result.is_error else "passed", passed=not result.is_error)
        return
    grade_deadline = time.monotonic() + float(job.get("grade_timeout_s") or job["timeout_s"])
    code, text = await _shell(command, cwd, job, grade_deadline, job.get("sandbox", True), output, control)
    row.update(grader_exit=code, grader_output=text, passed=code == 0)
    row["status"] = "passed" if code == 0 else "timeout" if code is None else "failed"


async def _shell(
    command: str,
    cwd: Path,
    job: dict[str, Any],
    deadline: float,
    sandboxed: bool,
    output: Path,
    control: Control,
) -> tuple[int | None, str]:
    """Run `command` with bash in `cwd` (inside the sandbox when asked), output merged into `output`, its
    whole process tree killed at `deadline` (the code is then None) or on a cancel. The tools' own
    spawner runs it: its guard kills the tree should this process die, even by SIGKILL."""
    from yoke.session.shell import kill_tree, spawn

    env = dict(os.environ)
    env.update({"YOKE_BATCH_TASK": str(job["id"]), "YOKE_BATCH_ATTEMPT": str(job["attempt"])})
    output.unlink(missing_ok=True)
    proc = await spawn(command, cwd, env, output, SANDBOX if sandboxed else None)
    control.shell = proc
    timed_out = False
    try:
        async with asyncio.timeout(max(0.1, deadline - time.monotonic())):
            await proc.wait()
    except TimeoutError:
        timed_out = True
    finally:
        control.shell = None
        if proc.returncode is None:  # timed out or cancelled: the whole tree goes
            await asyncio.shield(kill_tree(proc))
    text = output.read_text(encoding="utf-8", errors="replace")[-OUTPUT_CAP:]
    if timed_out:
        return None, text + "\n(timed out)"
    return proc.returncode or 0, text


def interrupt(session: SessionPort) -> None:
    """The port's interrupt, from a timer or a signal handler (inside the loop): it acts at the loop's next
    step, ending the turn and the wait on background work."""
    from yoke.events import port

    task = asyncio.get_running_loop().create_task(session.submit(port.Interrupt()))
    _INTERRUPTS.add(task)  # held until done (the loop keeps only a weak reference)
    task.add_done_callback(_INTERRUPTS.discard)


_INTERRUPTS: set[asyncio.Task[Any]] = set()
