"""Writes into the memory directory without a question, and nowhere else.

Done through the gate's own mechanism: two path rules (`Read(//<dir>/**)`, `Edit(//<dir>/**)`) added to
its session rules, the list "allow for this session" answers go to. Path rules must cover a path both as
written and where its bytes really are, so a symlink in the memory directory pointing elsewhere is not
covered; deny rules and plan mode still come first. The rules' scope reads `auto-memory`, so a decision
says where the allowance came from.

A directory from `autoMemoryDirectory` gets no allowance when it is the filesystem root, a top-level
folder, the home directory, a working directory or above one, a credentials folder, or a protected
configuration path: then the model's memory writes ask like any other write.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from yoke.permissions.pipeline import PermissionGate

SCOPE = "auto-memory"


def _glob_escape(path: str) -> str:
    return "".join("\\" + ch if ch in "*?[]{}\\" else ch for ch in path)


def unsafe_reason(directory: Path, home: Path, working_dirs: list[Path], custom: bool) -> str:
    """Why writes to `directory` must not be allowed silently ("" when they may)."""
    from yoke.paths import is_critical, is_protected, is_secret

    real = os.path.realpath(directory)
    dirs = [os.path.realpath(d) for d in working_dirs]
    cwd = Path(dirs[0]) if dirs else Path.cwd()
    if real != _where_meant(directory, [home, *working_dirs]):
        return f"{directory} is reached through a symbolic link (to {real})"
    for form in {str(directory), real}:
        if is_critical(form, cwd, home, dirs):
            return f"{directory} is a critical folder (the root, home, a working folder or above one)"
        if is_secret(form, home) or is_secret(form + "/x", home):
            return f"{directory} holds credentials"
        if custom and is_protected(form + "/x"):
            return f"{directory} is a protected configuration path"
    return ""


def _where_meant(directory: Path, anchors: list[Path]) -> str:
    """Where `directory` lies when no symbolic link below the home or working folder containing it
    redirects it (links above them, like a symlinked home, are the user's own): a repository's link on
    the way to a memory folder must not turn into a write allowance somewhere else."""
    normal = os.path.normpath(os.path.abspath(directory))
    for anchor in anchors:
        base = os.path.normpath(os.path.abspath(anchor))
        if normal == base or normal.startswith(base.rstrip("/") + "/"):
            return os.path.normpath(os.path.join(os.path.realpath(base), os.path.relpath(normal, base)))
    return normal


def allow_memory_directory(gate: PermissionGate, directory: Path, *, custom: bool = False) -> bool:
    """Add the allowance to `gate`; False (and a warning on the gate) when the directory is unsafe."""
    from yoke.permissions.rules import PermissionRule

    problem = unsafe_reason(directory, Path(gate.home or Path.home()), list(gate.working_dirs), custom)
    if problem:
        gate.warnings.append(f"auto memory: {problem}; writing there will ask for permission")
        return False
    forms = dict.fromkeys([os.path.normpath(directory), os.path.realpath(directory)])
    rules = []
    for form in forms:
        spec = "//" + _glob_escape(form.lstrip("/")) + "/**"
        for tool in ("Read", "Edit"):
            rules.append(PermissionRule(tool, spec, "allow", SCOPE, Path(form), f"{tool}({spec})"))
    gate.session_rules.extend(rules)
    return True
