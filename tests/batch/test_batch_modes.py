"""Issue 44 item 6: a task line cannot lower the sandbox below what the batch's own command line allows. A
task asking for bypassPermissions (which also turns off the workspace's confinement and the sandbox) is
refused unless the command line chose it."""

from __future__ import annotations

from tests.batch.helpers import task, write_tasks


def test_a_task_line_asking_for_bypass_permissions_is_refused(yoke, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    tasks = write_tasks(tmp_path / "tasks.jsonl", [task("t1", repo, permission_mode="bypassPermissions")])
    run = yoke("batch", str(tasks), "--out", str(tmp_path / "out"), "--workers", "1")
    assert run.code != 0
    assert "'t1'" in run.stderr and "asks for more than this batch allows" in run.stderr
    assert not (tmp_path / "out" / "attempts").exists()  # nothing ran


def test_the_ceiling_is_the_command_lines():
    from yoke.batch.tasks import beyond

    assert beyond("bypassPermissions", "acceptEdits") and beyond("acceptEdits", "default")
    assert not beyond("plan", "default") and not beyond(None, "plan")
    assert not beyond("bypassPermissions", "bypassPermissions")
