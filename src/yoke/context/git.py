"""Git context for the system prompt: branch, main branch, short status, recent commits.

The git commands run concurrently; a folder outside git, a missing git binary or a slow repository all
yield None or partial context, never an error.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from yoke.gitsafe import effective_config, inside_repository, overrides_for, run_hardened_git
from yoke.records import Record

MAX_STATUS_CHARS = 2_000


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


def _in_thread(work: Callable[[], list]) -> asyncio.Future:
    """`work` (blocking git) in a thread of its own; a future of its outputs. Not the event loop's
    subprocesses: those cost the loop's thread about a millisecond a process (transports, a watcher thread
    each), and at start-up the loop's thread is the one busy setting the session up while git runs."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()

    def settle(outputs: list) -> None:
        if not done.done():  # the waiter may have been cancelled meanwhile
            done.set_result(outputs)

    def run() -> None:
        outputs = work()
        try:
            loop.call_soon_threadsafe(settle, outputs)
        except RuntimeError:
            pass  # the loop closed: nobody waits any more

    threading.Thread(target=run, name="yoke-git", daemon=True).start()
    return done


# The configuration read last for a repository, by the state of the files it comes from (see `_status_inputs`).
_CONFIGS: dict[str, tuple[list, tuple[list[str], str | None]]] = {}
_SETTLED_S = 2.0  # a file changed this recently may change again within its timestamp's granularity


def _config_files(cwd: Path) -> list[str] | None:
    """The files a repository's configuration comes from (the system's is off in hardened git), or None
    when they cannot be told without git (a linked worktree or submodule: `.git` is a file)."""
    folder = next((f for f in (cwd, *cwd.parents) if os.path.lexists(os.path.join(f, ".git"))), None)
    if folder is None or not os.path.isdir(os.path.join(folder, ".git")):
        return None
    home = os.environ.get("HOME", "")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    git_dir = os.path.join(folder, ".git")
    return [
        os.path.join(git_dir, "config"),
        os.path.join(git_dir, "config.worktree"),
        os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
    ]


def _status_inputs(cwd: Path) -> tuple[list[str], str | None]:
    """What the status needs from the configuration (the overrides blanking every program it names) and
    the user's name, from `effective_config`; cached by the state of the files it comes from, in the
    process and on disk (the Yoke home's `cache/git`: the next `yoke -p` in the repository asks git three
    questions, not four). Only those two are stored, never the configuration itself (it may hold tokens).
    Not cached when the configuration includes other files, or when a file changed so recently that a
    further change could keep its timestamp."""
    files = _config_files(cwd)
    if files is None:
        return _inputs(effective_config(cwd))
    state = [_file_state(f) for f in files]
    known = _CONFIGS.get(str(cwd))
    if known is not None and known[0] == state:
        return known[1]
    stored = _stored(cwd, state)
    if stored is not None:
        _CONFIGS[str(cwd)] = (state, stored)
        return stored
    config = effective_config(cwd)
    inputs = _inputs(config)
    recent = time.time() - _SETTLED_S
    settled = all(s is None or s[0] / 1e9 < recent for s in state)
    if config and settled and not any(k.startswith(("include.", "includeif.")) for k in config):
        _CONFIGS[str(cwd)] = (state, inputs)
        _store(cwd, state, inputs)
    return inputs


def _inputs(config: dict[str, str]) -> tuple[list[str], str | None]:
    return overrides_for(config), config.get("user.name")


def _cache_file(cwd: Path) -> Path:
    import zlib  # loaded by every run already (hashlib would cost a few ms); a clash is told by "cwd"

    from yoke.config.settings import yoke_home_dir

    return yoke_home_dir() / "cache" / "git" / f"{zlib.crc32(os.fsencode(str(cwd))):08x}.json"


def _stored(cwd: Path, state: list) -> tuple[list[str], str | None] | None:
    from yoke.jsonsafe import loads

    try:
        data = loads(_cache_file(cwd).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("cwd") != str(cwd) or data.get("state") != state:
        return None
    overrides, user = data.get("overrides"), data.get("user")
    if not isinstance(overrides, list) or not all(isinstance(a, str) for a in overrides):
        return None
    return overrides, user if isinstance(user, str) else None


def _store(cwd: Path, state: list, inputs: tuple[list[str], str | None]) -> None:
    import json

    path = _cache_file(cwd)
    data = {"cwd": str(cwd), "state": state, "overrides": inputs[0], "user": inputs[1]}
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(temp, path)
    except OSError:  # a read-only home: asked again next time
        try:
            temp.unlink()
        except OSError:
            pass


def _file_state(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [max(st.st_mtime_ns, st.st_ctime_ns), st.st_size, st.st_ino, st.st_dev]


def _status_and_user(cwd: Path) -> list:
    """The status (with every program the configuration names blanked) and the user's name: both from the
    one `git config --list` the status needs first, so the name costs no process of its own."""
    overrides, user = _status_inputs(cwd)
    (status,) = run_hardened_git(cwd, [("status", "--short", "--branch")], overrides=overrides)
    return [status, user]


# The main branch: origin's default branch when the clone knows it, else the first of these that exists.
MAIN_CANDIDATES = ("main", "master", "trunk")
ORIGIN_HEAD = "refs/remotes/origin/HEAD"
_CANDIDATE_REFS = tuple(f"refs/heads/{name}" for name in MAIN_CANDIDATES)


def _main_branch(refs: list[str]) -> str:
    """From `rev-parse --symbolic-full-name` of origin's HEAD (the branch it points to) and of the candidate
    branches that exist: one process answers what asking for each in turn took up to four."""
    head = next((r for r in refs if r.startswith("refs/remotes/") and r != ORIGIN_HEAD), "")
    if head:  # "refs/remotes/origin/main" -> "main", as `symbolic-ref --short` then the remote's part
        return head[len("refs/remotes/") :].split("/", 1)[-1]
    return next((name for name in MAIN_CANDIDATES if f"refs/heads/{name}" in refs), "")


def _exactly(ref: str) -> str:
    """A `rev-parse --glob` that matches just `ref` (a glob without a wildcard would mean `ref/*`)."""
    return f"--glob={ref[:-1]}[{ref[-1]}]"


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


class GitQuery:
    """What git says of a folder, asked all at once as the session starts (no process waits for another
    but the status, which waits for the configuration): where the repository is and the main branch
    (`location`: one quick process, which auto memory needs early; the recent commits run beside it), and
    the prompt's context (`context`: the configuration, then the status). Four processes in all; none of the
    first two can run a program the repository names (rev-parse never does, log without signatures or
    patches neither). Outside a repository no process starts and both answer None."""

    def __init__(self, cwd: Path) -> None:
        self._location: asyncio.Future | None = None
        self._rest: asyncio.Future | None = None
        if inside_repository(cwd):
            self._rest = _in_thread(lambda: _status_and_user(cwd))
            where = ("rev-parse", "--show-toplevel", "--git-common-dir", "--symbolic-full-name")
            refs = [_exactly(ref) for ref in (ORIGIN_HEAD, *_CANDIDATE_REFS)]
            log = ("log", "--no-show-signature", "--oneline", "-n", "5")
            self._location = _in_thread(
                lambda: run_hardened_git(cwd, [(*where, *refs), log], programs_off=False)
            )

    async def location(self) -> tuple[str, str] | None:
        """(the working tree's top level, the common git directory as git printed it: relative to the
        folder, or absolute), or None when git could not say."""
        if self._location is None:
            return None
        out, _ = await asyncio.shield(self._location)  # shared: one waiter's cancellation is not another's
        lines = (out or "").splitlines()
        return (lines[0], lines[1]) if len(lines) >= 2 and lines[0] and lines[1] else None

    async def context(self) -> GitContext | None:
        location = await self.location()
        if location is None or self._rest is None:
            return None
        located, log = await asyncio.shield(self._location)  # type: ignore[arg-type]
        status, user = await asyncio.shield(self._rest)
        header, _, status = (status or "").partition("\n")
        if len(status) > MAX_STATUS_CHARS:
            status = (
                status[:MAX_STATUS_CHARS]
                + "\n... (status truncated; run `git status` with Bash to see everything)"
            )
        return GitContext(
            root=location[0],
            branch=_branch(header) or "(detached HEAD)",
            main_branch=_main_branch((located or "").splitlines()[2:]),
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
