"""What git reads beyond the paths it is given: a commit's patch, an object by its id, a search of a whole
tree print committed content of any path the history holds, so such a command is judged by every path of the
repository's history and index (`bash_paths.committed_reads`), listed once per state of its refs.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from yoke.permissions.bash_git import git_dirs

# Subcommands that print content from the object store beyond the paths they are given (a commit's patch,
# an object by its id, a search of a whole tree); `log` and friends do with a patch or a content search.
_CONTENT_SUBCOMMANDS = frozenset(
    {"show", "diff", "diff-tree", "diff-index", "diff-files", "grep", "cat-file"}
)
_CONTENT_OPTIONS = re.compile(
    r"^(--patch|--cc|--word-diff|--unified|--pickaxe|--function-context|-[a-zA-Z]*[puLSGWc]|-U)"
)


_SUMMARY_ONLY = frozenset(
    {"--stat", "--shortstat", "--numstat", "--name-only", "--name-status", "--summary", "--compact-summary",
     "-s", "--no-patch", "--dirstat", "--quiet", "--raw"}
)  # fmt: skip


def git_prints_content(args: list[str]) -> bool:
    """Whether `git ARGS` may print committed or staged content of paths it does not name: then every path
    the repository holds, in any commit, counts as read (`committed_paths`)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 1
    if i >= len(args):
        return False
    sub, rest = args[i], args[i + 1 :]
    patch = any(_CONTENT_OPTIONS.match(a) for a in rest if a != "--")
    if sub == "cat-file":
        return not any(a in ("-t", "-s", "-e") for a in rest)  # type, size, existence: no content
    if sub in _CONTENT_SUBCOMMANDS and sub != "grep" and not patch:
        return not any(a.split("=", 1)[0] in _SUMMARY_ONLY for a in rest)  # `git diff --stat`: names only
    if sub in _CONTENT_SUBCOMMANDS:
        return True
    if sub in ("log", "whatchanged", "stash", "reflog", "shortlog"):
        return sub == "whatchanged" or any(_CONTENT_OPTIONS.match(a) for a in rest if a != "--")
    return False


_COMMITTED: dict[tuple[str, float], list[str] | None] = {}
MAX_COMMITTED = 50_000  # paths; a history naming more is not checked path by path (unknown)


def committed_paths(start: str) -> list[str] | None:
    """Every path (absolute) the repository containing `start` holds, in any commit reachable from a ref or
    the reflog (stashes included) or in the index: what a `git show`, `git log -p` or `git grep REV` may print.
    [] outside git; None when it cannot be told in time (a huge history, no git). Cached per repository
    until its refs, reflog or index change."""
    from yoke.gitsafe import run_hardened_git

    dirs = git_dirs(start)
    if not dirs:
        return [] if dirs == [] else None
    key = (str(dirs[0]), _state_stamp(dirs))
    if key in _COMMITTED:
        return _COMMITTED[key]
    log = ("log", "--all", "--reflog", "--format=", "--name-only", "--no-renames", "-z")
    index = ("ls-files", "--cached", "--full-name", "-z")
    out = run_hardened_git(Path(start), [("rev-parse", "--show-toplevel"), log, index], 3.0, False)
    found: list[str] | None = None
    if all(o is not None for o in out) and out[0]:
        top = out[0].strip()
        names = {n for text in out[1:] if text for n in text.split("\0") if n.strip()}
        if len(names) <= MAX_COMMITTED:
            found = sorted(os.path.join(top, n.strip("\n")) for n in names)
    if len(_COMMITTED) > 64:
        _COMMITTED.clear()
    _COMMITTED[key] = found
    return found


def _state_stamp(dirs: list[Path]) -> float:
    """A number that changes when the refs, the reflog or the index do."""
    stamp = 0.0
    for gitdir in dirs:
        for rel in (
            "HEAD",
            "index",
            "packed-refs",
            "refs",
            "refs/heads",
            "refs/tags",
            "logs/HEAD",
            "refs/stash",
        ):
            try:
                stamp += os.stat(gitdir / rel).st_mtime_ns / 1e9
            except OSError:
                pass
    return stamp
