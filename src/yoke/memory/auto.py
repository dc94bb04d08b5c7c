"""Where auto memory lives and whether it is on: Claude Code's `~/.claude/projects/<sanitized git root>/memory/`.

The git root is the main checkout of the repository (the parent of `git rev-parse --git-common-dir`), so
every worktree of one repository shares one memory directory; outside git it is the working directory.
`autoMemoryDirectory` moves it, but only when set in managed, `--settings`, local (once the folder is
trusted) or user settings: a repository's own files must never point the model's no-questions-asked writes
at a folder of its choosing (`~/.ssh`, say).

On/off, first match wins: `CLAUDE_CODE_DISABLE_AUTO_MEMORY` (1/true/yes/on turns it off, 0/false/no/off on),
`CLAUDE_CODE_SIMPLE`/`YOKE_SIMPLE` (off), the `autoMemoryEnabled` setting, else on.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.memory.files import config_dir
from yoke.records import Record

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})
# Settings scopes that may move the memory directory: never "project" (a repository's own file).
DIRECTORY_SCOPES = ("managed", "flag", "local", "user")
_MAX_NAME = 200


class AutoMemoryConfig(Record):
    __slots__ = (
        "enabled",
        "directory",
        "custom",
        "why_off",
        "extraction",
        "recall",
        "recall_model",
        "warnings",
    )

    def __init__(
        self,
        enabled: bool,
        directory: Path,
        custom: bool,  # moved by autoMemoryDirectory
        why_off: str = "",  # what turned it off, for `yoke memory` and --debug
        extraction: bool = False,  # autoMemoryExtraction: propose memories at session end
        recall: str = "index",  # autoMemoryRecall: "index" (full-text, no model call) or "model"
        recall_model: str | None = None,  # autoMemoryRecallModel: the side query's model
        warnings: tuple[str, ...] = (),  # settings that were ignored, one line each
    ) -> None:
        self.enabled = enabled
        self.directory = directory
        self.custom = custom
        self.why_off = why_off
        self.extraction = extraction
        self.recall = recall
        self.recall_model = recall_model
        self.warnings = warnings


def memory_enabled(settings: Mapping[str, Any], env: Mapping[str, str]) -> tuple[bool, str]:
    flag = (env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY") or "").strip().lower()
    if flag in TRUE_WORDS:
        return False, "CLAUDE_CODE_DISABLE_AUTO_MEMORY is set"
    if flag in FALSE_WORDS:
        return True, ""
    if env.get("CLAUDE_CODE_SIMPLE") or env.get("YOKE_SIMPLE"):
        return False, "simple mode (CLAUDE_CODE_SIMPLE)"
    value = settings.get("autoMemoryEnabled")
    if value is False:
        return False, "autoMemoryEnabled is false in settings"
    return True, ""


def canonical_git_root(cwd: Path) -> Path | None:
    """The main checkout's root for `cwd` (the same for every worktree of a repository), or None outside
    git. A bare repository's worktrees use the bare repository's folder."""
    from yoke.gitsafe import hardened_git_argv, hardened_git_env, inside_repository

    if not inside_repository(cwd):
        return None
    try:
        from yoke import spawn

        proc = spawn.run(
            hardened_git_argv("rev-parse", "--git-common-dir"),
            confine=None,  # Yoke's own hardened git
            cwd=cwd,
            env=hardened_git_env(),
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return _git_root_from_files(cwd)
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    return root_of_common_dir(cwd, proc.stdout.strip())


def root_of_common_dir(cwd: Path, common_dir: str) -> Path:
    """The main checkout's root from `git rev-parse --git-common-dir` as printed in `cwd`."""
    common = Path(os.path.realpath(cwd / common_dir))
    return common.parent if common.name == ".git" else common


def _git_root_from_files(cwd: Path) -> Path | None:
    """Without a git binary: follow `.git` (a folder, or a worktree's `gitdir:` file and its `commondir`)."""
    for folder in (cwd, *cwd.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return folder
        if dot_git.is_file():
            try:
                text = dot_git.read_text(encoding="utf-8").strip()
            except OSError:
                return folder
            if not text.startswith("gitdir:"):
                return folder
            gitdir = (folder / text[len("gitdir:") :].strip()).resolve()
            try:
                common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
            except OSError:
                return folder  # a submodule, or a worktree without commondir: its own root
            return common.parent if common.name == ".git" else common
    return None


def sanitize_path(path: Path) -> str:
    """Claude Code's project folder name: every character outside [a-zA-Z0-9] becomes '-'."""
    import re

    return re.sub(r"[^a-zA-Z0-9]", "-", str(path))


def default_directory(
    cwd: Path, env: Mapping[str, str], home: Path | None = None, git_common_dir: str | None = None
) -> Path:
    """`git_common_dir`: what `git rev-parse --git-common-dir` printed in `cwd`, when the caller asked
    already (the session does, with its other git questions); otherwise git is asked here."""
    found = root_of_common_dir(cwd, git_common_dir) if git_common_dir else canonical_git_root(cwd)
    root = found or Path(os.path.realpath(cwd))
    projects = config_dir(env, home) / "projects"
    name = sanitize_path(root)
    if len(name) > _MAX_NAME:
        name = _long_name(projects, name)
    return projects / name / "memory"


def _long_name(projects: Path, name: str) -> str:
    """Claude Code cuts long names at 200 characters and adds a hash Yoke cannot reproduce; use an existing
    folder with the same 200-character prefix when there is one."""
    import hashlib

    prefix = name[:_MAX_NAME] + "-"
    try:
        for entry in sorted(os.listdir(projects)):
            if entry.startswith(prefix) and (projects / entry / "memory").is_dir():
                return entry
    except OSError:
        pass
    return prefix + hashlib.sha256(name.encode()).hexdigest()[:8]


def configured_directory(
    sources: list[Any], home: Path, trusted: Any = None, warnings: list[str] | None = None
) -> Path | None:
    """`autoMemoryDirectory` from the highest-precedence source allowed to set it: never a project file,
    and a local file (`.claude/settings.local.json`, which a cloned repository can carry) only once the
    folder is trusted. `trusted` is a function asked when a local file sets it."""
    for source in sources:  # highest precedence first
        scope = getattr(source, "scope", None)
        if scope not in DIRECTORY_SCOPES:
            continue
        value = (getattr(source, "data", None) or {}).get("autoMemoryDirectory")
        if not isinstance(value, str) or not value.strip():
            continue
        if scope == "local" and not (trusted is not None and trusted()):
            if warnings is not None:
                warnings.append(
                    f"{source.label}: autoMemoryDirectory is ignored until this folder is trusted (yoke trust)"
                )
            continue
        text = value.strip()
        if text == "~" or text.startswith("~/"):
            text = str(home) + text[1:]
        path = Path(text)
        if not path.is_absolute():
            path = Path(getattr(source, "base_dir", home)) / path
        return Path(os.path.normpath(path))
    return None


def resolve_auto_memory(
    cwd: Path,
    *,
    settings: Any = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    git_common_dir: str | None = None,
) -> AutoMemoryConfig:
    """The session's auto-memory configuration from its loaded settings (a `LoadedSettings`) and env.
    `git_common_dir`: as for `default_directory`."""
    env = os.environ if env is None else env
    home = home or Path(env.get("HOME") or Path.home())
    merged: Mapping[str, Any] = getattr(settings, "merged", None) or {}
    enabled, why = memory_enabled(merged, env)
    warnings: list[str] = []
    custom = configured_directory(
        list(getattr(settings, "sources", None) or []), home, lambda: _trusted(cwd, settings), warnings
    )
    directory = custom if custom is not None else default_directory(Path(cwd), env, home, git_common_dir)
    return AutoMemoryConfig(
        enabled=enabled,
        directory=directory,
        custom=custom is not None,
        why_off=why,
        extraction=merged.get("autoMemoryExtraction") is True,
        recall="model" if merged.get("autoMemoryRecall") == "model" else "index",
        recall_model=_text(merged.get("autoMemoryRecallModel")),
        warnings=tuple(warnings),
    )


def _trusted(cwd: Path, settings: Any) -> bool:
    from yoke.config.trust import is_trusted

    try:
        return is_trusted(
            Path(cwd),
            settings.yoke_home,
            home=settings.home,
            claude_dir=getattr(settings, "claude_dir", None),
        )
    except (AttributeError, OSError):
        return False


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None
