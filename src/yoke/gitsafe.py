"""Git as Yoke runs it on a repository it did not make: hardened, so the repository's configuration names
nothing git would run. Below every layer: the context's git questions, auto memory, worktrees, daily
commands and `yoke batch` all start git this way."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

GIT_TIMEOUT_S = 5.0

# Every git process Yoke itself starts takes `hardened_git_argv` and `hardened_git_env`: a repository is the
# attacker's file, and its `.git/config` can name programs git runs on `status` (core.fsmonitor), on output
# (core.pager, diff.external, textconv drivers) or on hooks. These settings and this environment leave git nothing of the
# repository's to run, and a fixed PATH and no system config leave it nothing of a planted environment's.
HARDENED_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "safe.bareRepository=explicit",
    "core.pager=cat",
    "core.untrackedCache=false",
    "diff.external=",
    "protocol.allow=never",
    "credential.helper=",
    # Submodules are not entered: a submodule's own configuration (its filters, drivers, fsmonitor) is
    # another file than the one `program_overrides` read, and git would start a child git in it.
    "submodule.recurse=false",
    "diff.ignoreSubmodules=all",
    "status.submoduleSummary=false",
    "fetch.recurseSubmodules=false",
)
HARDENED_PATH = "/usr/local/bin:/usr/bin:/bin"


def hardened_git_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a git process Yoke starts: no GIT_* or pager variable of the caller's survives
    (GIT_DIR, GIT_CONFIG_*, GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND…), no system config, a fixed PATH."""
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if not k.startswith("GIT_") and k not in ("PAGER", "PATH")}
    env.update(
        {
            "PATH": HARDENED_PATH,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_NO_REPLACE_OBJECTS": "1",
            "LC_ALL": "C",
        }
    )
    return env


def hardened_git_argv(*args: str, overrides: list[str] | None = None) -> list[str]:
    """`git` (found on the fixed PATH) with the hardening options, then `args`. `overrides` (from
    `program_overrides`) come first, so the fixed settings still win."""
    argv = [_git_binary(), "--no-pager", "--no-optional-locks", *(overrides or [])]
    for setting in HARDENED_CONFIG:
        argv += ["-c", setting]
    return [*argv, *args]


# Keys whose value names a program git may run, by the key's shape rather than by name: every filter,
# diff, merge and credential driver a repository names for itself, every helper, command, pager, editor and
# tool, and aliases. Includes are read through (`--list` shows what they bring), not blanked (git refuses).
_PROGRAM_KEY = re.compile(
    r"^alias\.|(command|textconv|driver|clean|smudge|process|program|helper|askpass|editor|pager|fsmonitor"
    r"|hookspath|cmd|tool|gitproxy|uploadpack|receivepack|proxy|external)$",
    re.IGNORECASE,
)


def program_overrides(
    cwd: Path, env: dict[str, str] | None = None, timeout_s: float = GIT_TIMEOUT_S
) -> list[str]:
    """`-c KEY=` for every key of the repository's effective configuration that names a program (and
    `filter.X.required=false` so a blanked filter is no error): git then runs nothing the repository's
    configuration names, whatever that driver is called. One `git config --list` (which runs nothing)."""
    return overrides_for(effective_config(cwd, env, timeout_s))


def overrides_for(config: dict[str, str]) -> list[str]:
    """`program_overrides` from a configuration already read (`effective_config`)."""
    settings: dict[str, str] = {}
    for key in config:
        if _PROGRAM_KEY.search(key):
            settings[f"{key}="] = ""
            if key.lower().startswith("filter."):
                settings[f"{key.rsplit('.', 1)[0]}.required=false"] = ""
    return [arg for setting in settings for arg in ("-c", setting)]


def effective_config(
    cwd: Path, env: dict[str, str] | None = None, timeout_s: float = GIT_TIMEOUT_S
) -> dict[str, str]:
    """The repository's effective configuration (each key's last value), from one `git config --list`
    (which runs nothing); {} when git could not say."""
    import subprocess

    from yoke import spawn

    try:
        proc = spawn.run(
            hardened_git_argv("config", "--list", "-z"),
            confine=None,  # Yoke's own hardened git, which runs nothing the repository names
            cwd=cwd,
            env=env or hardened_git_env(),
            timeout=timeout_s,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    config: dict[str, str] = {}
    for entry in proc.stdout.decode("utf-8", "replace").split("\0"):
        key, _, value = entry.partition("\n")
        if key:
            config[key] = value
    return config


def run_hardened_git(
    cwd: Path,
    commands: Sequence[tuple[str, ...]],
    timeout_s: float = GIT_TIMEOUT_S,
    programs_off: bool = True,
    overrides: list[str] | None = None,
) -> list:
    """Run hardened git commands at once (blocking); each one's stdout, or None where it failed or ran out
    of time. `programs_off`: first blank every program the configuration names (`program_overrides`, unless
    the caller has them: `overrides`); commands that never run one (`rev-parse`) may skip that. Never
    raises."""
    import subprocess

    from yoke import spawn

    env = hardened_git_env()
    if overrides is None:
        overrides = program_overrides(cwd, env, timeout_s) if programs_off else []
    procs: list[Any] = []
    for args in commands:
        try:
            procs.append(
                spawn.popen(
                    hardened_git_argv(*args, overrides=overrides),
                    confine=None,  # Yoke's own hardened git
                    cwd=cwd,
                    stdout=spawn.PIPE,
                    stderr=spawn.DEVNULL,
                    env=env,
                )
            )
        except OSError:
            procs.append(None)
    deadline = time.monotonic() + timeout_s
    outputs: list[str | None] = []
    for proc in procs:
        if proc is None:
            outputs.append(None)
            continue
        try:
            out, _ = proc.communicate(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            spawn.signal_group(proc.pid, 9)
            proc.communicate()
            out = None
        spawn.forget_group(proc.pid)
        ok = out is not None and proc.returncode == 0
        outputs.append(out.decode("utf-8", errors="replace").rstrip("\n") if ok else None)
    return outputs


def _git_binary() -> str:
    """The first executable `git` on the fixed PATH."""
    from yoke.spawn import fixed_program

    return fixed_program("git", HARDENED_PATH) or "git"


def inside_repository(cwd: Path) -> bool:
    """Whether git could find a repository from `cwd`: a `.git` (folder or file) in it or a parent. The
    hardened environment leaves git no other way (no GIT_DIR, bare repositories only when named), so outside
    one no process need start."""
    return any(os.path.lexists(os.path.join(folder, ".git")) for folder in (cwd, *cwd.parents))


def run_git_plumbing(
    cwd: Path,
    args: Sequence[str],
    *,
    env_extra: dict[str, str],
    overrides: list[str] | None = None,
    input: bytes | None = None,
    timeout_s: float = 60.0,
) -> tuple[int, bytes, bytes]:
    """One hardened git process on a store of Yoke's own (`env_extra` names it: GIT_DIR, GIT_INDEX_FILE,
    GIT_WORK_TREE, which the hardened environment otherwise drops), fed `input`: (returncode, stdout,
    stderr); returncode -1 when git could not start or ran out of time. Never raises."""
    import subprocess

    from yoke import spawn

    env = hardened_git_env()
    env.update(env_extra)
    try:
        proc = spawn.run(
            hardened_git_argv(*args, overrides=overrides),
            confine=None,  # Yoke's own store, hardened: no program of the repository's runs
            cwd=str(cwd),
            env=env,
            input=input if input is not None else b"",
            timeout=timeout_s,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return -1, b"", str(exc).encode()
    return proc.returncode, proc.stdout, proc.stderr
