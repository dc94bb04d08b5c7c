"""Bash with a real bash: output, exit codes, cwd carry-over, env, snapshot, capping, timeout, interrupt."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin.bash import BashInput, BashTool
from yoke.tools.builtin.tasks import TaskOutputInput, TaskOutputTool
from yoke.tools.shell.state import shell_state, shutdown_shell

BASHRC = """\
case $- in *i*) ;; *) return ;; esac
alias greet='echo hello-from-alias'
shout() { echo "SHOUT $1"; }
_completion_helper() { :; }
"""


@pytest.fixture
def ctx(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(BASHRC)
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    context = ToolContext(
        cwd=project,
        session=SessionState("test-session", tmp_path / "session"),
        env={"HOME": str(home)},
    )
    yield context


@pytest.fixture(autouse=True)
async def stop_tasks(ctx):
    yield
    await shutdown_shell(ctx.session)


async def bash(ctx: ToolContext, command: str, **kwargs):
    return await BashTool().run(BashInput.model_validate({"command": command, **kwargs}), ctx)


def alive(pid: int) -> bool:
    """Whether `pid` is a running process (a zombie waiting to be reaped counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


async def wait_for_file(path: Path, timeout: float = 5.0) -> str:
    for _ in range(int(timeout / 0.02)):
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


async def test_output_merged_in_order_and_success(ctx):
    result = await bash(ctx, "echo one; echo two >&2; echo three")
    assert result.content == "one\ntwo\nthree"
    assert not result.is_error
    assert result.data["stdout"] == "one\ntwo\nthree"
    assert result.data["interrupted"] is False and result.data["exitCode"] == 0


async def test_nonzero_exit_code_reported(ctx):
    result = await bash(ctx, "echo failing; exit 3")
    assert result.content == "failing\nExit code 3"
    assert result.is_error
    assert result.data["exitCode"] == 3


async def test_grep_without_matches_is_not_an_error(ctx):
    (ctx.cwd / "f.txt").write_text("alpha\n")
    result = await bash(ctx, "grep beta f.txt")
    assert "Exit code 1" in result.content
    assert not result.is_error
    assert result.data["returnCodeInterpretation"] == "No matches found"


async def test_no_output_says_so(ctx):
    result = await bash(ctx, "true")
    assert result.content == "(Command completed with no output)"


async def test_empty_command_is_refused(ctx):
    with pytest.raises(ToolError):
        await bash(ctx, "   ")


async def test_cwd_carries_over_inside_project(ctx):
    await bash(ctx, "cd sub")
    assert ctx.session.shell_cwd == (ctx.cwd / "sub").resolve()
    result = await bash(ctx, "pwd -P")
    assert result.content == str((ctx.cwd / "sub").resolve())


async def test_cwd_recorded_even_when_command_exits_early(ctx):
    result = await bash(ctx, "cd sub && exit 4")
    assert "Exit code 4" in result.content
    assert (await bash(ctx, "basename $PWD")).content == "sub"


async def test_cwd_outside_working_dirs_is_reset_with_note(ctx, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    result = await bash(ctx, f"cd {outside}")
    assert result.content == f"Shell cwd was reset to {ctx.cwd}"
    assert (await bash(ctx, "pwd")).content == str(ctx.cwd)


async def test_additional_working_dir_keeps_cwd(ctx, tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    ctx.working_dirs = [ctx.cwd, extra]
    result = await bash(ctx, f"cd {extra}")
    assert "reset" not in result.content
    assert (await bash(ctx, "pwd -P")).content == str(extra.resolve())


async def test_env_changes_do_not_persist(ctx):
    await bash(ctx, "export YOKE_TEST_VAR=set-once")
    result = await bash(ctx, "echo ${YOKE_TEST_VAR:-unset}")
    assert result.content == "unset"


async def test_env_file_is_sourced_before_each_command(ctx, tmp_path):
    env_file = tmp_path / "session.env"
    env_file.write_text("export FROM_ENV_FILE=first\n")
    ctx.env = {**(ctx.env or {}), "CLAUDE_ENV_FILE": str(env_file)}
    assert (await bash(ctx, "echo $FROM_ENV_FILE")).content == "first"
    env_file.write_text("export FROM_ENV_FILE=second\necho noise-that-must-not-show\n")
    assert (await bash(ctx, "echo $FROM_ENV_FILE")).content == "second"


async def test_agent_markers_in_environment(ctx):
    result = await bash(ctx, "echo $CLAUDECODE $CLAUDE_PROJECT_DIR")
    assert result.content == f"1 {ctx.cwd}"


async def test_rc_aliases_and_functions_are_snapshotted_once(ctx):
    assert (await bash(ctx, "greet")).content == "hello-from-alias"
    assert (await bash(ctx, "shout hey")).content == "SHOUT hey"
    snapshot = shell_state(ctx.session).snapshot
    assert snapshot is not None and "_completion_helper" not in snapshot.read_text()
    assert not (Path(ctx.env["HOME"]) / ".bash_history").exists()
    # The snapshot is taken once per session: later rc edits do not show up.
    (Path(ctx.env["HOME"]) / ".bashrc").write_text("alias greet='echo changed'\n")
    assert (await bash(ctx, "greet")).content == "hello-from-alias"


async def test_broken_rc_file_is_tolerated(ctx):
    (Path(ctx.env["HOME"]) / ".bashrc").write_text("exit 1\nthis is not bash (((\n")
    result = await bash(ctx, "echo still-works")
    assert result.content == "still-works"
    assert shell_state(ctx.session).snapshot is None


async def test_long_output_is_capped_and_saved(ctx):
    result = await bash(ctx, "seq 1 20000")  # about 109,000 characters
    text = result.content
    assert text.startswith("1\n2\n3\n")
    assert "20000" in text.splitlines()[-2] or text.rstrip().endswith(
        "use Read or Grep on it to see the rest.]"
    )
    assert "characters omitted" in text
    saved = Path(result.data["persistedOutputPath"])
    assert str(saved) in text
    assert saved.read_text().split() == [str(n) for n in range(1, 20001)]
    assert len(text) < 31_000


async def test_output_cap_follows_setting(ctx):
    ctx.env = {**(ctx.env or {}), "BASH_MAX_OUTPUT_LENGTH": "2000"}
    result = await bash(ctx, "seq 1 2000")
    assert "characters omitted" in result.content
    assert len(result.data["stdout"]) < 2100


async def test_short_output_leaves_no_file_behind(ctx):
    await bash(ctx, "echo small")
    outputs = shell_state(ctx.session).root / "outputs"
    assert list(outputs.iterdir()) == []


async def test_timed_out_sleep_is_stopped_not_backgrounded(ctx):
    result = await bash(ctx, "sleep 5", timeout=200)
    assert result.is_error
    assert "timed out after 0.2s" in result.content
    assert "backgroundTaskId" not in result.data


async def test_timed_out_command_moves_to_background(ctx):
    command = "echo started; sleep 0.6; echo finished"
    result = await bash(ctx, command, timeout=300)
    task_id = result.data["backgroundTaskId"]
    assert result.content.startswith("started\n")
    assert f"moved to the background with ID: {task_id}" in result.content
    follow_up = await TaskOutputTool().run(TaskOutputInput(task_id=task_id, timeout=5000), ctx)
    assert follow_up.data["task"]["status"] == "completed"
    assert follow_up.data["task"]["output"] == "finished\n"  # only what came after the first read


async def test_interrupt_kills_process_tree_including_term_ignoring_child(ctx, tmp_path):
    pid_file = tmp_path / "child.pid"
    command = f"(trap '' TERM; exec sleep 30) & echo $! > {pid_file}; sleep 30"
    run = asyncio.ensure_future(bash(ctx, command))
    child = int(await wait_for_file(pid_file))
    assert alive(child)
    ctx.cancel.set()
    result = await asyncio.wait_for(run, timeout=10)
    assert result.data["interrupted"] is True
    assert result.is_error and "interrupted" in result.content
    for _ in range(250):  # a killed process may take a moment to go on a loaded machine
        if not alive(child):
            break
        await asyncio.sleep(0.02)
    assert not alive(child)


async def test_task_cancellation_kills_process_group(ctx, tmp_path):
    pid_file = tmp_path / "child.pid"
    command = f"(trap '' TERM; exec sleep 30) & echo $! > {pid_file}; wait"
    run = asyncio.ensure_future(bash(ctx, command))
    child = int(await wait_for_file(pid_file))
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    for _ in range(250):  # a killed process may take a moment to go on a loaded machine
        if not alive(child):
            break
        await asyncio.sleep(0.02)
    assert not alive(child)


async def test_stdin_is_empty(ctx):
    result = await bash(ctx, "cat; echo done")
    assert result.content == "done"


def test_schema_matches_claude_code_names():
    schema = BashTool().input_schema()
    assert set(schema["properties"]) == {"command", "timeout", "description", "run_in_background"}
    assert schema["required"] == ["command"]


@pytest.mark.parametrize(("stdin", "runs"), [(b"1\n", True), (b"", False), (b"x\n", False)])
def test_a_command_runs_only_once_the_gate_opens(tmp_path, stdin, runs):
    """The gate that holds a command until the kill guard knows its group: if Yoke dies before opening it
    (the pipe closes with nothing written), the command exits without running."""
    import subprocess

    from yoke.tools.shell.process import _GATE, bash_path

    marker = tmp_path / "ran"
    proc = subprocess.run(
        [bash_path(), "--noprofile", "--norc", "-c", _GATE + f"touch {marker}; cat; echo line $LINENO"],
        input=stdin,
        capture_output=True,
    )
    assert marker.exists() is runs
    if runs:  # stdin is at its end for the command, and bash's line numbers are the script's own
        assert proc.returncode == 0 and proc.stdout == b"line 1\n"
    else:
        assert proc.returncode == 125
