"""Background tasks with real processes: start, read (TaskOutput / legacy BashOutput), stop, cap, shutdown."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin.bash import BashInput, BashTool
from yoke.tools.builtin.tasks import TaskOutputInput, TaskOutputTool, TaskStopInput, TaskStopTool
from yoke.tools.registry import ToolRegistry
from yoke.tools.shell.state import shell_state, shutdown_shell


@pytest.fixture
def ctx(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "home").mkdir()
    return ToolContext(
        cwd=project,
        session=SessionState("tasks-session", tmp_path / "session"),
        env={"HOME": str(tmp_path / "home")},
    )


@pytest.fixture(autouse=True)
async def stop_tasks(ctx):
    yield
    await shutdown_shell(ctx.session)


async def start(ctx: ToolContext, command: str, **kwargs) -> str:
    result = await BashTool().run(
        BashInput.model_validate({"command": command, "run_in_background": True, **kwargs}), ctx
    )
    assert "backgroundTaskId" in result.data, result.content
    assert result.data["backgroundTaskId"] in result.content
    return result.data["backgroundTaskId"]


async def output(ctx: ToolContext, **kwargs):
    return await TaskOutputTool().run(TaskOutputInput.model_validate(kwargs), ctx)


async def stop(ctx: ToolContext, **kwargs):
    return await TaskStopTool().run(TaskStopInput.model_validate(kwargs), ctx)


def group_gone(pgid: int) -> bool:
    from yoke.tools.shell.process import group_alive

    return not group_alive(pgid)


async def test_background_task_runs_and_reports_completion(ctx):
    task_id = await start(ctx, "echo begin; sleep 0.2; echo end")
    result = await output(ctx, task_id=task_id, timeout=5000)
    assert result.data["retrieval_status"] == "success"
    assert result.data["task"]["status"] == "completed"
    assert result.data["task"]["exitCode"] == 0
    assert result.data["task"]["output"] == "begin\nend\n"
    assert "<status>completed</status>" in result.content and "<exit_code>0</exit_code>" in result.content
    again = await output(ctx, task_id=task_id)
    assert again.data["task"]["output"] == ""  # nothing new since the last read


async def test_failed_task_status_and_exit_code(ctx):
    task_id = await start(ctx, "echo oops; exit 7")
    result = await output(ctx, task_id=task_id, timeout=5000)
    assert result.data["task"]["status"] == "failed"
    assert result.data["task"]["exitCode"] == 7


async def test_non_blocking_read_returns_only_new_output(ctx, tmp_path):
    gate = tmp_path / "gate"
    task_id = await start(ctx, f"echo first; while [ ! -e {gate} ]; do sleep 0.05; done; echo second")
    await asyncio.sleep(0.3)
    early = await output(ctx, task_id=task_id, block=False)
    assert early.data["retrieval_status"] == "not_ready"
    assert early.data["task"]["status"] == "running"
    assert early.data["task"]["output"] == "first\n"
    gate.touch()
    late = await output(ctx, task_id=task_id, timeout=5000)
    assert late.data["task"]["output"] == "second\n"


async def test_blocking_read_times_out_while_running(ctx):
    task_id = await start(ctx, "sleep 5")
    result = await output(ctx, task_id=task_id, timeout=100)
    assert result.data["retrieval_status"] == "timeout"
    assert result.data["task"]["status"] == "running"


async def test_legacy_bash_output_with_filter(ctx):
    task_id = await start(ctx, "printf 'ok 1\\nerror: disk\\nok 2\\nerror: net\\n'")
    task = shell_state(ctx.session).tasks.get(task_id)
    await asyncio.wait_for(task.done.wait(), 5)
    result = await output(ctx, bash_id=task_id, filter="^error")
    assert result.data["stdout"] == "error: disk\nerror: net"
    assert result.data["shellId"] == task_id and result.data["status"] == "completed"
    assert "<stdout>\nerror: disk\nerror: net\n</stdout>" in result.content


async def test_bad_filter_and_missing_or_unknown_id(ctx):
    task_id = await start(ctx, "true")
    with pytest.raises(ToolError, match="regular expression"):
        await output(ctx, bash_id=task_id, filter="(unclosed")
    with pytest.raises(ToolError, match="task_id"):
        await output(ctx)
    with pytest.raises(ToolError, match="bash_1"):
        await output(ctx, task_id="bash_99")


async def test_task_stop_kills_the_whole_group(ctx, tmp_path):
    pid_file = tmp_path / "child.pid"
    task_id = await start(ctx, f"(trap '' TERM; exec sleep 30) & echo $! > {pid_file}; sleep 30")
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.02)
    task = shell_state(ctx.session).tasks.get(task_id)
    result = await stop(ctx, task_id=task_id)
    assert task_id in result.content
    assert result.data["task_id"] == task_id and result.data["command"].startswith("(trap")
    assert task.status == "killed"
    assert await eventually(lambda: group_gone(task.process.pid))
    status = await output(ctx, task_id=task_id)
    assert status.data["task"]["status"] == "killed"
    with pytest.raises(ToolError, match="not running"):
        await stop(ctx, task_id=task_id)


async def test_kill_shell_legacy_shape(ctx):
    task_id = await start(ctx, "sleep 30")
    result = await stop(ctx, shell_id=task_id)
    assert result.data["shell_id"] == task_id
    with pytest.raises(ToolError):
        await stop(ctx)


async def test_legacy_names_resolve_through_registry():
    registry = ToolRegistry([TaskOutputTool(), TaskStopTool()])
    assert registry.get("BashOutput").name == "TaskOutput"
    assert registry.get("KillShell").name == "TaskStop"
    assert registry.get("KillBash").name == "TaskStop"
    schema = TaskOutputTool().input_schema()
    assert set(schema["properties"]) == {"task_id", "block", "timeout"} and schema["required"] == ["task_id"]


async def test_background_cap(ctx):
    shell_state(ctx.session).tasks.max_running = 2
    await start(ctx, "sleep 30")
    await start(ctx, "sleep 30")
    with pytest.raises(ToolError, match="Too many background tasks"):
        await start(ctx, "sleep 30")


async def test_timed_out_command_not_backgrounded_when_cap_reached(ctx):
    shell_state(ctx.session).tasks.max_running = 1
    await start(ctx, "sleep 30")
    result = await BashTool().run(BashInput(command="echo x; sleep 30", timeout=200), ctx)
    assert "timed out" in result.content and "backgroundTaskId" not in result.data


async def test_background_lifetime_limit(ctx):
    task_id = await start(ctx, "sleep 30", timeout=300)
    result = await output(ctx, task_id=task_id, timeout=5000)
    assert result.data["task"]["status"] == "killed"
    assert "time limit" in result.content


async def test_output_size_limit_stops_task(ctx):
    manager = shell_state(ctx.session).tasks
    manager.max_output_bytes = 100_000
    task_id = await start(ctx, "head -c 200000 /dev/zero | tr '\\0' x; while true; do echo flood; done")
    result = await output(ctx, task_id=task_id, timeout=5000)
    assert result.data["task"]["status"] == "killed"
    assert "output passed" in result.content
    assert "characters omitted" in result.content
    assert manager.get(task_id).output_path.stat().st_size == 100_000


async def test_output_cap_holds_against_a_fast_writer(ctx):
    """`yes` writes at memory speed: the cap is enforced as it writes (issue 29), not by a poll that let
    it reach hundreds of megabytes past a 64 MB cap."""
    manager = shell_state(ctx.session).tasks
    manager.max_output_bytes = 4 * 1024 * 1024
    task_id = await start(ctx, "yes")
    result = await output(ctx, task_id=task_id, timeout=10000)
    assert result.data["task"]["status"] == "killed"
    assert manager.get(task_id).output_path.stat().st_size == 4 * 1024 * 1024


async def test_shutdown_stops_everything(ctx, tmp_path):
    pid_file = tmp_path / "orphan.pid"
    ids = [await start(ctx, "sleep 30") for _ in range(3)]
    # A finished task whose child lives on in its process group is cleaned up too.
    ids.append(await start(ctx, f"sleep 30 & echo $! > {pid_file}"))
    manager = shell_state(ctx.session).tasks
    await asyncio.wait_for(manager.get(ids[-1]).done.wait(), 5)
    orphan = int(pid_file.read_text())
    await shutdown_shell(ctx.session)
    for task_id in ids:
        task = manager.get(task_id)
        assert not task.running
        assert await eventually(lambda t=task: group_gone(t.process.pid))
    assert await eventually(lambda: not alive(orphan))


async def eventually(check, timeout: float = 3.0) -> bool:
    """A killed process takes a moment to leave the process table on a loaded machine."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def alive(pid: int) -> bool:
    """Whether `pid` is a running process (a zombie waiting to be reaped counts as dead)."""
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (ProcessLookupError, FileNotFoundError):
        return False
    return state != "Z"
