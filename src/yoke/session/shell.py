"""A command run the way a session's Bash tool runs one, for front-ends that run commands of their own
(`yoke batch`'s setup and grader commands): bash through the tools' spawner, whose guard kills the command's
process tree should Yoke die (even by SIGKILL), optionally inside the sandbox a session with these settings
would use. Front-ends import this module, never `tools/` or `sandbox/`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


async def spawn(
    command: str, cwd: Path, env: Mapping[str, str], output: Path, sandbox: dict[str, Any] | None = None
) -> Any:
    """Start `command` with bash in `cwd`, stdout and stderr into `output`; with `sandbox` (settings holding a
    `sandbox` object), inside the sandbox with `cwd` writable. Returns the process (`pid`, `wait()`,
    `returncode`)."""
    from yoke.tools.shell.process import spawn_bash

    launcher = None
    if sandbox is not None:
        from yoke.sandbox import SandboxSettings, wrap_command

        settings = SandboxSettings.from_settings(sandbox, cwd)
        launcher = lambda argv: wrap_command(argv, settings, cwd, [cwd])  # noqa: E731
    return await spawn_bash(command, cwd=cwd, env=dict(env), output_path=output, launcher=launcher)


async def kill_tree(proc: Any) -> None:
    """End a spawned command's whole process group."""
    from yoke.tools.shell.process import kill_process_group

    await kill_process_group(proc)


def signal_tree(pid: int, signum: int) -> None:
    """Send `signum` to a spawned command's process group (from any thread)."""
    from yoke.tools.shell.process import signal_group

    signal_group(pid, signum)
