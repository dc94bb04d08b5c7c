"""Git context for the system prompt: branch, main branch, short status, recent commits.

The git commands run concurrently; a folder outside git, a missing git binary or a slow repository all
yield None or partial context, never an error.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

from yoke.records import Record

MAX_STATUS_CHARS = 2_000
GIT_TIMEOUT_S = 5.0


class GitContext(Record):
    __slots__ = ("root", "branch", "main_branch", "status", "recent_commits", "user_name")

    def __init__(
        self, root: str, branch: str, main_branch: str, status: str, recent_commits: str, user_name: str = ""
    ) -> None:
        self.root = root
        self.branch = branch
        self.main_branch = main_branch
        self.status = status
        self.recent_commits = recent_commits
        self.user_name = user_name


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
    import subprocess

    try:
        proc = subprocess.run(
            hardened_git_argv("config", "--list", "-z"),
            cwd=str(cwd),
            env=env or hardened_git_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout_s,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    settings: dict[str, str] = {}
    for entry in proc.stdout.decode("utf-8", "replace").split("\0"):
        key = entry.split("\n", 1)[0]
        if key and _PROGRAM_KEY.search(key):
            settings[f"{key}="] = ""
            if key.lower().startswith("filter."):
                settings[f"{key.rsplit('.', 1)[0]}.required=false"] = ""
    return [arg for setting in settings for arg in ("-c", setting)]


def run_hardened_git(
    cwd: Path, commands: list[tuple[str, ...]], timeout_s: float = GIT_TIMEOUT_S, programs_off: bool = True
) -> list:
    """Run hardened git commands at once (blocking); each one's stdout, or None where it failed or ran out
    of time. `programs_off`: first blank every program the configuration names (`program_overrides`);
    commands that never run one (`rev-parse`) may skip that. Never raises."""
    import subprocess

    env = hardened_git_env()
    overrides = program_overrides(cwd, env, timeout_s) if programs_off else []
    procs: list[Any] = []
    for args in commands:
        try:
            procs.append(
                subprocess.Popen(
                    hardened_git_argv(*args, overrides=overrides),
                    cwd=str(cwd),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=env,
                    start_new_session=True,
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
            proc.kill()
            proc.communicate()
            out = None
        ok = out is not None and proc.returncode == 0
        outputs.append(out.decode("utf-8", errors="replace").rstrip("\n") if ok else None)
    return outputs


def _git_binary() -> str:
    """The first executable `git` on the fixed PATH (`shutil.which`'s rule, without importing shutil and
    the compression modules it brings: some 5 ms of start-up, in a run that needs neither)."""
    for folder in HARDENED_PATH.split(os.pathsep):
        candidate = os.path.join(folder, "git")
        if os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return candidate
    return "git"


def _in_thread(cwd: Path, commands: list[tuple[str, ...]], programs_off: bool = True) -> asyncio.Future:
    """`run_hardened_git` in a thread of its own; a future of its outputs. Not the event loop's
    subprocesses: those cost the loop's thread about a millisecond a process (transports, a watcher thread
    each), and at start-up the loop's thread is the one busy setting the session up while git runs."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()

    def settle(outputs: list) -> None:
        if not done.done():  # the waiter may have been cancelled meanwhile
            done.set_result(outputs)

    def work() -> None:
        outputs = run_hardened_git(cwd, commands, programs_off=programs_off)
        try:
            loop.call_soon_threadsafe(settle, outputs)
        except RuntimeError:
            pass  # the loop closed: nobody waits any more

    threading.Thread(target=work, name="yoke-git", daemon=True).start()
    return done


# The main branch: origin's default branch when the clone knows it, else the first of these that exists.
MAIN_CANDIDATES = ("main", "master", "trunk")
ORIGIN_HEAD = "refs/remotes/origin/HEAD"
_CANDIDATE_REFS = tuple(f"refs/heads/{name}" for name in MAIN_CANDIDATES)
_REF_PREFIXES = ("refs/heads/", "refs/tags/", "refs/remotes/")


def _main_branch(refs: str | None) -> str:
    """From `for-each-ref` lines (`refname NUL symref`) of origin's HEAD and the candidate branches: one
    process answers what asking for each in turn took up to four, one after another."""
    found: dict[str, str] = {}
    for line in (refs or "").splitlines():
        name, _, target = line.partition("\0")
        found[name] = target
    target = found.get(ORIGIN_HEAD)
    if target:  # "refs/remotes/origin/main" -> "main", as `symbolic-ref --short` then the remote's part
        short = next((target[len(p) :] for p in _REF_PREFIXES if target.startswith(p)), target)
        return short.split("/", 1)[-1]
    return next((name for name in MAIN_CANDIDATES if f"refs/heads/{name}" in found), "")


def _branch(header: str) -> str:
    """The branch from `git status --branch`'s header: `## main...origin/main [ahead 1]`, `## main`,
    `## No commits yet on main`, or `## HEAD (no branch)` when detached (then "")."""
    rest = header[3:] if header.startswith("## ") else ""
    for unborn in ("No commits yet on ", "Initial commit on "):
        if rest.startswith(unborn):
            return rest[len(unborn) :].strip()
    if rest.startswith("HEAD (no branch)"):
        return ""
    return rest.split("...", 1)[0].split(" ", 1)[0]


def inside_repository(cwd: Path) -> bool:
    """Whether git could find a repository from `cwd`: a `.git` (folder or file) in it or a parent. The
    hardened environment leaves git no other way (no GIT_DIR, bare repositories only when named), so outside
    one no process need start."""
    return any(os.path.lexists(os.path.join(folder, ".git")) for folder in (cwd, *cwd.parents))


class GitQuery:
    """What git says of a folder, asked all at once as the session starts (no process waits for another):
    where the repository is (`location`: one quick process, which auto memory needs early) and the
    prompt's context (`context`: four more; the branch comes with the status). Outside a repository no
    process starts and both answer None."""

    def __init__(self, cwd: Path) -> None:
        self._location: asyncio.Future | None = None
        self._rest: asyncio.Future | None = None
        if inside_repository(cwd):
            # rev-parse runs no program: no need to list the configuration first
            location = [("rev-parse", "--show-toplevel", "--git-common-dir")]
            self._location = _in_thread(cwd, location, programs_off=False)
            self._rest = _in_thread(
                cwd,
                [
                    ("status", "--short", "--branch"),
                    ("log", "--oneline", "-n", "5"),
                    ("for-each-ref", "--format=%(refname)%00%(symref)", ORIGIN_HEAD, *_CANDIDATE_REFS),
                    ("config", "user.name"),
                ],
            )

    async def location(self) -> tuple[str, str] | None:
        """(the working tree's top level, the common git directory as git printed it: relative to the
        folder, or absolute), or None when git could not say."""
        if self._location is None:
            return None
        (out,) = await asyncio.shield(self._location)  # shared: one waiter's cancellation is not another's
        lines = (out or "").splitlines()
        return (lines[0], lines[1]) if len(lines) == 2 and all(lines) else None

    async def context(self) -> GitContext | None:
        location = await self.location()
        if location is None or self._rest is None:
            return None
        status, log, refs, user = await asyncio.shield(self._rest)
        header, _, status = (status or "").partition("\n")
        if len(status) > MAX_STATUS_CHARS:
            status = (
                status[:MAX_STATUS_CHARS]
                + "\n... (status truncated; run `git status` with Bash to see everything)"
            )
        return GitContext(
            root=location[0],
            branch=_branch(header) or "(detached HEAD)",
            main_branch=_main_branch(refs),
            status=status,
            recent_commits=log or "",
            user_name=user or "",
        )


async def git_context(cwd: Path) -> GitContext | None:
    return await GitQuery(cwd).context()


def format_git(ctx: GitContext) -> str:
    lines = [
        "# Git",
        "A snapshot taken when the session started; it does not update as you work.",
        f"Repository root: {ctx.root}",
        f"Current branch: {ctx.branch}",
    ]
    if ctx.main_branch:
        lines.append(f"Main branch (the usual target for pull requests): {ctx.main_branch}")
    if ctx.user_name:
        lines.append(f"Git user: {ctx.user_name}")
    lines.append("Status:\n" + (ctx.status or "(clean)"))
    if ctx.recent_commits:
        lines.append("Recent commits:\n" + ctx.recent_commits)
    return "\n".join(lines)
