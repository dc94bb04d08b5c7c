"""Path facts the gate needs: resolution, working-directory membership, secrets, protected and critical paths.

Every path is resolved before any check: `~` expanded, made absolute against the working directory, `..`
collapsed, symlinks followed with realpath. A check that compares against rules uses both the logical path
(what the model wrote, normalised) and the real path (where the bytes are): allow rules must match both,
deny rules either.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from yoke.records import dataclass
from yoke.regex import lazy_compile

# Reads of these need approval unless a rule allows them.
# `.env.example` and friends are templates committed on purpose (no values): readable like any file.
_SECRET_NAME_SOURCE = (
    r"(\.env(?!\.(example|sample|template|dist|defaults)$).*|.*\.pem|.*\.key|id_[A-Za-z0-9_]+|\.netrc|\.pgpass"
    r"|\.git-credentials)$"
)
_SECRET_NAME = lazy_compile("^" + _SECRET_NAME_SOURCE)
# The same test over many paths at once, one per line: a line matches when its last part would (and a few
# lines more whose earlier parts look secret; callers judge each line found in full).
_SECRET_LINE = lazy_compile(r"^(?:[^\n]*/)?" + _SECRET_NAME_SOURCE, re.MULTILINE)
# The one list of secret places in the home, used by the file tools and the analyser (`is_secret`), the
# kernel sandbox (hidden from every confined command) and the redactor: credentials and tokens of tools.
SECRET_HOME_PATHS = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".kube",
    ".docker/config.json",
    ".npmrc",
    ".yarnrc.yml",
    ".vault-token",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".terraform.d/credentials.tfrc.json",
    ".password-store",
    ".local/share/keyrings",
    ".claude/.credentials.json",
    ".yoke/credentials.json",
)
# Writes to these are never auto-approved (any mode but bypassPermissions), as in Claude Code.
_PROTECTED_DIRS = frozenset(
    {".git", ".vscode", ".idea", ".husky", ".cargo", ".devcontainer", ".yarn", ".mvn", ".claude", ".yoke"}
    | {".ssh", ".aws", ".gnupg"}
)
_PROTECTED_FILES = frozenset(
    {
        ".gitconfig",
        ".gitmodules",
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".zlogout",
        ".profile",
        ".envrc",
        ".cshrc",
        ".tcshrc",
        ".kshrc",
        ".inputrc",
        ".npmrc",
        ".yarnrc",
        ".yarnrc.yml",
        "bunfig.toml",
        ".bazelrc",
        ".pre-commit-config.yaml",
        "lefthook.yml",
        "lefthook.yaml",
        ".lefthook.yml",
        ".lefthook.yaml",
        "gradle-wrapper.properties",
        ".devcontainer.json",
        ".ripgreprc",
        "pyrightconfig.json",
        ".mcp.json",
        ".claude.json",
    }
)


@dataclass(slots=True, frozen=True)
class ResolvedPath:
    logical: str  # absolute, `..` collapsed, symlinks kept
    real: str  # realpath: symlinks followed


def expand_user(text: str, home: Path) -> str | None:
    """`~` and `~/x` against `home`; None for forms Yoke does not resolve (`~user`, `~+`, `~-`)."""
    if not text.startswith("~"):
        return text
    if text == "~":
        return str(home)
    if text.startswith("~/"):
        return str(home) + text[1:]
    return None


def resolve_path(text: str, cwd: Path, home: Path) -> ResolvedPath | None:
    """Resolve a path the way the OS would see it from `cwd`; None if it cannot be known statically."""
    if "\0" in text:
        return None
    expanded = expand_user(text, home)
    if expanded is None:
        return None
    joined = os.path.join(str(cwd), expanded)
    logical = os.path.normpath(joined)
    if logical.startswith("//"):
        logical = "/" + logical.lstrip("/")
    return ResolvedPath(logical, os.path.realpath(joined))


# A boundary directory (a working directory, the home) is resolved once, the first time it is asked for while
# it exists: the boundary stays where it was even if a link is later put in its place, and a call no longer
# walks the same directories' links again. Relative paths depend on the process's cwd: never kept.
_REAL_DIRS: dict[str, str] = {}


def real_dir(folder: Path | str) -> str:
    key = str(folder)
    real = _REAL_DIRS.get(key)
    if real is None:
        real = os.path.realpath(key)
        if os.path.isabs(key) and os.path.isdir(real):
            _REAL_DIRS[key] = real
    return real


def real_dirs(dirs: Iterable[Path]) -> list[str]:
    return [real_dir(d) for d in dirs]


def is_inside(path: str, dirs: Iterable[str]) -> bool:
    """Whether `path` (already resolved) is one of `dirs` (already resolved) or below one."""
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def is_secret(path: str, home: Path) -> bool:
    """Credentials and keys: `.env*`, `*.pem`, `*.key`, `id_*`, `~/.ssh`, `~/.aws`, and friends."""
    if _SECRET_NAME.match(os.path.basename(path)):
        return True
    places, below = _secret_places(str(home))
    return path in places or path.startswith(below)


def secret_looking(names: list[str]) -> list[str]:
    """Those of `names` (paths without newlines) whose file name may be a secret's, found in one regex pass
    over them all: a search's thousands of results cost a fraction of a per-name check."""
    return [m.group(0) for m in _SECRET_LINE.finditer("\n".join(names))]


def near_secret_places(folder: str, home: Path) -> bool:
    """Whether a secret home folder (`~/.ssh`...) is `folder`, above it or below it: whether files found
    below `folder` can lie in one."""
    places, _ = _secret_places(str(home))
    inner = folder.rstrip("/") + "/"
    return any(folder == p or folder.startswith(p + "/") or p.startswith(inner) for p in places)


_SECRET_PLACES: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {}


def _secret_places(home: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The secret folders under `home` (as written and as resolved), and the prefixes of what is below them."""
    known = _SECRET_PLACES.get(home)
    if known is None:
        places = [f"{home_dir}/{rel}" for home_dir in {home, real_dir(home)} for rel in SECRET_HOME_PATHS]
        known = (frozenset(places), tuple(p.rstrip("/") + "/" for p in places))
        if home in _REAL_DIRS:  # kept once the home's real path is settled
            _SECRET_PLACES[home] = known
    return known


def is_protected(path: str) -> bool:
    """Configuration that controls code execution or the agent itself (Claude Code's protected paths)."""
    parts = [p for p in path.split("/") if p]
    if not parts:
        return False
    for i, part in enumerate(parts[:-1]):
        if part in _PROTECTED_DIRS:
            if part == ".claude" and parts[i + 1 : i + 2] == ["worktrees"]:
                continue
            return True
        if part == ".config" and parts[i + 1] == "git":
            return True
    last = parts[-1]
    return last in _PROTECTED_FILES or last in _PROTECTED_DIRS


def is_critical(path: str, cwd: Path, home: Path, working_dirs: Iterable[str]) -> bool:
    """Targets `rm` must never remove without a person saying so: the root, top-level directories, the
    home directory, the working directories and every directory above them."""
    path = path.rstrip("/") or "/"
    if path == "/" or path.count("/") == 1:
        return True
    guarded = {os.path.realpath(home), str(home), os.path.realpath(cwd), *working_dirs}
    for folder in list(guarded):
        p = folder
        while p not in ("/", ""):
            if path == p:
                return True
            p = os.path.dirname(p)
    return False


# ---- the paths the gate judged, re-checked when a file tool opens them ----------------------------------

MAX_JUDGED = 4096
# logical path -> (the real path the gate judged, that file's identity then or None if it did not exist)
_JUDGED: dict[str, tuple[str, tuple[int, int] | None]] = {}


def remember_judged(paths: Iterable[ResolvedPath]) -> None:
    """Record where each path led when the gate judged it, for `changed_since_judged` at open time."""
    for path in paths:
        try:
            st = os.stat(path.real)
            identity: tuple[int, int] | None = (st.st_dev, st.st_ino)
        except OSError:
            identity = None
        _JUDGED.pop(path.logical, None)
        _JUDGED[path.logical] = (path.real, identity)
    while len(_JUDGED) > MAX_JUDGED:
        _JUDGED.pop(next(iter(_JUDGED)))


def changed_since_judged(logical: str, opened: os.stat_result | str) -> str:
    """A one-line refusal when the file a tool opened (its stat) or is about to write (its real path) is not
    the one the gate judged under this name — a symlink swapped in between; "" when it is (or was never
    judged)."""
    entry = _JUDGED.get(os.path.normpath(logical))
    if entry is None:
        return ""
    real, identity = entry
    if isinstance(opened, str):
        same = os.path.realpath(opened) == real
    else:
        same = identity is None or identity == (opened.st_dev, opened.st_ino)
        same = same and (identity is not None or os.path.realpath(logical) == real)
    if same:
        return ""
    return f"{logical} changed after it was approved (it now leads somewhere else); check it and try again."
