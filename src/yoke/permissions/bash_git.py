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
    --encoding --color-moved --inter-hunk-context --anchored --diff-algorithm --column --output-indicator-new
    --output-indicator-old --output-indicator-context --src-prefix --dst-prefix --line-prefix"""
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
    r"^(--output(?!-indicator-)|--ext-diff|--textconv|--filters|--open-files-in-pager|-O|--exec|--upload-pack|--no-index"
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
    if sub in ("config", "var", "remote", "stash", "branch", "tag"):
        return True, "", []
    # `REV:PATH` and `:PATH` name a file's committed or staged content: judged as that file
    blobs = [op.split(":", 1)[1] for op in operands if ":" in op and op.split(":", 1)[1]]
    return True, "", operands + blobs + _file_values(sub, rest)


# Options whose value is a file git reads, by subcommand (`git blame -S FILE` reads revisions from FILE; in
# `git log -S TEXT` the same letter is a search string).
_FILE_VALUED = {"blame": ("-S",)}


def _file_values(sub: str, rest: list[str]) -> list[str]:
    out: list[str] = []
    for i, arg in enumerate(rest):
        for option in _FILE_VALUED.get(sub, ()):
            if arg == option and i + 1 < len(rest):
                out.append(rest[i + 1])
            elif arg.startswith(option) and len(arg) > len(option):
                out.append(arg[len(option) :])
    return out


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
    """`git branch`/`git tag` only list when git itself is in list mode: no name at all, or a name beside an
    option that puts git in list mode (others, like `--sort` or `--format`, only shape a listing: with a
    name, `git branch --sort=x NAME` creates NAME)."""
    lists = {"--list", "-l", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"}
    if sub == "branch":
        lists |= {"-a", "-r", "--all", "--remotes", "--show-current"}
    shapes = {"--sort", "--format", "--no-color", "--color", "--column", "--no-column", "--ignore-case"}
    if sub == "branch":
        shapes |= {"-v", "-vv", "--verbose"}  # with a name, `git branch -v NAME` creates it
    in_list_mode = False
    for arg in rest:
        key = arg.split("=", 1)[0]
        if sub == "tag" and re.fullmatch(r"-n\d*", arg):
            in_list_mode = True  # tag -n<N>: list with annotation lines
        elif key in lists:
            in_list_mode = True
        elif arg.startswith("-") and key not in shapes:
            return False
    names = [a for a in rest if not a.startswith("-")]
    return not names or in_list_mode


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
                operands.append(rest[i + 1])  # where git's value is optional, that word is an operand
                i += 2
            else:
                return [], f"`git {sub} {text}` is not a known read-only option"
            continue
        step = _short(rest, i)
        if step is None:
            return [], f"`git {sub} {text}` is not a known read-only option"
        if step == 2:
            operands.append(rest[i + 1])  # as above: `git diff -B FILE` diffs FILE
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

# A key names a program (or a file git reads, such as `blame.ignoreRevsFile`: a read the analyser did not
# judge) by its shape: it ends in one of these words (`core.sshCommand`,
# `gpg.ssh.defaultKeyCommand`, `sequence.editor`, `filter.x.process`…); a section brings programs by its name.
_RUNS_PROGRAM_KEY = re.compile(
    r"^\s*[a-z0-9-]*?(fsmonitor|pager|external|textconv|command|editor|program|askpass|hookspath|worktree"
    r"|gitproxy|cmd|tool|driver|helper|attributesfile|excludesfile|uploadpack|receivepack|proxy|process"
    r"|clean|smudge|file)\s*(=|$)",
    re.IGNORECASE | re.MULTILINE,
)
_RUNS_PROGRAM_SECTION = re.compile(r"\[\s*(include|includeif|alias|filter|pager)\b", re.I)  # anywhere: a BOM


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
    """True when every configuration file of the repository containing `start` (and of any repository
    nested below it: a submodule's or a cloned-in repository's own `.git`, where a later `cd` may lead)
    names no program git could run for a read-only command."""
    dirs = git_dirs(start)
    if dirs is None:
        return False
    dirs = dirs + _nested_git_dirs(start)
    for gitdir in dirs:
        for text in _config_texts(gitdir):
            if text is None:
                return False
            text = _standard_worktree(_one_entry_per_line(text), gitdir)
            if _RUNS_PROGRAM_KEY.search(text) or _RUNS_PROGRAM_SECTION.search(text):
                return False
    return True


def _standard_worktree(text: str, gitdir: Path) -> str:
    """`text` without the `worktree = …` entries that name the folder whose `.git` file leads back to this
    git directory: how git lays out every submodule (`.git/modules/x` with `core.worktree = ../../../x`).
    Any other `worktree` (one that sends git to another tree) is left for the check to refuse."""

    def drop_if_standard(match: re.Match[str]) -> str:
        tree = Path(os.path.join(gitdir, match.group(1).strip().strip('"')))
        try:
            link = (tree / ".git").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return match.group(0)
        back = os.path.realpath(os.path.join(tree, link[7:].strip())) if link.startswith("gitdir:") else ""
        return "" if back == os.path.realpath(gitdir) else match.group(0)

    return re.sub(r"^\s*worktree\s*=\s*(.*)$", drop_if_standard, text, flags=re.IGNORECASE | re.MULTILINE)


def _config_texts(gitdir: Path) -> list[str | None]:
    """Every file in a git directory git may read configuration from: `config`, `config.worktree`, and
    those of its linked worktrees (None for one that exists but cannot be read)."""
    texts: list[str | None] = []
    places = [gitdir]
    try:
        places += [p for p in (gitdir / "worktrees").iterdir() if p.is_dir()]
    except OSError:
        pass
    for place in places:
        for name in ("config", "config.worktree"):
            try:
                texts.append((place / name).read_text(encoding="utf-8", errors="replace"))
            except FileNotFoundError:
                continue
            except OSError:
                texts.append(None)
    return texts


def _one_entry_per_line(text: str) -> str:
    """Git accepts a key on its section's header line (`[core] pager = x`) and continued lines: put every
    header on a line of its own and join continuations, so a key is always at a line's start."""
    return re.sub(r"\\\r?\n", "", text).replace("]", "]\n")


_NESTED_LIMIT = 5_000  # directory entries looked at below a folder for nested repositories


def _nested_git_dirs(start: str) -> list[Path]:
    """Git directories of repositories below `start` (submodules, vendored clones): a `cd` into one makes
    its own config apply. Dependency and cache trees are not entered."""
    from yoke.fsutil import bounded_scan

    found: list[Path] = []
    for folder, entry in bounded_scan(start, _NESTED_LIMIT, _SKIP_NESTED):
        if entry.name == ".git" and folder != start:
            found.extend(git_dirs(folder) or [])
        elif entry.name == "HEAD" and _bare_repository(folder):  # an embedded bare repository: `cd` into
            found.append(Path(folder))  # it and git uses it, with its own config
    return found


def _bare_repository(folder: str) -> bool:
    return os.path.isdir(os.path.join(folder, "objects")) and os.path.isdir(os.path.join(folder, "refs"))


_SKIP_NESTED = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", "target"}
)
