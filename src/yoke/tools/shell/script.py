"""What a command runs inside: the environment, the alias/function snapshot, the env file, a cwd trailer."""

from __future__ import annotations

import asyncio
import os
import shlex
from collections.abc import Callable
from pathlib import Path

from yoke.tools.base import ToolContext

SNAPSHOT_TIMEOUT_S = 5.0


def settings_env(ctx: ToolContext) -> dict[str, str]:
    """The session's environment (Yoke's own with settings' `env` applied; where BASH_* settings are read)."""
    return dict(os.environ if ctx.env is None else ctx.env)


def command_env(ctx: ToolContext) -> dict[str, str]:
    """The environment every command starts from: `settings_env` plus the markers scripts use to detect
    that an agent runs them (Claude Code's names, which existing scripts already check)."""
    env = settings_env(ctx)
    env["CLAUDECODE"] = "1"
    env.setdefault("CLAUDE_PROJECT_DIR", str(ctx.cwd))
    env.setdefault("CLAUDE_CODE_SESSION_ID", ctx.session.session_id)
    env.setdefault("GIT_EDITOR", "true")  # no editor can be answered: never hang waiting for one
    return env


def fast_path_env(ctx: ToolContext, env: dict[str, str]) -> str | None:
    """For a call a fast path allowed (`ctx.confinement`): the PATH it runs with, without the entries inside
    the working directories (or relative ones), set in `env`; None for any other call. The fast path judged
    a program by its name (`cat`, `git`), and a project's folder early on PATH would make the name run the
    project's own program instead."""
    if ctx.confinement is None or ctx.confinement.kind == "deny-only":  # judged by no fast path
        return None
    dirs = [os.path.realpath(d) for d in ctx.all_dirs()]
    kept = []
    for entry in env.get("PATH", os.defpath).split(os.pathsep):
        real = os.path.realpath(entry) if os.path.isabs(entry) else None
        if real is not None and not any(real == d or real.startswith(d.rstrip("/") + "/") for d in dirs):
            kept.append(entry)
    env["PATH"] = os.pathsep.join(dict.fromkeys(kept))
    return env["PATH"]


def wrap_command(
    command: str,
    *,
    snapshot: Path | None,
    env_file: str | None,
    cwd_file: Path | None,
    path: str | None = None,
) -> str:
    """The bash script for one command: aliases on, snapshot and env file sourced quietly, the final
    working directory written to `cwd_file` on exit (however the command exits), then the command. `path`
    (`fast_path_env`'s) is set again after the files are sourced, so neither can put a folder back."""
    lines = ["shopt -s expand_aliases"]
    if snapshot is not None:
        lines.append(f"source {shlex.quote(str(snapshot))} >/dev/null 2>&1 || true")
    if env_file:
        quoted = shlex.quote(env_file)
        lines.append(f"if [ -f {quoted} ]; then source {quoted} >/dev/null 2>&1 || true; fi")
    if path is not None:
        lines.append(f"export PATH={shlex.quote(path)}; hash -r")
    if cwd_file is not None:
        trailer = f"pwd -P >| {shlex.quote(str(cwd_file))} 2>/dev/null"
        lines.append(f"trap {shlex.quote(trailer)} EXIT")
    # eval parses the command only now, after the snapshot's aliases exist.
    lines.append(f"eval {shlex.quote(command)}")
    return "\n".join(lines) + "\n"


_SNAPSHOT_DUMP = """
source "$1" </dev/null >/dev/null 2>&1
{
  echo 'shopt -s expand_aliases'
  for __yoke_f in $(compgen -A function); do
    case "$__yoke_f" in _*) ;; *) declare -f "$__yoke_f" ;; esac
  done
  alias -p
} >| "$2"
unset HISTFILE  # leave the user's shell history alone
"""


async def make_snapshot(
    rc_file: Path, out: Path, env: dict[str, str], launch: Callable[[list[str]], list[str]] | None = None
) -> Path | None:
    """Capture the aliases and functions `rc_file` defines into `out` (a sourceable script).

    The rc runs in an interactive bash (many rc files return early otherwise) with no terminal and no input;
    completion helpers (functions starting with `_`) are left out. Any failure just means no snapshot.
    """
    if not rc_file.is_file():
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    from yoke import spawn
    from yoke.tools.shell.process import bash_path, kill_process_group

    argv = [bash_path(), "--noprofile", "--norc", "-i", "-c", _SNAPSHOT_DUMP, "yoke-snapshot", str(rc_file),
            str(out)]  # fmt: skip
    try:
        proc = await spawn.start(argv, confine=launch, stdout=spawn.DEVNULL, stderr=spawn.DEVNULL, env=env)
    except Exception:  # no sandbox, no snapshot: never run the rc file outside it
        return None
    try:
        await asyncio.wait_for(proc.wait(), timeout=SNAPSHOT_TIMEOUT_S)
    except TimeoutError:
        await kill_process_group(proc, grace=0.2)
        return None
    except asyncio.CancelledError:
        await kill_process_group(proc, grace=0.2)
        raise
    if proc.returncode != 0 or not out.is_file():
        return None
    return out
