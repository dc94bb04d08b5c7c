"""Read-only git: the subcommands and options the fast path accepts, and the repository check behind them.

Git runs programs its configuration names (`core.fsmonitor` on `git status`, `core.pager`, diff drivers'
`textconv`, aliases), and a repository's own `.git/config` is as much the attacker's as its files. So a git
command is read-only only if (1) the subcommand and every option are on the lists below and (2) the
repository's configuration names no program (`repo_config_safe`). Anything else asks.
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# fmt: off
_GLOBAL = frozenset({"--no-pager", "-P", "--no-optional-locks", "--no-replace-objects", "--literal-pathspecs"})
_FLAGS = _words(
    """--oneline --stat --shortstat --numstat --name-only --name-status --graph --all --decorate
    --no-decorate --patch --no-patch --cached --staged --color --no-color --reverse --first-parent
    --no-merges --merges --abbrev-commit --no-abbrev-commit --follow --full-history --summary --raw
    --word-diff --ignore-all-space --ignore-space-change --ignore-blank-lines --minimal --patience
    --histogram --topo-order --date-order --author-date-order --left-right --cherry-pick --cherry-mark
    --boundary --branches --tags --remotes --short --long --porcelain --branch --show-stash
    --ahead-behind --no-ahead-behind --ignored --quiet --exit-code --check --full-index --no-renames
    --find-renames --relative --no-relative --no-ext-diff --no-textconv --mailmap --no-mailmap --source
    --parents --children --compact-summary --cc --no-prefix --show-toplevel --show-prefix --show-cdup
    --git-dir --is-inside-work-tree --is-inside-git-dir --absolute-git-dir --git-common-dir --abbrev-ref
    --verify --symbolic-full-name --others --modified --deleted --exclude-standard --directory --heads
    --count --no-walk --name-rev --line-number --ignore-case --word-regexp --extended-regexp
    --fixed-strings --perl-regexp --files-with-matches --files-without-match --invert-match --untracked
    --full-name --recursive --long --always --dirty --first-parent --show-current --verbose --list
    --no-column --null --name-only --show-origin --show-scope --get --get-all --get-regexp --local
    --global --bool --int --path --exact-match --contains --merged --no-merged --ignore-submodules
    --stage --abbrev"""
)
_VALUED = _words(
    """--format --pretty --date --since --until --after --before --author --committer --grep --max-count
    --skip --diff-filter --unified --stat --abbrev --untracked-files --ignore-submodules --word-diff
    --color --decorate --sort --points-at --contains --merged --no-merged --type --default --max-depth
    --relative --find-renames --dirstat --exclude --candidates --match --max-parents --min-parents
    --encoding --color-moved --inter-hunk-context --anchored --diff-algorithm --column"""
)
# fmt: on
_SHORT_FLAGS = "pusqwbMrtahlicvEFHzPIkRBDWT0123456789"
_SHORT_VALUED = "nUSGLABCefm"
_SUBCOMMANDS = _words(
    """status diff log show blame shortlog describe rev-parse ls-files ls-tree cat-file rev-list merge-base
    name-rev count-objects grep whatchanged version diff-tree diff-files diff-index for-each-ref show-ref
    check-ignore"""
)
# Options that write, run programs or read files outside the repository, whatever the list above says.
_NEVER = re.compile(
    r"^(--output|--ext-diff|--textconv|--filters|--open-files-in-pager|-O|--exec|--upload-pack|--no-index"
    r"|--contents|--show-signature|--file|--blob|-f|--edit|-e$)"
)


def git_read_only(args: list[str]) -> tuple[bool, str, list[str]]:
    """(read-only?, why not, the operands it reads) for `git ARGS`."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] not in _GLOBAL:
            return False, f"`git {args[i]}` is not a read-only git form", []
        i += 1
    if i >= len(args):
        return False, "`git` without a subcommand", []
    sub, rest = args[i], args[i + 1 :]
    ok = _subcommand_ok(sub, rest)
    if not ok:
        return False, f"`git {' '.join([sub, *rest[:1]])}` is not a read-only git form", []
    operands, why = _options(sub, rest)
    if why:
        return False, why, []
    return True, "", [] if sub in ("config", "var", "remote", "stash", "branch", "tag") else operands


def _subcommand_ok(sub: str, rest: list[str]) -> bool:
    first = rest[0] if rest else ""
    if sub in _SUBCOMMANDS:
        return True
    if sub in ("branch", "tag"):
        return _list_form(sub, rest)
    if sub == "remote":
        return all(a in ("-v", "--verbose") for a in rest) or (first == "get-url" and len(rest) == 2)
    if sub == "config":
        getters = {"--get", "--get-all", "--get-regexp", "--list", "-l"}
        return any(a in getters for a in rest)
    if sub == "stash":
        return first == "list" or (first == "show" and len(rest) <= 2)
    if sub == "worktree":
        return rest == ["list"] or rest == ["list", "--porcelain"]
    if sub == "reflog":
        return not rest or first == "show" or first.startswith("-")
    return False


def _list_form(sub: str, rest: list[str]) -> bool:
    """`git branch`/`git tag` only list: any bare name creates one unless a listing option is present."""
    listing = {"--list", "-l", "--contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"}
    if sub == "branch":
        listing |= {"-a", "-r", "--all", "--remotes", "--show-current"}
    harmless = {"-v", "-vv", "--verbose", "--no-color", "--color", "-n", "--column", "--no-column"}
    for arg in rest:
        key = arg.split("=", 1)[0]
        if (
            arg.startswith("-")
            and key not in listing
            and key not in harmless
            and not re.fullmatch(r"-n\d+", arg)
        ):
            return False
    names = [a for a in rest if not a.startswith("-")]
    return not names or any(a.split("=", 1)[0] in listing for a in rest)


def _options(sub: str, rest: list[str]) -> tuple[list[str], str]:
    operands: list[str] = []
    i = 0
    done = False
    while i < len(rest):
        text = rest[i]
        if done or not text.startswith("-") or text == "-":
            operands.append(text)
            i += 1
            continue
        if text == "--":
            done = True
            i += 1
            continue
        if _NEVER.match(text) or (sub == "grep" and text.startswith("-O")):
            return [], f"`git {sub} {text}` writes, runs a program or reads outside the repository"
        key, eq, _ = text.partition("=")
        if text.startswith("--"):
            if (not eq and key in _FLAGS) or (eq and key in _VALUED):
                i += 1
            elif not eq and key in _VALUED and i + 1 < len(rest):
                i += 2
            else:
                return [], f"`git {sub} {text}` is not a known read-only option"
            continue
        step = _short(rest, i)
        if step is None:
            return [], f"`git {sub} {text}` is not a known read-only option"
        i += step
    return operands, ""


def _short(rest: list[str], i: int) -> int | None:
    letters = rest[i][1:]
    for j, letter in enumerate(letters):
        if letter in _SHORT_VALUED:
            if j + 1 < len(letters):
                return 1
            return 2 if i + 1 < len(rest) else None
        if letter not in _SHORT_FLAGS:
            return None
    return 1


# ---- the repository's configuration ---------------------------------------------------------------------

_RUNS_PROGRAM_KEY = re.compile(
    r"^\s*(fsmonitor|pager|external|textconv|command|sshcommand|editor|program|askpass|hookspath|worktree"
    r"|gitproxy|cmd|tool|driver|helper|attributesfile|excludesfile|uploadpack|receivepack|proxy)\s*(=|$)",
    re.IGNORECASE | re.MULTILINE,
)
_RUNS_PROGRAM_SECTION = re.compile(r"^\s*\[\s*(include|includeif|alias|filter|pager)\b", re.I | re.M)


def git_dirs(start: str) -> list[Path] | None:
    """The git directories whose config applies to a repository containing `start` ([] outside git);
    None when it cannot be told (an unreadable `.git` file)."""
    for folder in (Path(start), *Path(start).parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return _with_common(dot_git)
        if dot_git.is_file():
            try:
                text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if not text.startswith("gitdir:"):
                return None
            target = Path(os.path.join(folder, text[7:].strip()))
            return _with_common(target)
    return []


def _with_common(gitdir: Path) -> list[Path]:
    dirs = [gitdir]
    try:
        common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
        dirs.append(Path(os.path.join(gitdir, common)))
    except OSError:
        pass
    return dirs


def repo_config_safe(start: str) -> bool:
    """True when the repository's own config names no program git could run for a read-only command."""
    dirs = git_dirs(start)
    if dirs is None:
        return False
    for gitdir in dirs:
        try:
            text = (gitdir / "config").read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            continue
        except OSError:
            return False
        if _RUNS_PROGRAM_KEY.search(text) or _RUNS_PROGRAM_SECTION.search(text):
            return False
    return True
