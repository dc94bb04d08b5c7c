"""Where a Bash line's operands lead: the directories relative paths are resolved from (every `cd` target),
globs expanded at decision time, `rm` targets, the trees recursive readers walk, and the read-only verdict
that puts them together (`is_read_only_command`)."""

from __future__ import annotations

import glob as globlib
import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from yoke.paths import ResolvedPath, expand_user, is_inside, is_secret, real_dirs, resolve_path
from yoke.permissions.bash_words import Word

if TYPE_CHECKING:
    from yoke.permissions.bash_analysis import BashAnalysis, Invocation

MAX_GLOB_MATCHES = 1000
MAX_CWD_CANDIDATES = 64


def candidate_cwds(analysis: BashAnalysis, cwd: Path, home: Path) -> list[str] | None:
    """Every directory relative paths in the command may be resolved from; None if one cannot be known.

    bash's `cd` is logical (`..` is removed from `$PWD/dir` as text first: `link/..` is where you were),
    the kernel's physical (`link/..` is the link target's parent), and bash falls back from one to the
    other: every `cd` is followed both ways, from every place (as bash's `$PWD` spells it) it may start."""
    start = os.path.normpath(str(cwd))
    places = list(dict.fromkeys([start, os.path.realpath(start)]))  # as $PWD may spell them
    if analysis.cd_unknown:
        return None
    cdpath = bool(os.environ.get("CDPATH"))
    for _ in range(len(analysis.cd_targets)):
        grown = False
        for target in analysis.cd_targets:
            if not target.static or target.glob or target.brace:
                return None
            text = target.text
            if cdpath and not text.startswith(("/", ".", "~")):
                return None
            for base in list(places):
                resolved = resolve_path(text, Path(base), home)
                if resolved is None:
                    return None
                for landing in (resolved.logical, resolved.real):
                    if landing not in places:
                        places.append(landing)
                        grown = True
                if len(places) > 2 * MAX_CWD_CANDIDATES:
                    return None
        if not grown:
            break
    return list(dict.fromkeys(os.path.realpath(p) for p in places))


def resolve_operand(
    word: Word, cwds: list[str] | None, home: Path, *, with_prefix: bool = True
) -> list[ResolvedPath] | None:
    """The paths an operand names (globs expanded now, from every candidate directory); None if unknowable.
    A glob also names the directory it lists (its literal prefix) unless `with_prefix` is false."""
    if word.procsub:
        return []
    if not word.static or word.brace:
        return None
    text = word.text
    if text == "-":
        return []
    if word.tilde:
        expanded = expand_user(text, home)
        if expanded is None:
            return None
        text = expanded
    if not text.startswith("/") and cwds is None:
        return None
    bases = ["/"] if text.startswith("/") else (cwds or [])
    out: list[ResolvedPath] = []
    for base in bases:
        paths = _expand_glob(text, base, with_prefix) if word.glob else [text]
        if paths is None:
            return None
        for path in paths:
            resolved = resolve_path(path, Path(base), home)
            if resolved is None:
                return None
            out.append(resolved)
    return out


def _expand_glob(pattern: str, base: str, with_prefix: bool = True) -> list[str] | None:
    parts = pattern.split("/")
    literal: list[str] = []
    for part in parts:
        if any(ch in part for ch in "*?["):
            break
        literal.append(part)
    if any(any(ch in p for ch in "*?[") and p.startswith((".", "[")) for p in parts):
        return None  # `.*` may match `..` in bash: the pattern could climb out of the directory
    prefix = "/".join(literal) or ("/" if pattern.startswith("/") else ".")
    matches: list[str] = [prefix] if with_prefix else []
    root = base if not pattern.startswith("/") else "/"
    for i, match in enumerate(globlib.iglob(pattern, root_dir=root, include_hidden=True)):
        if i >= MAX_GLOB_MATCHES or os.path.basename(match).startswith("-"):
            return None  # too many to check, or a file name that the command would take as an option
        matches.append(match)
    return matches


def removal_targets(word: Word, cwds: list[str] | None, home: Path) -> list[ResolvedPath] | None:
    """What `rm` would remove: the glob's matches, and for a bare `dir/*` the directory's whole content,
    judged as the directory itself (so `rm -rf ~/*` counts as removing the home directory)."""
    paths = resolve_operand(word, cwds, home, with_prefix=False)
    if paths is None or not word.glob:
        return paths
    head, _, last = word.text.rpartition("/")
    if last in ("*", "**"):
        folder = resolve_operand(
            Word(head or ("/" if word.text.startswith("/") else "."), tilde=word.tilde), cwds, home
        )
        if folder is None:
            return None
        paths = [*paths, *folder]
    return paths


def paths_of(words: Iterable[Word], cwds: list[str] | None, home: Path) -> list[ResolvedPath] | None:
    out: list[ResolvedPath] = []
    for word in words:
        resolved = resolve_operand(word, cwds, home)
        if resolved is None:
            return None
        out.extend(resolved)
    return out


def reads_of(analysis: BashAnalysis, cwd: Path, home: Path) -> list[ResolvedPath] | None:
    """Every path the read-only commands and `<` redirections read (with cd destinations); None if unknowable."""
    cwds = candidate_cwds(analysis, cwd, home)
    words: list[Word] = [w for inv in analysis.invocations for w in inv.read_only.reads]
    words += analysis.read_redirects
    return paths_of(words, cwds, home)


def is_read_only_command(
    command: str, cwd: Path, working_dirs: Iterable[Path], home: Path | None = None
) -> bool:
    """True only if the whole command line just reads, inside the working directories, and no secrets."""
    from yoke.permissions.bash_analysis import analyze

    home = home or Path.home()
    analysis = analyze(command)
    if not analysis.commands_read_only():
        return False
    cwds = candidate_cwds(analysis, cwd, home)
    reads = paths_of(analysis.read_redirects, cwds, home)
    for inv in analysis.invocations:
        more = read_only_reads(inv, cwds, home)
        if more is None or reads is None:
            return False
        reads += more
    dirs = real_dirs([cwd, *working_dirs])
    return reads is not None and all(
        is_inside(p.real, dirs) and not is_secret(p.real, home) and not is_secret(p.logical, home)
        for p in reads
    )


MAX_TREE_ENTRIES = 5000


def committed_reads(inv: Invocation, cwds: list[str] | None) -> list[ResolvedPath] | None:
    """What a git command that prints committed content beyond its operands (`git show`, `git log -p`,
    `git grep HEAD`, `git cat-file -p ID`) may print: every path of the repository's history and index."""
    from yoke.permissions.bash_git_history import committed_paths

    if not inv.read_only.git_content:
        return []
    if cwds is None:
        return None
    out: list[ResolvedPath] = []
    for cwd in cwds:
        paths = committed_paths(cwd)
        if paths is None:
            return None
        out += [ResolvedPath(p, os.path.realpath(p)) for p in paths]
    return out


def folder_of(path: ResolvedPath) -> ResolvedPath:
    """The folder whose listing shows `path` (where the name is, not where a link leads)."""
    folder = os.path.dirname(path.logical)
    return ResolvedPath(folder, os.path.realpath(folder))


def glob_folders(words: Iterable[Word], cwds: list[str] | None, home: Path) -> list[ResolvedPath] | None:
    """The folders a line's globs list, whatever command they are given to (`echo ~/.ssh/*` reads the
    names in `~/.ssh` as surely as `ls` does): the glob's literal folder and the folder of every match."""
    out: list[ResolvedPath] = []
    for word in words:
        if not word.glob:
            continue
        matches = resolve_operand(word, cwds, home, with_prefix=False)
        head = word.text.rsplit("/", 1)[0] if "/" in word.text else "."
        prefix = resolve_operand(Word(head or "/", tilde=word.tilde), cwds, home)
        if matches is None or prefix is None:
            return None
        out += prefix + [folder_of(m) for m in matches]
    return out


def tree_paths(paths: Iterable[ResolvedPath], follows: bool) -> list[ResolvedPath] | None:
    """Every file and directory below the directories in `paths`, as a recursive reader would meet them
    (following symlinks only if it does); None when there are too many to check. `.git` is listed but not
    entered (its objects are not secrets, and there are too many)."""
    out: list[ResolvedPath] = []
    for top in paths:
        if not os.path.isdir(top.real):
            continue
        for folder, dirs, files in os.walk(top.logical, followlinks=follows):
            names = list(files) + list(dirs)
            if not follows:
                names = [n for n in names if not os.path.islink(os.path.join(folder, n))]
                dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in names:
                logical = os.path.join(folder, name)
                out.append(ResolvedPath(logical, os.path.realpath(logical)))
                if name == ".git":
                    out.append(ResolvedPath(logical + "/_", os.path.realpath(logical) + "/_"))
            if len(out) > MAX_TREE_ENTRIES:
                return None
    return out


def _copy_follows(inv: Invocation) -> bool:
    """`cp -L`/`--dereference`: the copy goes through the links it meets in the trees it copies."""
    words = inv.words[1:]
    short = any(
        w.static and w.text.startswith("-") and not w.text.startswith("--") and "L" in w.text for w in words
    )
    return inv.name == "cp" and (short or any(w.text == "--dereference" for w in words))


def copy_reads(inv: Invocation, cwds: list[str] | None, home: Path) -> list[ResolvedPath] | None:
    """What a `cp` that follows links (`-L`, `--dereference`) reads through them: every entry below its
    operands as it meets them, so a link in a copied tree that leads out of the project is a read outside."""
    if not _copy_follows(inv):
        return []
    operands = paths_of(inv.writes, cwds, home)
    return None if operands is None else tree_paths(operands, follows=True)


def copied_paths(inv: Invocation, cwds: list[str] | None, home: Path) -> list[ResolvedPath] | None:
    """What a `cp`/`mv` writes besides its operands: a folder it copies or moves brings every name below
    it (`cp -r template/. .` writes `./.claude/…` though no operand says so), placed in any of the other
    operands either directly or under the folder's own name. None when that cannot be known."""
    if inv.name not in ("cp", "mv") or not inv.fs_edit:
        return []
    operands = paths_of(inv.writes, cwds, home)
    if operands is None:
        return None
    out: list[ResolvedPath] = []
    for source in operands:
        below = tree_paths([source], follows=_copy_follows(inv))  # `cp -rL`: names met through links too
        if below is None:
            return None
        for dest in operands:
            if dest is source:
                continue
            # a file (or folder) copied into a folder lands under its own name: `cp t/.mcp.json .`
            into = os.path.normpath(os.path.join(dest.logical, os.path.basename(source.logical)))
            out.append(ResolvedPath(into, into))
            for entry in below:
                rel = os.path.relpath(entry.logical, source.logical)
                for placed in (
                    os.path.join(dest.logical, rel),
                    os.path.join(dest.logical, os.path.basename(source.logical), rel),
                ):
                    out.append(ResolvedPath(os.path.normpath(placed), os.path.normpath(placed)))
            if len(out) > MAX_TREE_ENTRIES:
                return None
    return out


def read_only_reads(inv: Invocation, cwds: list[str] | None, home: Path) -> list[ResolvedPath] | None:
    """Everything a read-only invocation reads: its operands, the trees below them for a recursive
    reader; None if that cannot be known, or if git would run under a configuration that names programs."""
    from yoke.permissions.bash_git import repo_config_safe

    reads = paths_of(inv.read_only.reads, cwds, home)
    if reads is None:
        return None
    if inv.read_only.recursive:
        tree = tree_paths(reads, inv.read_only.follows_links)
        if tree is None:
            return None
        if inv.read_only.names_only:  # a listing reads folders: each entry's is what it reveals
            tree = list({folder_of(e): None for e in tree})
        reads = reads + tree
    listed = glob_folders(inv.words[1:], cwds, home)
    committed = committed_reads(inv, cwds)
    if listed is None or committed is None:
        return None
    reads = reads + listed + committed
    if inv.read_only.git and (cwds is None or not all(repo_config_safe(c) for c in cwds)):
        return None
    return reads


def path_word(word: Word) -> Word | None:
    """The path a command's word may name, or None when it reads as an option or a plain word: `/x`, `~/x`,
    `./x`, `a/b`, `.`, the value of `--opt=/x` and `if=/x`; a word known only at run time is returned whole."""
    if not word.static:
        return word
    text = word.text
    if "=" in text and (text.startswith("-") or text.split("=", 1)[0].isalnum()):
        text = text.split("=", 1)[1]  # --file=x, if=x
    elif text.startswith("-"):
        return None
    if "/" in text or text.startswith("~") or text in (".", ".."):
        return replace(word, text=text)
    return None
