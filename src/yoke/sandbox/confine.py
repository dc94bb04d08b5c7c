"""Confinement: the property that let a Bash call run without asking, enforced by the kernel while it runs.

A call the read-only fast path allowed runs with the whole filesystem read-only; a call acceptEdits allowed
runs with only the working directories writable, the protected names in them pinned read-only (the whole
`.git` unless the user's rules let commands write git's state). Either way secrets (the home's secret
locations, `.env*`/`*.pem`-style files in the working directories, paths Read deny rules name) are hidden,
there is no network and /tmp is private. So a mistake in the analysis cannot become an effect.

`confine_command` builds the argv (bubblewrap on Linux, sandbox-exec on macOS, through the same builders as
the `sandbox` setting); `kernel_sandbox_available()` is the cheap start-up check that decides whether Yoke
warns that its fast paths are confined by analysis only.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from yoke.records import FrozenRecord
from yoke.sandbox.errors import SandboxUnavailable
from yoke.sandbox.settings import SandboxSettings

READ_ONLY = "read-only"
WORKDIRS = "workdirs"
# a call the fast paths did not judge (auto mode's classifier approved it): it runs as it is, but for what
# the deny rules and the secret list name (`deny_only.py`)
DENY_ONLY = "deny-only"
# Folders the secret scan does not enter: tools' caches and dependency trees (large, and never where a
# project keeps its own `.env`). The analyser still refuses a fast-path read of a secret anywhere.
_SCAN_SKIPS = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox", ".mypy_cache", ".pytest_cache",
     ".ruff_cache", "site-packages", "target", ".gradle", ".next", ".cache"}
)  # fmt: skip
SCAN_LIMIT = 20_000  # directory entries looked at per working directory, to keep start-up bounded


class Confinement(FrozenRecord):
    """How a call must run: `kind` is READ_ONLY, WORKDIRS or DENY_ONLY; `git_writes` says the user's rules let
    commands write git's state (then only `.git/hooks` and `.git/config` are pinned)."""

    __slots__ = ("kind", "git_writes", "open_dirs")
    kind: str
    git_writes: bool
    # folders inside a pinned name that the decision let the command write (`.claude/worktrees`, which is
    # not protected): made if missing, then writable over the pin
    open_dirs: tuple[str, ...]

    def __init__(self, kind: str, git_writes: bool = False, open_dirs: tuple[str, ...] = ()) -> None:
        self._fill(kind=kind, git_writes=git_writes, open_dirs=open_dirs)


def confine_command(
    argv: list[str],
    confinement: Confinement,
    settings: SandboxSettings,
    cwd: Path,
    working_dirs: list[Path],
    *,
    home: Path | None = None,
    writable: list[Path] | None = None,
    readable: list[Path] | None = None,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """The argv that runs `argv` under `confinement`; raises SandboxUnavailable (one line) when no kernel
    sandbox can start. `settings` contributes its deny lists (and Read/Edit deny rules joined to them); its
    writable paths, domains and socket allowances do not apply: a fast path allows none of them. Reads are
    confined to the allowlist (`visible.py`) and the environment to its allowed variables (of `env`, the
    one the command is started with; this process's when not given)."""
    from yoke.paths import real_dir

    home = home or Path.home()
    # Resolved once (the first resolution of a boundary is kept): a link swapped in later leads nowhere new.
    working_dirs = [Path(real_dir(d)) for d in working_dirs]
    dirs = [] if confinement.kind == READ_ONLY else list(working_dirs)
    seen = [] if dirs else [*working_dirs, Path(os.path.realpath(cwd))]
    nested = _nested_names(confinement) if dirs else ()
    hidden, pinned = denied_in([*working_dirs, cwd], home, settings, nested=nested)
    narrowed = settings.replace(
        enabled=True,
        allow_write=(),
        allowed_domains=(),
        allow_all_unix_sockets=False,
        allow_unix_sockets=(),
        allow_local_binding=False,
        allow_read=(),
        deny_read=tuple(dict.fromkeys([*settings.deny_read, *hidden])),
        deny_write=tuple(dict.fromkeys([*settings.deny_write, *pinned])),
    )
    opened = _open_dirs(confinement.open_dirs, dirs)
    if sys.platform.startswith("linux"):
        from yoke.sandbox.linux import bwrap_command

        return bwrap_command(
            argv,
            narrowed,
            cwd,
            dirs,
            home=home,
            writable=list(writable or []),
            readable=[*seen, *(readable or [])],
            proxy_socket=None,
            whole_git=not confinement.git_writes,
            visible=[],
            env=os.environ if env is None else env,
            reopened=opened,
        )
    if sys.platform == "darwin":
        from yoke.sandbox.macos import seatbelt_command

        return seatbelt_command(
            argv,
            narrowed,
            cwd,
            dirs,
            home=home,
            writable=list(writable or []),
            proxy_port=None,
            tmp_dir=os.environ.get("TMPDIR") or "/tmp",
        )
    raise SandboxUnavailable(f"no kernel sandbox on {sys.platform}")


def _nested_names(confinement: Confinement) -> tuple[str, ...]:
    """The protected names pinned at every depth of the writable folders: the top-level list's single names,
    and `.git` (a nested repository's, whole unless the rules let commands write git's state)."""
    from yoke.sandbox.linux import PROTECTED_IN_WORKDIR

    names = tuple(n for n in PROTECTED_IN_WORKDIR if "/" not in n)
    return (*names, ".git") if not confinement.git_writes else names


def _open_dirs(wanted: tuple[str, ...], dirs: list[Path]) -> list[str]:
    """The approved folders under pinned names, made if missing: only `<working dir>/.claude/worktrees`,
    and only where no component is a link (nothing is made or opened outside the working directory)."""
    out: list[str] = []
    for folder in wanted:
        for wd in dirs:
            if folder != os.path.join(str(wd), ".claude", "worktrees"):
                continue
            parent = os.path.dirname(folder)
            if (
                os.path.islink(parent)
                or os.path.islink(folder)
                or (os.path.lexists(parent) and not os.path.isdir(parent))
            ):
                continue
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError:
                continue
            out.append(folder)
    return out


def probe_confinement() -> None:
    """Raise SandboxUnavailable (one line) unless a confined command can start here (bwrap is found and
    can create namespaces; sandbox-exec exists). The Linux probe runs once per process."""
    if sys.platform.startswith("linux"):
        import shutil

        from yoke.sandbox.linux import probe_bwrap

        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
        probe_bwrap(bwrap)
    elif sys.platform != "darwin" or not kernel_sandbox_available():
        raise SandboxUnavailable(f"no kernel sandbox on {sys.platform}")


def kernel_sandbox_available(env: dict[str, str] | None = None) -> bool:
    """Whether the sandbox program is on PATH (no process started: this runs as every session starts;
    a sandbox that is installed but cannot create namespaces is found out at the first command)."""
    if sys.platform.startswith("linux"):
        program = "bwrap"
    elif sys.platform == "darwin":
        program = "sandbox-exec"
    else:
        return False
    path = (env if env is not None else os.environ).get("PATH", os.defpath)
    for folder in path.split(os.pathsep):
        candidate = os.path.join(folder or ".", program)
        if os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return True
    return False


def denied_in(
    dirs: list[Path],
    home: Path,
    settings: SandboxSettings,
    secrets: bool = True,
    nested: tuple[str, ...] = (),
) -> tuple[list[str], list[str]]:
    """What to hide and what to pin read-only in and below `dirs`: secret files (`.env*`, `*.pem`, keys…, the
    permission layer's own test) and what the Read deny rules name (`settings.read_denied`, wildcards
    included: a folder a rule names is hidden whole); what the Edit deny rules name (`write_denied`).
    Dependency and cache trees are skipped; at most SCAN_LIMIT entries are looked at per folder. Without
    `secrets` only what the rules name. Names in `nested` found below the top of a folder are pinned too
    (a nested `.claude`, `.husky`, `.vscode`; a nested repository's `.git` hooks and configuration)."""
    from yoke.fsutil import bounded_scan
    from yoke.paths import is_secret

    read_denied, write_denied = settings.read_denied, settings.write_denied
    hidden: list[str] = []
    pinned: list[str] = []
    seen: set[str] = set()
    for root in dirs:
        real = os.path.realpath(root)
        if real in seen or any(real.startswith(s.rstrip("/") + "/") for s in seen):
            continue
        seen.add(real)
        for folder, entry in bounded_scan(real, SCAN_LIMIT, _SCAN_SKIPS):
            if folder != real and entry.name in nested and not entry.is_symlink():
                pinned.append(entry.path)  # a link is pinned where it leads, or nowhere: never followed
                continue
            if folder != real and nested and entry.name == ".git" and entry.is_dir(follow_symlinks=False):
                pinned += [os.path.join(entry.path, n) for n in ("hooks", "config")]  # git writes allowed
                continue
            named = read_denied is not None and read_denied(entry.path)
            if named or (secrets and not entry.is_dir(follow_symlinks=False) and is_secret(entry.path, home)):
                hidden.append(entry.path)
            elif write_denied is not None and write_denied(entry.path):
                pinned.append(entry.path)
    # A hidden folder becomes an empty one: nothing below it can (or need) be mounted over.
    folders = [p + "/" for p in hidden if os.path.isdir(p) and not os.path.islink(p)]
    return _not_below(hidden, folders), _not_below(pinned, folders)


def _not_below(paths: list[str], folders: list[str]) -> list[str]:
    return [p for p in paths if not any(p.startswith(f) for f in folders)]
