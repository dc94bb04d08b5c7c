"""The pure-Python stand-in for ripgrep's file walk, used only when no `rg` binary can be found: globs with
ripgrep's (gitignore-style) meaning, VCS folders skipped, and .gitignore files honoured inside a git repo."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from yoke.globs import glob_to_regex
from yoke.tools.ripgrep import VCS_DIRS


def compile_glob(pattern: str) -> re.Pattern[str]:
    """Match a relative path the way ripgrep's --glob does: a pattern without a slash matches a file's name
    at any depth; one with a slash is anchored at the search root."""
    pattern = pattern.removeprefix("./")
    anchored = "/" in pattern.rstrip("/")
    body = glob_to_regex(pattern.strip("/"))
    return re.compile(f"^{body}$" if anchored else f"^(?:.*/)?{body}$")


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


def _read_gitignore(folder: Path) -> list[_Rule]:
    try:
        text = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    rules = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        line = line[1:] if negate else line.removeprefix("\\")
        dir_only = line.endswith("/")
        if line.strip("/"):
            rules.append(_Rule(compile_glob(line.rstrip("/")), negate, dir_only))
    return rules


def _in_git_repo(folder: Path) -> bool:
    return any((p / ".git").exists() for p in (folder, *folder.parents))


def iter_files(root: Path, respect_gitignore: bool = True) -> Iterator[str]:
    """Files under root as '/'-separated paths relative to it, VCS folders skipped, dotfiles included."""
    use_ignores = respect_gitignore and _in_git_repo(root)
    stack: list[tuple[Path, str, list[tuple[str, list[_Rule]]]]] = [(root, "", [])]
    while stack:
        folder, rel, ignores = stack.pop()
        if use_ignores:
            own = _read_gitignore(folder)
            if own:
                ignores = [*ignores, (rel, own)]
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            path = f"{rel}{entry.name}"
            is_dir = entry.is_dir(follow_symlinks=False)
            if is_dir and entry.name in VCS_DIRS:
                continue
            if ignores and _ignored(path, is_dir, ignores):
                continue
            if is_dir:
                stack.append((Path(entry.path), path + "/", ignores))
            elif entry.is_file():
                yield path


def _ignored(path: str, is_dir: bool, ignores: list[tuple[str, list[_Rule]]]) -> bool:
    verdict = False
    for base, rules in ignores:
        local = path[len(base) :]
        for rule in rules:
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.match(local):
                verdict = not rule.negate
    return verdict
